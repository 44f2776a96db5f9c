// The deployed entry of `svcmon-cur-ingest`: cost report deliveries into ClickHouse, with its credentials from Secrets Manager.
import { handler as curIngest } from "@apps/monitor-lambda/cur-ingest";
import { withSecretEnv } from "./secret-env.ts";

export const handler = withSecretEnv(curIngest);
