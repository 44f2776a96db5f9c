// {env}-CustomerApi: the public customer and search API behind API Gateway (HTTP API, payload 2.0)
// on Lambda. The settings table is DynamoDB (the same one the admin API and the exporter use);
// documents and indexes live in Meilisearch, reached through the IndexManager port; the search reads
// the KV copies the exporter writes, over Cloudflare's REST API. See ../README.md and docs/deploy.md.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { bodyLimitsFromEnv, LAMBDA_DOCUMENTS_BODY_BYTES, LAMBDA_MAX_RESPONSE_BYTES } from "@relevance/admin";
import {
  artifactMaxBytes,
  DEFAULT_MODEL_CACHE_MB,
  searchTuningProblems,
  type WorkerEnvProblem,
} from "@relevance/search";
import { MeilisearchIndexManager, MeilisearchRetrieval } from "@relevance/search/meilisearch";
import type { Kv, Logger, SettingsTable } from "@relevance/settings";
import { CloudflareRestKv } from "@relevance/settings/cloudflare-rest";
import { DynamoSettingsTable } from "@relevance/settings/dynamodb";
import { lambdaClientAddress, lambdaStageProblem, missingEnv } from "@shared/http";
import { errorMessage } from "@shared/kernel";
import { jsonLogger } from "@shared/kernel/json-logger";
import { handle, type LambdaContext, type LambdaEvent } from "hono/aws-lambda";
import { type CustomerApiDeps, createCustomerApi } from "./app.ts";

const COMPONENT = "CustomerApi";
const REQUIRED = [
  "ENV",
  "CLOUDFLARE_ACCOUNT_ID",
  "KV_NAMESPACE_ID",
  "CLOUDFLARE_API_TOKEN",
  "MEILISEARCH_URL",
  "MEILISEARCH_API_KEY",
] as const;

/** KV is read over Cloudflare's REST API from here, not a binding: slower than in the Worker. */
const DEFAULT_KV_TIMEOUT_MS = 1000;
const DEFAULT_MEILISEARCH_TIMEOUT_MS = 2000;

/** What the function's environment lacks or gets wrong, each naming the variable (empty when none). */
export function customerEnvProblems(env: Record<string, string | undefined>): WorkerEnvProblem[] {
  const problems: WorkerEnvProblem[] = missingEnv(env, REQUIRED).map((name) => ({
    name,
    message: `the environment variable ${name} is missing`,
  }));
  const stageProblem = lambdaStageProblem(env);
  if (stageProblem !== null) problems.push({ name: "ENV", message: stageProblem });
  const url = env.MEILISEARCH_URL ?? "";
  if (url !== "" && !/^https?:\/\/[^\s/]+/.test(url)) {
    problems.push({
      name: "MEILISEARCH_URL",
      message: `MEILISEARCH_URL must be an http(s) URL, got ${JSON.stringify(url)}`,
    });
  }
  // The same bounds as the Worker's: one search app, one set of tuning limits.
  problems.push(...searchTuningProblems(env));
  try {
    bodyLimitsFromEnv(env);
  } catch (error) {
    const message = errorMessage(error);
    problems.push({ name: message.split(" ")[0] ?? "MAX_JSON_BODY_BYTES", message });
  }
  return problems;
}

const numberOr = (raw: string | undefined, fallback: number): number =>
  raw === undefined || raw === "" ? fallback : Number(raw);

export interface Backends {
  table: SettingsTable;
  kv: Kv;
  log: Logger;
  now: () => Date;
}

/** The app's dependencies from a checked environment (call customerEnvProblems first). */
export function depsFromEnv(
  env: Record<string, string | undefined>,
  backends: Partial<Backends> = {},
): CustomerApiDeps {
  const problems = customerEnvProblems(env);
  if (problems.length > 0) {
    throw new Error(`${COMPONENT}: ${problems.map((p) => p.message).join("; ")}`);
  }
  const log = backends.log ?? jsonLogger(COMPONENT);
  const now = backends.now ?? (() => new Date());
  const meilisearch = {
    url: env.MEILISEARCH_URL as string,
    apiKey: env.MEILISEARCH_API_KEY as string,
    timeoutMs: numberOr(env.MEILISEARCH_TIMEOUT_MS, DEFAULT_MEILISEARCH_TIMEOUT_MS),
  };
  const table =
    backends.table ??
    new DynamoSettingsTable({
      client: new DynamoDBClient({}),
      tableName: `${env.ENV}-EcomIndexSettingsTable`,
    });
  const kv =
    backends.kv ??
    new CloudflareRestKv({
      accountId: env.CLOUDFLARE_ACCOUNT_ID as string,
      namespaceId: env.KV_NAMESPACE_ID as string,
      apiToken: env.CLOUDFLARE_API_TOKEN as string,
    });
  const kvTimeoutMs = numberOr(env.KV_TIMEOUT_MS, DEFAULT_KV_TIMEOUT_MS);
  const limits = { documentsBodyBytes: LAMBDA_DOCUMENTS_BODY_BYTES, ...bodyLimitsFromEnv(env) };
  const modelMaxBytes = artifactMaxBytes(env.MODEL_MAX_BYTES);
  return {
    customer: {
      table,
      kv,
      indexManager: new MeilisearchIndexManager(meilisearch),
      log,
      now,
      limits,
      maxResponseBytes: LAMBDA_MAX_RESPONSE_BYTES,
      clientAddress: lambdaClientAddress,
    },
    search: {
      kv,
      retrieval: new MeilisearchRetrieval(meilisearch),
      log,
      now: () => now().getTime(),
      kvTimeoutMs,
      settingsTimeoutMs: kvTimeoutMs,
      modelCacheMb: numberOr(env.MODEL_CACHE_MB, DEFAULT_MODEL_CACHE_MB),
      ...(modelMaxBytes.ok ? { modelMaxBytes: modelMaxBytes.value } : {}),
      clientAddress: lambdaClientAddress,
    },
  };
}

/** The Lambda handler for given dependencies (tests pass dynalite, the KV double and the Meilisearch double). */
export const createHandler = (deps: CustomerApiDeps) => handle(createCustomerApi(deps));

type Handler = ReturnType<typeof createHandler>;

/**
 * A function deployed without its configuration answers every request 503 with a JSON error naming
 * what is missing (logged once per instance), as the search Worker does, never a stack trace.
 */
export function misconfiguredAnswer(problems: WorkerEnvProblem[]) {
  return {
    statusCode: 503,
    headers: { "content-type": "application/json", "retry-after": "60" },
    body: JSON.stringify({
      error: {
        code: "service_misconfigured",
        message: "the customer API is not configured correctly; its operators have been told",
        details: problems.map((p) => ({ path: p.name, message: p.message })),
      },
    }),
    isBase64Encoded: false,
  };
}

let deployed: Handler | undefined;
let reported = false;

/** The Lambda entry point (`index.handler` in the bundle). Built on the first invocation, then reused. */
export const handler = async (event: LambdaEvent, context: LambdaContext) => {
  if (deployed === undefined) {
    const problems = customerEnvProblems(process.env);
    if (problems.length > 0) {
      if (!reported) {
        reported = true;
        jsonLogger(COMPONENT).error("the customer API is misconfigured", {
          missing: problems.map((p) => p.name),
          problems,
        });
      }
      return misconfiguredAnswer(problems);
    }
    deployed = createHandler(depsFromEnv(process.env));
  }
  return deployed(event, context);
};
