/**
 * Deploy glue bundled into every Lambda of infra/: before the wrapped handler's first invocation it
 * reads the function's secrets from Secrets Manager (through the AWS Parameters and Secrets Lambda
 * Extension, which the stacks attach) and puts them into `process.env` under the names the handlers
 * already read (CLOUDFLARE_API_TOKEN, ADMIN_TOKEN, CLICKHOUSE_PASSWORD, ...). The secret values thus
 * never appear in the function's configuration or the CloudFormation template, and a rotated secret
 * reaches every new execution environment without a redeploy.
 *
 * `SECRET_ENV_MAP` (set by the stacks) maps each variable to a secret and, for JSON secrets, a key:
 *   {"CLICKHOUSE_PASSWORD": {"secretId": "arn:aws:secretsmanager:...", "jsonKey": "password"}}
 */

export const SECRET_ENV_MAP = "SECRET_ENV_MAP";
/** The extension's port variable and its default (AWS documentation). */
export const EXTENSION_PORT_ENV = "PARAMETERS_SECRETS_EXTENSION_HTTP_PORT";
export const DEFAULT_EXTENSION_PORT = 2773;

export interface SecretRef {
  secretId: string;
  /** For a JSON secret: the top-level key whose string value is the variable's value. */
  jsonKey?: string;
}
export type SecretEnvMap = Record<string, SecretRef>;

import type { Issue, Result } from "@shared/kernel";

export type { Issue, Result };

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function validateSecretEnvMap(input: unknown): Result<SecretEnvMap> {
  if (!isObject(input)) return { ok: false, errors: [{ path: "", message: "must be a JSON object" }] };
  const errors: Issue[] = [];
  const out: SecretEnvMap = {};
  for (const [name, ref] of Object.entries(input)) {
    if (!ENV_NAME.test(name)) {
      errors.push({ path: name, message: "must be an environment variable name (A-Z, 0-9, _)" });
      continue;
    }
    if (!isObject(ref)) {
      errors.push({ path: name, message: "must be an object {secretId, jsonKey?}" });
      continue;
    }
    const unknown = Object.keys(ref).filter((k) => k !== "secretId" && k !== "jsonKey");
    for (const k of unknown) errors.push({ path: `${name}.${k}`, message: "is not a known field" });
    if (typeof ref.secretId !== "string" || ref.secretId === "") {
      errors.push({
        path: `${name}.secretId`,
        message: "must be a non-empty string (the secret's ARN or name)",
      });
    }
    if (ref.jsonKey !== undefined && (typeof ref.jsonKey !== "string" || ref.jsonKey === "")) {
      errors.push({ path: `${name}.jsonKey`, message: "must be a non-empty string when given" });
    }
    if (unknown.length === 0 && typeof ref.secretId === "string" && ref.secretId !== "") {
      out[name] =
        typeof ref.jsonKey === "string"
          ? { secretId: ref.secretId, jsonKey: ref.jsonKey }
          : { secretId: ref.secretId };
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: out };
}

/** Where secret strings come from. */
export interface SecretSource {
  /** The SecretString of the secret's current version. */
  secretString(secretId: string): Promise<string>;
}

/**
 * The Parameters and Secrets Lambda Extension: an HTTP endpoint on localhost inside the execution
 * environment that answers GetSecretValue from a cache, authenticated by the function's session token.
 */
export function extensionSecretSource(
  env: Record<string, string | undefined>,
  fetchImpl: typeof fetch = fetch,
  timeoutMs = 5000,
): SecretSource {
  const port = Number(env[EXTENSION_PORT_ENV] ?? DEFAULT_EXTENSION_PORT);
  return {
    async secretString(secretId) {
      const token = env.AWS_SESSION_TOKEN;
      if (token === undefined || token === "")
        throw new Error("AWS_SESSION_TOKEN is not set (not on Lambda?)");
      const url = `http://localhost:${port}/secretsmanager/get?secretId=${encodeURIComponent(secretId)}`;
      const res = await fetchImpl(url, {
        headers: { "X-Aws-Parameters-Secrets-Token": token },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (!res.ok)
        throw new Error(
          `the secrets extension answered ${res.status} for ${secretId}: ${text.slice(0, 300)}`,
        );
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`the secrets extension answered non-JSON for ${secretId}`);
      }
      const value = isObject(body) ? body.SecretString : undefined;
      if (typeof value !== "string") throw new Error(`${secretId} has no SecretString (a binary secret?)`);
      return value;
    },
  };
}

/**
 * The variables of `map` with their secret values. Each secret is read once; errors name the
 * variable and the secret, never a value.
 */
export async function resolveSecretEnv(
  map: SecretEnvMap,
  source: SecretSource,
): Promise<Record<string, string>> {
  const strings = new Map<string, Promise<string>>();
  const read = (id: string) => {
    let p = strings.get(id);
    if (p === undefined) {
      p = source.secretString(id);
      strings.set(id, p);
    }
    return p;
  };
  const out: Record<string, string> = {};
  for (const [name, ref] of Object.entries(map)) {
    let text: string;
    try {
      text = await read(ref.secretId);
    } catch (error) {
      throw new Error(
        `${name}: cannot read secret ${ref.secretId}: ${error instanceof Error ? error.message : error}`,
      );
    }
    if (ref.jsonKey === undefined) {
      out[name] = text;
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(
        `${name}: secret ${ref.secretId} is not JSON, but the key "${ref.jsonKey}" was asked for`,
      );
    }
    const value = isObject(parsed) ? parsed[ref.jsonKey] : undefined;
    if (typeof value !== "string" || value === "") {
      throw new Error(`${name}: secret ${ref.secretId} has no non-empty string under "${ref.jsonKey}"`);
    }
    out[name] = value;
  }
  return out;
}

export interface SecretEnvOptions {
  /** Default: process.env (read for SECRET_ENV_MAP, written with the values). */
  env?: Record<string, string | undefined>;
  /** Default: the Lambda extension. */
  source?: SecretSource;
}

/**
 * Wraps a Lambda handler: the first invocation fills the environment from the secrets, then calls
 * the handler (which builds its dependencies from the environment on its own first use). A failed
 * read fails that invocation and is tried again on the next one.
 */
export function withSecretEnv<A extends unknown[], R>(
  handler: (...args: A) => Promise<R>,
  options: SecretEnvOptions = {},
): (...args: A) => Promise<R> {
  const env = options.env ?? process.env;
  let ready: Promise<void> | null = null;
  const load = async () => {
    const raw = env[SECRET_ENV_MAP];
    if (raw === undefined || raw.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new Error(`${SECRET_ENV_MAP} is not valid JSON`);
    }
    const map = validateSecretEnvMap(parsed);
    if (!map.ok) {
      throw new Error(`${SECRET_ENV_MAP}: ${map.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
    }
    const values = await resolveSecretEnv(map.value, options.source ?? extensionSecretSource(env));
    Object.assign(env, values);
  };
  return async (...args) => {
    ready ??= load().catch((error: unknown) => {
      ready = null;
      throw error;
    });
    await ready;
    return handler(...args);
  };
}
