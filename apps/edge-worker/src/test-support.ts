// The Worker as tests run it: the esbuild bundle of worker.ts inside real workerd (Miniflare) with a
// real KV namespace. Meilisearch is not available here; tests point MEILISEARCH_URL at the local
// double from @relevance/search/meilisearch/test-support.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  type ClickHouseHttpChdbDouble,
  startClickHouseHttpChdb,
} from "@relevance/outcomes/test-support/clickhouse-http";
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "@relevance/search/meilisearch/test-support";
import { type KvNamespaceBinding, WorkersKv } from "@relevance/settings/workers-kv";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const ENTRY = fileURLToPath(new URL("./worker.ts", import.meta.url));

/** The Worker bundle exactly as wrangler would ship it (ESM, neutral platform, worker conditions). */
export async function bundleWorker(): Promise<string> {
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["worker", "browser"],
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0]?.text ?? "";
}

/** One workerd instance running `bundle` with a KV namespace bound as `KV` and the given variables. */
export async function startWorker(
  bundle: string,
  bindings: Record<string, string>,
): Promise<{ mf: Miniflare; kv: WorkersKv }> {
  const mf = new Miniflare({
    modules: true,
    script: bundle,
    compatibilityDate: "2025-01-01",
    kvNamespaces: ["KV"],
    bindings,
  });
  const kv = new WorkersKv((await mf.getKVNamespace("KV")) as unknown as KvNamespaceBinding);
  return { mf, kv };
}

/** The same Worker deployed without its KV namespace binding (a misconfiguration). */
export function startWorkerWithoutKv(bundle: string, bindings: Record<string, string>): Miniflare {
  return new Miniflare({ modules: true, script: bundle, compatibilityDate: "2025-01-01", bindings });
}

/** The Worker with the doubles of what it talks to in production, for the outcome-recording tests. */
export interface OutcomesWorker {
  mf: Miniflare;
  kv: WorkersKv;
  meili: MeilisearchDouble;
  clickhouse: ClickHouseHttpChdbDouble;
  close(): Promise<void>;
}

/**
 * The Worker with its OUTCOMES queue (producer and consumer, a dead-letter queue) writing to the
 * chDB-backed ClickHouse HTTP double, answering searches from the Meilisearch double. `quiet` keeps
 * the Worker's per-batch log lines off stdout (a benchmark prints its table there).
 */
export async function startOutcomesWorker(
  prefix: string,
  opts: { quiet?: boolean } = {},
): Promise<OutcomesWorker> {
  const meili = await startMeilisearchDouble();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const clickhouse = await startClickHouseHttpChdb(dir, { user: "recorder", password: "ch-secret" });
  const mf = new Miniflare({
    modules: true,
    script: await bundleWorker(),
    compatibilityDate: "2025-01-01",
    kvNamespaces: ["KV"],
    queueProducers: { OUTCOMES: "outcomes" },
    queueConsumers: {
      outcomes: { maxBatchSize: 100, maxBatchTimeout: 1, maxRetries: 2, deadLetterQueue: "outcomes-dlq" },
    },
    bindings: {
      MEILISEARCH_URL: meili.url,
      MEILISEARCH_API_KEY: MASTER_KEY,
      KV_TIMEOUT_MS: "1000",
      CLICKHOUSE_URL: clickhouse.url,
      CLICKHOUSE_USER: "recorder",
      CLICKHOUSE_PASSWORD: "ch-secret",
    },
    ...(opts.quiet
      ? {
          handleRuntimeStdio(stdout: Readable, stderr: Readable) {
            stdout.resume();
            stderr.pipe(process.stderr);
          },
        }
      : {}),
  });
  const kv = new WorkersKv((await mf.getKVNamespace("KV")) as unknown as KvNamespaceBinding);
  return {
    mf,
    kv,
    meili,
    clickhouse,
    async close() {
      await mf.dispose();
      await meili.close();
      await clickhouse.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
