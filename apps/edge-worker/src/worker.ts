// The search proxy as a Cloudflare Worker. The app (and with it the model cache) is built once per
// isolate and reused by every request the isolate serves, so a loaded model stays in memory until the
// isolate recycles (seed 3).
import { createSearchApp } from "@relevance/search";
import { MeilisearchRetrieval } from "@relevance/search/meilisearch";
import type { Logger } from "@relevance/settings";
import { type KvNamespaceBinding, WorkersKv } from "@relevance/settings/workers-kv";

export interface Env {
  KV: KvNamespaceBinding;
  MEILISEARCH_URL: string;
  MEILISEARCH_API_KEY?: string;
  MEILISEARCH_TIMEOUT_MS?: string;
  KV_TIMEOUT_MS?: string;
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

let app: ReturnType<typeof createSearchApp> | null = null;

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
  });
  return app;
}

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    return appFor(env).fetch(request, env, ctx as never);
  },
};
