// The deployed entry of `svcmon-ingest`: the event queue's consumer with ClickHouse credentials from Secrets Manager.
import { handler as ingest } from "@apps/monitor-lambda/ingest";
import { withSecretEnv } from "./secret-env.ts";

export const handler = withSecretEnv(ingest);
