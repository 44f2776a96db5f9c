import { canaryModelFor } from "@relevance/outcomes";
import type { ClickHouseHttpChdbDouble } from "@relevance/outcomes/test-support/clickhouse-http";
import { artifactText, putApiKey, putSettings } from "@relevance/search/test-support";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OutcomesWorker, startOutcomesWorker } from "./test-support.ts";

const ACCOUNT = "acct_0123456789ab";
const API_KEY = "rk_worker_canary_key";
const SERVING = `${ACCOUNT}:products:v1`;
const CANDIDATE = `${ACCOUNT}:products:v2`;
const SHADOW = `${ACCOUNT}:products:v3`;
const CANARY = { model_id: CANDIDATE, percent: 30 };
const SHOPPERS = 1000;

let mf: Miniflare;
let clickhouse: ClickHouseHttpChdbDouble;
let worker: OutcomesWorker;

beforeAll(async () => {
  worker = await startOutcomesWorker("worker-canary-");
  ({ mf, clickhouse } = worker);
  const kv = worker.kv;
  await putApiKey(kv, API_KEY, ACCOUNT);
  const trigger = { model_id: SERVING, title_field: "title", tags_field: "tags" };
  await putSettings(kv, ACCOUNT, "products", {
    relevance_trigger_config: trigger,
    relevance_canary_config: CANARY,
    relevance_shadow_config: { model_id: SHADOW, sample_rate: 1 },
  });
  await kv.put(`relevance_model:${SERVING}`, artifactText(SERVING));
  await kv.put(`relevance_model:${CANDIDATE}`, artifactText(CANDIDATE, -2));
  await kv.put(`relevance_model:${SHADOW}`, artifactText(SHADOW, 2));
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

async function search(userId?: string): Promise<{ uid: string; text: string; model: string | null }> {
  const res = await mf.dispatchFetch("http://worker/api/v1/indexes/products/search", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": API_KEY,
      ...(userId === undefined ? {} : { "x-ms-user-id": userId }),
    },
    body: JSON.stringify({ q: "red shoes", relevanceScore: true }),
  });
  const text = await res.text();
  const uid = (JSON.parse(text) as { metadata: { queryUid: string } }).metadata.queryUid;
  return { uid, text, model: res.headers.get("x-relevance-model") };
}

describe("the canary in workerd", () => {
  it("chooses each shopper's model exactly as Node's bucket does, the same on every search, 30 % ± 2 of 1,000", async () => {
    let candidate = 0;
    for (let i = 0; i < SHOPPERS; i++) {
      const user = `shopper-${i}`;
      const expected = canaryModelFor(CANARY, ACCOUNT, "products", user) ?? SERVING;
      const first = await search(user);
      expect(first.model, user).toBe(expected);
      if (i < 20) expect((await search(user)).model, user).toBe(expected);
      if (expected === CANDIDATE) candidate++;
    }
    // The share the percentage asks for, within ±2 %, served by workerd.
    expect(Math.abs((candidate / SHOPPERS) * 100 - CANARY.percent)).toBeLessThanOrEqual(2);
    expect((await search()).model).toBe(SERVING);
  }, 120_000);

  it("records the canary-served search with the candidate as modelId and no shadow score", async () => {
    let user = "";
    for (let i = 0; user === ""; i++)
      if (canaryModelFor(CANARY, ACCOUNT, "products", `u${i}`)) user = `u${i}`;
    const canary = await search(user);
    expect(canary.model).toBe(CANDIDATE);
    const serving = await search();
    expect(serving.model).toBe(SERVING);
    const stored = await until(
      () => rows(`query_uid IN ('${canary.uid}', '${serving.uid}') ORDER BY served_at`),
      (r) => r.length === 2,
    );
    const byUid = new Map(stored.map((r) => [r.query_uid, r]));
    expect(byUid.get(canary.uid)).toMatchObject({ model_id: CANDIDATE, shadow_model_id: null });
    expect(byUid.get(serving.uid)).toMatchObject({ model_id: SERVING, shadow_model_id: SHADOW });
  }, 60_000);
});
