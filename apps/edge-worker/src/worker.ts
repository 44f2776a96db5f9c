// The search proxy as a Cloudflare Worker. The app (and with it the model cache) is built once per
// isolate and reused by every request the isolate serves, so a loaded model stays in memory until the
// isolate recycles.

import { Recorder } from "@relevance/outcomes";
import { MeilisearchRetrieval } from "@relevance/search/meilisearch";
import {
  ARTIFACT_MAX_BYTES_ENV,
  artifactMaxBytes,
  createSearchApp,
  DEFAULT_ARTIFACT_MAX_BYTES,
  DEFAULT_MODEL_CACHE_MB,
  recordingTuning,
  workerEnvProblems,
} from "@relevance/search/worker";
import type { Logger } from "@relevance/settings";
import { type KvNamespaceBinding, WorkersKv } from "@relevance/settings/workers-kv";
import {
  clickHouseStoreOf,
  consumeOutcomes,
  eventMessages,
  type MessageBatch,
  type QueueBinding,
  searchMessages,
  sendOutcomes,
} from "./outcomes-queue.ts";

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
  /**
   * The outcomes queue (producer; this Worker is its consumer too). Absent: nothing is recorded and
   * POST /api/v1/events answers 404 (recording is optional in a deployment).
   */
  OUTCOMES?: QueueBinding;
  /** The consumer's ClickHouse (required with OUTCOMES); the password is a secret. */
  CLICKHOUSE_URL?: string;
  CLICKHOUSE_USER?: string;
  CLICKHOUSE_PASSWORD?: string;
  OUTCOME_RETENTION_DAYS?: string;
  RECORD_MAX_PER_SECOND?: string;
  RECORD_QUEUE_MAX?: string;
  EVENTS_PER_KEY_PER_SECOND?: string;
}

const outcomesBound = (env: Env): boolean =>
  typeof (env.OUTCOMES as { sendBatch?: unknown } | undefined)?.sendBatch === "function";

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
  if (app !== null) return app;
  const queue = outcomesBound(env) ? (env.OUTCOMES as QueueBinding) : null;
  // workerEnvProblems has refused bad values before: the defaults here only cover absent ones.
  const tuning = recordingTuning(env as unknown as Record<string, unknown>);
  const recording = tuning.ok ? tuning.value : null;
  app = createSearchApp({
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
    ...(queue === null
      ? {}
      : {
          // One message per row; the app hands each request's flush to waitUntil.
          recorder: new Recorder({
            sink: (rows) => sendOutcomes(queue, searchMessages(rows), log),
            now: Date.now,
            log,
            ...(recording === null
              ? {}
              : { maxPerSecond: recording.maxPerSecond, queueMax: recording.queueMax }),
          }),
          // 201 once the queue has accepted the event.
          recordEvents: (events) => sendOutcomes(queue, eventMessages(events), log),
          ...(recording === null ? {} : { eventsPerKeyPerSecond: recording.eventsPerKeyPerSecond }),
        }),
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
    outcomesBound(env),
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

let store: ReturnType<typeof clickHouseStoreOf> | null = null;

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    return misconfigured(env) ?? appFor(env).fetch(request, env, ctx as never);
  },
  /**
   * The OUTCOMES consumer: messages checked and written to ClickHouse; a store failure retries them
   * (then the dead-letter queue). A consumer without its ClickHouse settings retries everything.
   */
  async queue(batch: MessageBatch, env: Env): Promise<void> {
    const problems = workerEnvProblems(env as unknown as Record<string, unknown>, true, true).filter(
      (p) => p.name.startsWith("CLICKHOUSE_") || p.name === "OUTCOME_RETENTION_DAYS",
    );
    if (problems.length > 0) {
      log.error("the outcomes consumer is misconfigured; the batch is retried", {
        missing: problems.map((p) => p.name),
      });
      for (const message of batch.messages) message.retry();
      return;
    }
    store ??= clickHouseStoreOf(env as unknown as Record<string, unknown>);
    const result = await consumeOutcomes(batch, store, log);
    log.info("outcomes consumed", { queue: batch.queue, ...result });
  },
};
