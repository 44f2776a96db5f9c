// The deployed entry of `{env}-AdminInternalApi`: the app's handler with its tokens from Secrets
// Manager, behind the IAM-authorized API (the admin token arrives in X-Admin-Token).

import { handler as admin } from "@apps/admin-lambda";
import { withAdminTokenHeader } from "@relevance/admin/admin-token-header";
import type { LambdaContext, LambdaEvent } from "hono/aws-lambda";
import { withSecretEnv } from "./secret-env.ts";

export const handler = withSecretEnv((event: LambdaEvent, context: LambdaContext) =>
  admin(withAdminTokenHeader(event), context),
);
