// The search proxy as a Cloudflare Worker. The app (and with it the model cache) is built once per
// isolate and reused by every request the isolate serves, so a loaded model stays in memory until the
// isolate recycles.

import { MeilisearchRetrieval } from "@relevance/search/meilisearch";
import {
  ARTIFACT_MAX_BYTES_ENV,
  artifactMaxBytes,
  createSearchApp,
  DEFAULT_ARTIFACT_MAX_BYTES,
  DEFAULT_MODEL_CACHE_MB,
  workerEnvProblems,
} from "@relevance/search/worker";
import type { Logger } from "@relevance/settings";
import { type KvNamespaceBinding, WorkersKv } from "@relevance/settings/workers-kv";

export interface Env {
  KV: KvNamespaceBinding;
  MEILISEARCH_URL: string;
  MEILISEARCH_API_KEY?: string;
  MEILISEARCH_TIMEOUT_MS?: string;
  KV_TIMEOUT_MS?: string;
  /** Bound on the estimated memory of the parsed models this isolate keeps, in MB (default 32). */
  MODEL_CACHE_MB?: string;
  /** Largest model artifact loaded, in bytes (default 8 MiB, at most 25 MiB). */
  MODEL_MAX_BYTES?: string;
}

/** Workers Logs keeps console output; one JSON object per line keeps it queryable. */
const log: Logger = {
  info: (message, fields) => console.log(JSON.stringify({ level: "info", message, ...fields })),
  warn: (message, fields) => console.warn(JSON.stringify({ level: "warn", message, ...fields })),
  error: (message, fields) => console.error(JSON.stringify({ level: "error", message, ...fields })),
};

const positive = (value: string | undefined, fallback: number): number => {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

/** MODEL_MAX_BYTES, or the default with an error line when it is not a valid size (a Worker cannot refuse to start). */
function modelMaxBytes(value: string | undefined): number {
  const parsed = artifactMaxBytes(value);
  if (parsed.ok) return parsed.value;
  log.error("invalid configuration, using the default", {
    variable: ARTIFACT_MAX_BYTES_ENV,
    problem: parsed.errors.map((e) => e.message).join("; "),
    default: DEFAULT_ARTIFACT_MAX_BYTES,
  });
  return DEFAULT_ARTIFACT_MAX_BYTES;
}

let app: ReturnType<typeof createSearchApp> | null = null;

/**
 * One app per isolate. Unknown routes get a JSON 404 and other methods on the search path a JSON
 * 405 with Allow: the search app's own fallback, since this Worker serves nothing else.
 */
function appFor(env: Env): ReturnType<typeof createSearchApp> {
  app ??= createSearchApp({
    kv: new WorkersKv(env.KV),
    retrieval: new MeilisearchRetrieval({
      url: env.MEILISEARCH_URL,
      apiKey: env.MEILISEARCH_API_KEY ?? "",
      timeoutMs: positive(env.MEILISEARCH_TIMEOUT_MS, 2000),
    }),
    log,
    kvTimeoutMs: positive(env.KV_TIMEOUT_MS, 50),
    modelCacheMb: positive(env.MODEL_CACHE_MB, DEFAULT_MODEL_CACHE_MB),
    modelMaxBytes: modelMaxBytes(env.MODEL_MAX_BYTES),
  });
  return app;
}

/**
 * A Worker deployed without its KV binding, Meilisearch URL or key answers every request 503 with
 * a JSON error naming what is missing (logged once per isolate), never a stack trace.
 */
function misconfigured(env: Env): Response | null {
  const problems = workerEnvProblems(
    env as unknown as Record<string, unknown>,
    typeof (env.KV as { get?: unknown } | undefined)?.get === "function",
  );
  if (problems.length === 0) return null;
  if (!reported) {
    reported = true;
    log.error("the Worker is misconfigured", { missing: problems.map((p) => p.name), problems });
  }
  return Response.json(
    {
      error: {
        code: "service_misconfigured",
        message: "the search service is not configured correctly; its operators have been told",
        details: problems.map((p) => ({ path: p.name, message: p.message })),
      },
    },
    { status: 503, headers: { "Retry-After": "60" } },
  );
}
let reported = false;

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    return misconfigured(env) ?? appFor(env).fetch(request, env, ctx as never);
  },
};
