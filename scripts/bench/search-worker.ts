// The search benchmark's Worker series: the production search path (the esbuild bundle of
// apps/edge-worker inside real workerd, through Miniflare) with recording on, for an index whose
// shadow model scores every search after the answer (in waitUntil), alternating with an index without
// one. The answers come from the Meilisearch double (Meilisearch itself cannot run here) and the
// recorded rows go through the OUTCOMES queue into the chDB-backed ClickHouse HTTP double, as in the
// Worker's tests; what differs between the two series is only the shadow model.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { bundleWorker } from "../../apps/edge-worker/src/test-support.ts";
import { startClickHouseHttpChdb } from "../../packages/relevance/outcomes/src/test-support/clickhouse-http-chdb.ts";
import {
  MASTER_KEY,
  startMeilisearchDouble,
} from "../../packages/relevance/search/src/meilisearch/test-support/meilisearch-double.ts";
import { putApiKey, putSettings } from "../../packages/relevance/search/src/test-support/harness.ts";
import { type KvNamespaceBinding, WorkersKv } from "../../packages/relevance/settings/src/kv/workers-kv.ts";

export interface WorkerShadowInput {
  account: string;
  /** Artifact texts by model id: the serving model and the shadow model. */
  servingId: string;
  servingText: string;
  shadowId: string;
  shadowText: string;
  /** Searches per series (alternating, which goes first alternates). */
  rounds: number;
  queries: readonly string[];
}

export interface WorkerShadowResult {
  shadowed: number[];
  unshadowed: number[];
  /** Served-search rows that reached ClickHouse with a shadow score (proves the shadow ran). */
  shadowRowsStored: number;
}

const API_KEY = "rk_bench_worker_key";

export async function workerShadowSeries(input: WorkerShadowInput): Promise<WorkerShadowResult> {
  const dir = mkdtempSync(join(os.tmpdir(), "bench-worker-"));
  const meili = await startMeilisearchDouble();
  const clickhouse = await startClickHouseHttpChdb(dir, { user: "recorder", password: "ch-secret" });
  const mf = new Miniflare({
    modules: true,
    script: await bundleWorker(),
    compatibilityDate: "2025-01-01",
    // The Worker logs a line per consumed batch; the benchmark's table is the output, so only
    // warnings and errors of the Worker are passed on.
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.resume();
      stderr.pipe(process.stderr);
    },
    kvNamespaces: ["KV"],
    queueProducers: { OUTCOMES: "outcomes" },
    queueConsumers: {
      outcomes: { maxBatchSize: 100, maxBatchTimeout: 1, maxRetries: 2, deadLetterQueue: "outcomes-dlq" },
    },
    bindings: {
      MEILISEARCH_URL: meili.url,
      MEILISEARCH_API_KEY: MASTER_KEY,
      CLICKHOUSE_URL: clickhouse.url,
      CLICKHOUSE_USER: "recorder",
      CLICKHOUSE_PASSWORD: "ch-secret",
    },
  });
  try {
    const kv = new WorkersKv((await mf.getKVNamespace("KV")) as unknown as KvNamespaceBinding);
    await putApiKey(kv, API_KEY, input.account);
    const trigger = { model_id: input.servingId, title_field: "title", tags_field: "tags" };
    const recording = { sample_rate: 1 };
    // Both index names end in "-products", so the double answers both with its documented hits.
    await putSettings(kv, input.account, "shadowed-products", {
      relevance_trigger_config: trigger,
      relevance_recording_config: recording,
      relevance_shadow_config: { model_id: input.shadowId, sample_rate: 1 },
    });
    await putSettings(kv, input.account, "plain-products", {
      relevance_trigger_config: trigger,
      relevance_recording_config: recording,
    });
    await kv.put(`relevance_model:${input.servingId}`, input.servingText);
    await kv.put(`relevance_model:${input.shadowId}`, input.shadowText);
    await mf.ready;

    const search = async (index: string, q: string): Promise<number> => {
      const t0 = performance.now();
      const res = await mf.dispatchFetch(`http://worker/api/v1/indexes/${index}/search`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": API_KEY },
        body: JSON.stringify({ q, relevanceScore: true }),
      });
      await res.arrayBuffer();
      const ms = performance.now() - t0;
      if (res.status !== 200 || res.headers.get("x-relevance-model") !== input.servingId)
        throw new Error(`worker search on ${index} answered ${res.status} without the serving model`);
      return ms;
    };
    // Warm both paths (bundle compiled, models loaded into the isolate's cache).
    for (let i = 0; i < 50; i++) {
      await search("shadowed-products", "warm");
      await search("plain-products", "warm");
    }
    const shadowed: number[] = [];
    const unshadowed: number[] = [];
    for (let t = 0; t < input.rounds; t++) {
      const q = input.queries[t % input.queries.length] as string;
      if (t % 2 === 0) {
        shadowed.push(await search("shadowed-products", q));
        unshadowed.push(await search("plain-products", q));
      } else {
        unshadowed.push(await search("plain-products", q));
        shadowed.push(await search("shadowed-products", q));
      }
    }
    const shadowRowsStored = await countShadowRows(clickhouse.url);
    return { shadowed, unshadowed, shadowRowsStored };
  } finally {
    await mf.dispose();
    await meili.close();
    await clickhouse.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows with a shadow score, once the queue has drained (it delivers within a second or two). */
async function countShadowRows(url: string): Promise<number> {
  let count = 0;
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${url}/?default_format=JSONEachRow`, {
      method: "POST",
      headers: { "X-ClickHouse-User": "recorder", "X-ClickHouse-Key": "ch-secret" },
      body: "SELECT count() AS n FROM relevance.served_searches WHERE shadow_model_id IS NOT NULL",
    });
    if (res.status === 200) {
      const next = Number((JSON.parse((await res.text()).trim() || '{"n":0}') as { n: string | number }).n);
      if (next > 0 && next === count) return count;
      count = next;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return count;
}
