import { clampScore, loadArtifact } from "@relevance/core";
import type { ClickHouseHttpChdbDouble } from "@relevance/outcomes/test-support/clickhouse-http";
import { artifactText, putApiKey, putSettings } from "@relevance/search/test-support";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OutcomesWorker, startOutcomesWorker } from "./test-support.ts";

const ACCOUNT = "acct_0123456789ab";
const API_KEY = "rk_worker_shadow_key";
const SERVING = `${ACCOUNT}:products:v1`;
const SHADOW = `${ACCOUNT}:products:v2`;
const SHADOW_TEXT = artifactText(SHADOW, 2);

let mf: Miniflare;
let clickhouse: ClickHouseHttpChdbDouble;
let worker: OutcomesWorker;

beforeAll(async () => {
  worker = await startOutcomesWorker("worker-shadow-");
  ({ mf, clickhouse } = worker);
  const kv = worker.kv;
  await putApiKey(kv, API_KEY, ACCOUNT);
  const trigger = { model_id: SERVING, title_field: "title", tags_field: "tags" };
  await putSettings(kv, ACCOUNT, "products", {
    relevance_trigger_config: trigger,
    relevance_shadow_config: { model_id: SHADOW, sample_rate: 1 },
  });
  await putSettings(kv, ACCOUNT, "unshadowed", {
    relevance_trigger_config: trigger,
    relevance_shadow_config: { model_id: `${ACCOUNT}:products:v9`, sample_rate: 1 },
  });
  await kv.put(`relevance_model:${SERVING}`, artifactText(SERVING));
  await kv.put(`relevance_model:${SHADOW}`, SHADOW_TEXT);
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await worker?.close();
});

async function until<T>(read: () => Promise<T>, ready: (v: T) => boolean): Promise<T> {
  let last = await read();
  for (let i = 0; i < 100 && !ready(last); i++) {
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}

async function rows(where: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${clickhouse.url}/?default_format=JSONEachRow`, {
    method: "POST",
    headers: { "X-ClickHouse-User": "recorder", "X-ClickHouse-Key": "ch-secret" },
    body: `SELECT * FROM relevance.served_searches WHERE ${where}`,
  });
  if (res.status !== 200) return [];
  return (await res.text())
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function search(index: string): Promise<{ uid: string; text: string; model: string | null }> {
  const res = await mf.dispatchFetch(`http://worker/api/v1/indexes/${index}/search`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": API_KEY },
    body: JSON.stringify({ q: "red shoes", relevanceScore: true }),
  });
  const text = await res.text();
  const uid = (JSON.parse(text) as { metadata: { queryUid: string } }).metadata.queryUid;
  return { uid, text, model: res.headers.get("x-relevance-model") };
}

describe("shadow scoring in workerd", () => {
  it("records the shadow model's score beside the served one; the answer names only the serving model", async () => {
    const { uid, text, model } = await search("products");
    expect(model).toBe(SERVING);
    expect(text).not.toContain("shadow");
    expect(text).not.toContain(SHADOW);
    const stored = await until(
      () => rows(`query_uid = '${uid}'`),
      (r) => r.length === 1,
    );
    expect(stored).toHaveLength(1);
    const row = stored[0] as Record<string, unknown>;
    expect(row.model_id).toBe(SERVING);
    expect(row.shadow_model_id).toBe(SHADOW);
    const loaded = loadArtifact(SHADOW_TEXT, { checkGolden: true });
    if (!loaded.ok) throw new Error("shadow artifact does not load");
    const expected = clampScore(loaded.value.model.predictV1(Float64Array.from(row.features as number[])));
    expect(row.shadow_score).toBe(expected);
  }, 60_000);

  it("records the search without shadow fields when the shadow artifact is missing", async () => {
    const { uid } = await search("unshadowed");
    const stored = await until(
      () => rows(`query_uid = '${uid}'`),
      (r) => r.length === 1,
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ model_id: SERVING, shadow_model_id: null, shadow_score: null });
  }, 60_000);
});
