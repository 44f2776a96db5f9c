// The deployed entry of every `svcmon-collector-*` function (COLLECTOR names which one runs).
import { handler as collector } from "@apps/monitor-lambda/collector";
import { withSecretEnv } from "./secret-env.ts";

export const handler = withSecretEnv(collector);
