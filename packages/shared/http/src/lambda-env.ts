/** What the Lambda handlers of the HTTP APIs check in their environment before building their app. */

/** The deployed environments a Lambda's `ENV` may name (its resources are `{ENV}-…`). */
export const LAMBDA_ENVIRONMENTS: readonly string[] = ["dev", "staging", "preprod", "prod"];

/** The names among `required` that are unset or blank in `env`, in `required`'s order. */
export function missingEnv(env: Record<string, string | undefined>, required: readonly string[]): string[] {
  return required.filter((name) => (env[name] ?? "").trim() === "");
}

/**
 * Why `ENV` does not name one of LAMBDA_ENVIRONMENTS; null when it does, or when it is unset
 * (missingEnv reports that).
 */
export function lambdaStageProblem(env: Record<string, string | undefined>): string | null {
  const stage = env.ENV ?? "";
  if (stage === "" || LAMBDA_ENVIRONMENTS.includes(stage)) return null;
  return `ENV must be one of ${LAMBDA_ENVIRONMENTS.join(", ")}, got ${JSON.stringify(stage)}`;
}
