// The deployed entry of `svcmon-status`: the status service with ClickHouse credentials and token from Secrets Manager.
import { handler as status } from "@apps/monitor-lambda/status";
import { withSecretEnv } from "./secret-env.ts";

export const handler = withSecretEnv(status);
