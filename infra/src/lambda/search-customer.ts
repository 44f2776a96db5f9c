// The deployed entry of `{env}-CustomerApi`: the app's handler with its Cloudflare token and
// Meilisearch key from Secrets Manager, behind the public HTTP API.
import { handler as customer } from "@apps/customer-lambda";
import { withSecretEnv } from "./secret-env.ts";

export const handler = withSecretEnv(customer);
