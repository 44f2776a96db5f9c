// The search benchmark's Worker series: the production search path (the esbuild bundle of
// apps/edge-worker inside real workerd, through Miniflare) with recording on, for an index whose
// shadow model scores every search after the answer (in waitUntil), alternating with an index without
// one. The answers come from the Meilisearch double (Meilisearch itself cannot run here) and the
// recorded rows go through the OUTCOMES queue into the chDB-backed ClickHouse HTTP double, as in the
// Worker's tests; what differs between the two series is only the shadow model.
import { startOutcomesWorker } from "../../apps/edge-worker/src/test-support.ts";
import { putApiKey, putSettings } from "../../packages/relevance/search/src/test-support/harness.ts";

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
  const worker = await startOutcomesWorker("bench-worker-", { quiet: true });
  const { mf, kv, clickhouse } = worker;
  try {
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
    await worker.close();
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
