// The deployed entry of `svcmon-alerts`: the alert engine with ClickHouse credentials and the alert channels config from Secrets Manager.
import { handler as alerts } from "@apps/monitor-lambda/alerts";
import { withSecretEnv } from "./secret-env.ts";

export const handler = withSecretEnv(alerts);
