// The deployed entry of `{env}-RelevanceDriftCheck`: the scheduled drift check (hourly, an
// EventBridge rule) with its secrets from Secrets Manager.

import { driftCheckHandler } from "@apps/admin-lambda/drift-check";
import { withSecretEnv } from "./secret-env.ts";

export const handler = withSecretEnv((event: unknown, context: { logStreamName?: string }) =>
  driftCheckHandler(event, context),
);
