// {env}-AdminInternalApi: the internal admin routes behind API Gateway (HTTP API, payload 2.0) on
// Lambda. The customer API needs a document store (Meilisearch in production, a later issue) and
// runs elsewhere; this function serves /api/v1/admin/* only (see ../README.md).
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type AdminDeps, bodyLimitsFromEnv, createAdminApp } from "@relevance/admin";
import {
  ClickHouseOutcomeStore,
  httpClickHouse,
  type OutcomeStore,
  retentionDaysFromEnv,
} from "@relevance/outcomes";
import { CloudflareRestKv } from "@relevance/settings/cloudflare-rest";
import { DynamoSettingsTable } from "@relevance/settings/dynamodb";
import { lambdaClientAddress, lambdaStageProblem, missingEnv } from "@shared/http";
import { jsonLogger } from "@shared/kernel/json-logger";
import { handle } from "hono/aws-lambda";

const COMPONENT = "AdminInternalApi";
const REQUIRED = [
  "ENV",
  "ADMIN_TOKEN",
  "CLOUDFLARE_ACCOUNT_ID",
  "KV_NAMESPACE_ID",
  "CLOUDFLARE_API_TOKEN",
] as const;

/** The admin app's dependencies from the function's environment; throws naming what is missing. */
export function depsFromEnv(env: Record<string, string | undefined>): AdminDeps {
  const missing = missingEnv(env, REQUIRED);
  if (missing.length > 0) throw new Error(`${COMPONENT}: missing environment ${missing.join(", ")}`);
  const stageProblem = lambdaStageProblem(env);
  if (stageProblem !== null) throw new Error(`${COMPONENT}: ${stageProblem}`);
  const stage = env.ENV as string;
  return {
    table: new DynamoSettingsTable({
      client: new DynamoDBClient({}),
      tableName: `${stage}-EcomIndexSettingsTable`,
    }),
    kv: new CloudflareRestKv({
      accountId: env.CLOUDFLARE_ACCOUNT_ID as string,
      namespaceId: env.KV_NAMESPACE_ID as string,
      apiToken: env.CLOUDFLARE_API_TOKEN as string,
    }),
    adminToken: env.ADMIN_TOKEN as string,
    log: jsonLogger(COMPONENT),
    now: () => new Date(),
    limits: bodyLimitsFromEnv(env),
    ...outcomesFromEnv(env),
  };
}

/** Deadline of one ClickHouse call: within the function's 15 s, with room for the answer. */
const CLICKHOUSE_TIMEOUT_MS = 10_000;

/**
 * The outcome store (quality report, training export) on the ClickHouse server at CLICKHOUSE_URL,
 * with CLICKHOUSE_USER / CLICKHOUSE_PASSWORD when set. Unset or empty: none (those routes answer
 * 503). OUTCOME_RETENTION_DAYS must be the queue consumer's: both set the tables' TTL.
 */
export function outcomesFromEnv(env: Record<string, string | undefined>): { outcomes?: OutcomeStore } {
  const url = env.CLICKHOUSE_URL?.trim() ?? "";
  if (url === "") return {};
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {}
  if (parsed === null || (parsed.protocol !== "https:" && parsed.protocol !== "http:"))
    throw new Error(`${COMPONENT}: CLICKHOUSE_URL must be an http(s) URL`);
  let retentionDays: number;
  try {
    retentionDays = retentionDaysFromEnv(env);
  } catch (err) {
    throw new Error(`${COMPONENT}: ${(err as Error).message}`);
  }
  const user = env.CLICKHOUSE_USER?.trim() ?? "";
  const password = env.CLICKHOUSE_PASSWORD ?? "";
  const sql = httpClickHouse({
    url,
    timeoutMs: CLICKHOUSE_TIMEOUT_MS,
    ...(user === "" ? {} : { user }),
    ...(password === "" ? {} : { password }),
  });
  return { outcomes: new ClickHouseOutcomeStore(sql, { retentionDays }) };
}

/**
 * The Lambda handler for given dependencies (tests pass SQLite adapters). The failed-authentication
 * throttle lives as long as the function instance: each warm instance counts its own callers, so
 * keep API Gateway's stage throttling as the outer bound.
 */
export const createHandler = (deps: AdminDeps) =>
  handle(createAdminApp({ clientAddress: lambdaClientAddress, ...deps }));

type Handler = ReturnType<typeof createHandler>;
let deployed: Handler | undefined;

/** The Lambda entry point (`index.handler` in the bundle). Built on the first invocation, then reused. */
export const handler: Handler = async (event, context) => {
  deployed ??= createHandler(depsFromEnv(process.env));
  return deployed(event, context);
};
