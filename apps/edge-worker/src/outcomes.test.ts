import { QUERY_UID } from "@relevance/outcomes";
import type { ClickHouseHttpChdbDouble } from "@relevance/outcomes/test-support/clickhouse-http";
import { MASTER_KEY, type MeilisearchDouble } from "@relevance/search/meilisearch/test-support";
import { artifactText, putApiKey, putSettings } from "@relevance/search/test-support";
import { Meilisearch } from "meilisearch";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, type OutcomesWorker, startOutcomesWorker, startWorker } from "./test-support.ts";

const ACCOUNT = "acct_0123456789ab";
const API_KEY = "rk_worker_outcomes_key";
const MODEL = `${ACCOUNT}:products:v1`;

let mf: Miniflare;
let meili: MeilisearchDouble;
let clickhouse: ClickHouseHttpChdbDouble;
let worker: OutcomesWorker;
let origin: string;

beforeAll(async () => {
  worker = await startOutcomesWorker("worker-outcomes-");
  ({ mf, meili, clickhouse } = worker);
  const kv = worker.kv;
  await putApiKey(kv, API_KEY, ACCOUNT);
  const config = { model_id: MODEL, title_field: "title", tags_field: "tags" };
  await putSettings(kv, ACCOUNT, "products", { relevance_trigger_config: config });
  await putSettings(kv, ACCOUNT, "catalog", {
    type: "alias",
    alias_of: "products",
    relevance_trigger_config: config,
  });
  await kv.put(`relevance_model:${MODEL}`, artifactText(MODEL));
  origin = (await mf.ready).origin;
}, 60_000);

afterAll(async () => {
  await worker?.close();
});

/** Reads ClickHouse (through the double) until `ready` holds: the queue delivers in its own time. */
async function until<T>(read: () => Promise<T>, ready: (v: T) => boolean): Promise<T> {
  let last = await read();
  for (let i = 0; i < 100 && !ready(last); i++) {
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}

async function rows(table: string, where: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${clickhouse.url}/?default_format=JSONEachRow`, {
    method: "POST",
    headers: { "X-ClickHouse-User": "recorder", "X-ClickHouse-Key": "ch-secret" },
    body: `SELECT * FROM relevance.${table} WHERE ${where}`,
  });
  if (res.status !== 200) return []; // the table is made on the consumer's first write
  const text = await res.text();
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("recording through the OUTCOMES queue (Miniflare's queue, ClickHouse HTTP double over chDB)", () => {
  it("records a scored search and the click sent for it, both stored by the queue's consumer", async () => {
    // The official client, asking for metadata as Meilisearch's docs say (the header).
    const client = new Meilisearch({ host: `${origin}/api/v1`, apiKey: API_KEY });
    const answer = (await client.index("catalog").search("red shoes", { relevanceScore: true } as never, {
      headers: { "Meili-Include-Metadata": "true", "X-MS-USER-ID": "shopper-1" },
    })) as unknown as {
      metadata: { queryUid: string; indexUid: string; primaryKey: string };
      relevanceScore: number;
    };
    expect(answer.metadata).toMatchObject({ indexUid: "catalog", primaryKey: "id" });
    expect(answer.metadata.queryUid).toMatch(QUERY_UID);
    const uid = answer.metadata.queryUid;

    const click = await fetch(`${origin}/api/v1/events`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${API_KEY}`,
        "X-MS-USER-ID": "shopper-1",
      },
      body: JSON.stringify({
        eventType: "click",
        eventName: "Search Result Clicked",
        indexUid: "catalog",
        queryUid: uid,
        objectId: "1",
        position: 0,
      }),
    });
    expect(click.status).toBe(201);

    const searches = await until(
      () => rows("served_searches", `query_uid = '${uid}'`),
      (r) => r.length === 1,
    );
    expect(searches).toHaveLength(1);
    expect(searches[0]).toMatchObject({
      account: ACCOUNT,
      index_name: "catalog",
      index_uid: "products",
      model_id: MODEL,
      score: answer.relevanceScore,
      query: "red shoes",
    });
    expect(searches[0]?.features).toHaveLength(9);
    expect(String(searches[0]?.user_hash)).toMatch(/^[0-9a-f]{64}$/);
    const events = await until(
      () => rows("outcome_events", `query_uid = '${uid}'`),
      (r) => r.length === 1,
    );
    expect(events[0]).toMatchObject({
      account: ACCOUNT,
      index_name: "catalog",
      event_type: "click",
      object_id: "1",
    });
    expect(JSON.stringify(events)).not.toContain("shopper-1");
  }, 60_000);

  it("answers metadata in each multi-search result and records each scored query", async () => {
    const res = await mf.dispatchFetch("http://worker/api/v1/multi-search", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": API_KEY, "Meili-Include-Metadata": "true" },
      body: JSON.stringify({
        queries: [
          { indexUid: "products", q: "blue socks", relevanceScore: true },
          { indexUid: "catalog", q: "blue socks" },
        ],
      }),
    });
    const body = (await res.json()) as { results: { metadata: { queryUid: string; indexUid: string } }[] };
    expect(body.results.map((r) => r.metadata.indexUid)).toEqual(["products", "catalog"]);
    const [scored, unscored] = body.results.map((r) => r.metadata.queryUid);
    const stored = await until(
      () => rows("served_searches", `query_uid IN ('${scored}', '${unscored}')`),
      (r) => r.length >= 1,
    );
    expect(stored.map((r) => r.query_uid)).toEqual([scored]); // the unscored query is not recorded
  }, 60_000);

  it("answers a search with metadata also when nothing asked for it but the score", async () => {
    const res = await mf.dispatchFetch("http://worker/api/v1/indexes/products/search", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": API_KEY },
      body: JSON.stringify({ q: "red", relevanceScore: true }),
    });
    const body = (await res.json()) as { metadata?: { queryUid: string } };
    expect(body.metadata?.queryUid).toMatch(QUERY_UID);
  });
});

describe("a Worker deployed without the OUTCOMES queue (recording off)", () => {
  it("still answers queryUids, records nothing, answers events 404 and needs no ClickHouse variable", async () => {
    const started = await startWorker(await bundleWorker(), {
      MEILISEARCH_URL: meili.url,
      MEILISEARCH_API_KEY: MASTER_KEY,
      KV_TIMEOUT_MS: "1000",
    });
    try {
      await putApiKey(started.kv, API_KEY, ACCOUNT);
      await putSettings(started.kv, ACCOUNT, "products", {});
      const search = await started.mf.dispatchFetch("http://worker/api/v1/indexes/products/search", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": API_KEY,
          "Meili-Include-Metadata": "true",
        },
        body: JSON.stringify({ q: "red" }),
      });
      expect(search.status).toBe(200);
      expect(((await search.json()) as { metadata: { queryUid: string } }).metadata.queryUid).toMatch(
        QUERY_UID,
      );
      const event = await started.mf.dispatchFetch("http://worker/api/v1/events", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": API_KEY },
        body: JSON.stringify({ eventType: "click", eventName: "c", indexUid: "products", userId: "u" }),
      });
      expect(event.status).toBe(404);
    } finally {
      await started.mf.dispose();
    }
  }, 60_000);
});
