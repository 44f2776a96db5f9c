import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "@relevance/core";
import type { Kv, SettingsTable } from "@relevance/settings";
import { CloudflareRestKv } from "@relevance/settings/cloudflare-rest";
import { DynamoSettingsTable } from "@relevance/settings/dynamodb";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";

export const ENVIRONMENT_NAMES = ["local", "dev", "staging", "preprod", "prod"] as const;
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];

export interface CloudEnvironmentConfig {
  kind: "cloud";
  kvNamespaceId: string;
  /** The Cloudflare account that holds the KV namespace (prod has its own). */
  storeAccountId: string;
  settingsTable: string;
  awsRegion: string;
  adminBaseUrl: string;
  searchBaseUrl: string;
  /** For tests and emulators only: another Cloudflare API base URL or DynamoDB endpoint. */
  cloudflareApiBaseUrl?: string;
  dynamodbEndpoint?: string;
}

export type EnvironmentConfig = { kind: "local" } | CloudEnvironmentConfig;

/** An environment resolved to live stores: what every procedure needs. */
export interface Environment {
  name: EnvironmentName;
  kv: Kv;
  table: SettingsTable;
  adminBaseUrl: string;
  adminToken: string | undefined;
  /** Cloud: the admin API is IAM-authorized, requests are SigV4-signed for this region. Local: null. */
  adminSigning: { region: string } | null;
  searchBaseUrl: string;
  close(): void;
}

const CLOUD_FIELDS = [
  "kvNamespaceId",
  "storeAccountId",
  "settingsTable",
  "awsRegion",
  "adminBaseUrl",
  "searchBaseUrl",
] as const;

/** Validates the environments file (parse, don't throw): every problem with its path. */
export function validateEnvironments(
  input: unknown,
): Result<Partial<Record<EnvironmentName, EnvironmentConfig>>> {
  if (!isPlainObject(input))
    return fail([issue("", `the environments file must be a JSON object, got ${describeType(input)}`)]);
  const errors: Issue[] = [];
  const out: Partial<Record<EnvironmentName, EnvironmentConfig>> = {};
  for (const [name, value] of Object.entries(input)) {
    if (name.startsWith("$")) continue;
    if (!(ENVIRONMENT_NAMES as readonly string[]).includes(name)) {
      errors.push(issue(name, `is not an environment (use ${ENVIRONMENT_NAMES.join(", ")})`));
      continue;
    }
    if (!isPlainObject(value)) {
      errors.push(issue(name, `must be an object, got ${describeType(value)}`));
      continue;
    }
    if (value.kind === "local") {
      out[name as EnvironmentName] = { kind: "local" };
      continue;
    }
    if (value.kind !== "cloud") {
      errors.push(issue(`${name}.kind`, 'must be "local" or "cloud"'));
      continue;
    }
    for (const field of CLOUD_FIELDS) {
      if (typeof value[field] !== "string")
        errors.push(issue(`${name}.${field}`, `must be a string, got ${describeType(value[field])}`));
    }
    for (const field of ["cloudflareApiBaseUrl", "dynamodbEndpoint"]) {
      if (value[field] !== undefined && typeof value[field] !== "string")
        errors.push(issue(`${name}.${field}`, "must be a string"));
    }
    out[name as EnvironmentName] = value as unknown as CloudEnvironmentConfig;
  }
  return errors.length > 0 ? fail(errors) : ok(out);
}

/**
 * Resolves `--env NAME` to live stores. `local` is the `npm start` stack: its SQLite files under
 * DATA_DIR (default ./.data), its APIs at http://127.0.0.1:$PORT (default 8787), ADMIN_TOKEN.
 * Cloud environments use Workers KV through the Cloudflare REST API (CLOUDFLARE_API_TOKEN; the
 * store account from CLOUDFLARE_ACCOUNT_ID or the file) and DynamoDB through the AWS default
 * credential chain; their admin API is IAM-authorized, so admin calls are SigV4-signed with the same
 * chain (procedures/admin-auth.ts). Returns one clear line when something is missing.
 */
export function resolveEnvironment(
  name: string,
  configs: Partial<Record<EnvironmentName, EnvironmentConfig>>,
  env: NodeJS.ProcessEnv,
): Result<Environment> {
  if (!(ENVIRONMENT_NAMES as readonly string[]).includes(name)) {
    return fail([issue("--env", `unknown environment "${name}" (use ${ENVIRONMENT_NAMES.join(", ")})`)]);
  }
  const envName = name as EnvironmentName;
  const config = envName === "local" ? (configs.local ?? { kind: "local" }) : configs[envName];
  if (config === undefined)
    return fail([issue("--env", `environment "${name}" is not in the environments file`)]);

  if (config.kind === "local") {
    const dataDir = resolve(env.DATA_DIR ?? "./.data");
    const port = env.PORT ?? "8787";
    if (!/^\d{1,5}$/.test(port)) return fail([issue("PORT", `must be a port number, got "${port}"`)]);
    // Opening would create empty databases: a wrong DATA_DIR must not leave files behind.
    if (!existsSync(join(dataDir, "settings.db")) || !existsSync(join(dataDir, "kv.db"))) {
      return fail([
        issue(
          "DATA_DIR",
          `${dataDir} holds no local stack data (start it with npm start, or set DATA_DIR to its data folder)`,
        ),
      ]);
    }
    const settingsDb = openDatabase(join(dataDir, "settings.db"));
    const kvDb = openDatabase(join(dataDir, "kv.db"));
    const base = `http://127.0.0.1:${port}`;
    return ok({
      name: envName,
      kv: new SqliteKv(kvDb),
      table: new SqliteSettingsTable(settingsDb),
      adminBaseUrl: base,
      adminToken: env.ADMIN_TOKEN || undefined,
      adminSigning: null,
      searchBaseUrl: base,
      close() {
        settingsDb.close();
        kvDb.close();
      },
    });
  }

  const empty = CLOUD_FIELDS.filter(
    (f) => config[f] === "" && !(f === "storeAccountId" && env.CLOUDFLARE_ACCOUNT_ID),
  );
  if (empty.length > 0) {
    return fail([
      issue(
        "--env",
        `environment "${name}" is not configured: set ${empty.join(", ")} in the environments file`,
      ),
    ]);
  }
  const apiToken = env.CLOUDFLARE_API_TOKEN;
  if (!apiToken)
    return fail([
      issue("CLOUDFLARE_API_TOKEN", `is not set; it is needed to reach the ${name} KV namespace`),
    ]);
  const client = new DynamoDBClient({
    region: config.awsRegion,
    ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint } : {}),
  });
  return ok({
    name: envName,
    kv: new CloudflareRestKv({
      accountId: env.CLOUDFLARE_ACCOUNT_ID || config.storeAccountId,
      namespaceId: config.kvNamespaceId,
      apiToken,
      ...(config.cloudflareApiBaseUrl ? { baseUrl: config.cloudflareApiBaseUrl } : {}),
    }),
    table: new DynamoSettingsTable({ client, tableName: config.settingsTable }),
    adminBaseUrl: config.adminBaseUrl.replace(/\/+$/, ""),
    adminToken: env.ADMIN_TOKEN || undefined,
    adminSigning: { region: config.awsRegion },
    searchBaseUrl: config.searchBaseUrl.replace(/\/+$/, ""),
    close() {
      client.destroy();
    },
  });
}
