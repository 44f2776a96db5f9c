// The deployed entry of `{env}-ecom_settings_exporter`: the app's handler with its Cloudflare token from Secrets Manager.
import { handler as exporter } from "@apps/exporter-lambda";
import { withSecretEnv } from "./secret-env.ts";

export const handler = withSecretEnv(exporter);
