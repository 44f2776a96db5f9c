// The search app's side of outcomes: the queryUid and metadata of every answer, the scored
// searches handed to the recorder off the response path, and POST /api/v1/events.
import { FEATURE_SET_V1, modelKey, tokenize } from "@relevance/core";
import {
  hashUserId,
  type OutcomeEvent,
  QUERY_UID,
  queryUidTime,
  Recorder,
  type ServedSearch,
  ServedSearchSchema,
} from "@relevance/outcomes";
import { CORS_ALLOW_HEADERS } from "@shared/http";
import { beforeEach, describe, expect, it } from "vitest";
import { createSearchApp, type SearchAppDeps } from "./app.ts";
import { MAX_EVENT_BODY_BYTES, MAX_EVENT_POSITION } from "./events.ts";
import {
  artifactText,
  FixedHitsBackend,
  manualClock,
  newKv,
  putApiKey,
  putSettings,
  recordingLogger,
} from "./test-support/harness.ts";

const ACCOUNT = "acct_aaaaaaaaaaaa";
const OTHER = "acct_bbbbbbbbbbbb";
const KEY = "rk_key_of_account_a";
const SCOPED = "rk_scoped_to_products";
const MODEL = `${ACCOUNT}:products:v1`;
const CONFIG = { model_id: MODEL, title_field: "title", tags_field: "tags" };
const HITS = [
  { sku: "1", title: "Red running shoes", tags: ["shoes"] },
  { sku: 2, title: "Blue running shorts", tags: ["apparel"] },
  { title: "No key", tags: [] },
];
const UID = "019a01b7-a1c2-7782-a410-bb1274c81393";

let kv: ReturnType<typeof newKv>;
let clock: ReturnType<typeof manualClock>;
let log: ReturnType<typeof recordingLogger>;
let stored: ServedSearch[];
let events: OutcomeEvent[];
let recorder: Recorder;
let app: ReturnType<typeof createSearchApp>;

function build(overrides: Partial<SearchAppDeps> = {}): void {
  app = createSearchApp({
    kv,
    retrieval: new FixedHitsBackend(HITS, 40),
    log,
    now: clock.now,
    kvTimeoutMs: 50,
    recorder,
    recordEvents: async (rows) => {
      events.push(...rows);
    },
    ...overrides,
  });
}

beforeEach(async () => {
  kv = newKv();
  await putApiKey(kv, KEY, ACCOUNT);
  await putApiKey(kv, SCOPED, ACCOUNT, { actions: ["search"], indexes: ["products"] });
  await putApiKey(kv, "rk_other", OTHER);
  await putSettings(kv, ACCOUNT, "products", { primary_key: "sku", relevance_trigger_config: CONFIG });
  await putSettings(kv, ACCOUNT, "catalog", {
    type: "alias",
    alias_of: "products",
    relevance_trigger_config: CONFIG,
  });
  await putSettings(kv, ACCOUNT, "halved", {
    primary_key: "sku",
    relevance_trigger_config: CONFIG,
    relevance_recording_config: { sample_rate: 0 },
  });
  await kv.put(modelKey(MODEL), artifactText(MODEL));
  clock = manualClock();
  log = recordingLogger();
  stored = [];
  events = [];
  recorder = new Recorder({
    sink: async (rows) => {
      stored.push(...rows);
    },
    now: clock.now,
    random: () => 0.5,
    log,
    schedule: () => () => {}, // batches leave only on flush: the test decides when
  });
  build();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field.
type Json = Record<string, any>;

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text === "" ? null : JSON.parse(text)) as Json };
}
const search = (index: string, body: unknown, headers?: Record<string, string>) =>
  post(`/api/v1/indexes/${index}/search`, body, headers);

/** Lets the recording promise (the user hash, then the offer) run. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
};

describe("queryUid and metadata", () => {
  it("answers metadata {queryUid, indexUid, primaryKey} under Meili-Include-Metadata: true, without a score too", async () => {
    const res = await search("products", { q: "red" }, { "Meili-Include-Metadata": "true" });
    expect(res.body.metadata).toEqual({
      queryUid: expect.stringMatching(QUERY_UID),
      indexUid: "products",
      primaryKey: "sku",
    });
    expect(queryUidTime(res.body.metadata.queryUid)).toBe(clock.now());
  });

  it("answers no metadata for an unscored search without the header", async () => {
    const res = await search("products", { q: "red" });
    expect(res.body).not.toHaveProperty("metadata");
  });

  it("always answers metadata with a relevanceScore, header or not, each search its own uid", async () => {
    const a = await search("products", { q: "red", relevanceScore: true });
    const b = await search("products", { q: "red", relevanceScore: true });
    expect(typeof a.body.relevanceScore).toBe("number");
    expect(a.body.metadata.queryUid).toMatch(QUERY_UID);
    expect(b.body.metadata.queryUid).not.toBe(a.body.metadata.queryUid);
  });

  it("names the alias the request searched as indexUid (what the front end sends back in events)", async () => {
    const res = await search("catalog", { q: "red" }, { "meili-include-metadata": "true" });
    expect(res.body.metadata).toMatchObject({ indexUid: "catalog", primaryKey: "sku" });
  });

  it("answers metadata in each multi-search result, and on the GET search", async () => {
    const res = await post(
      "/api/v1/multi-search",
      {
        queries: [
          { indexUid: "products", q: "red" },
          { indexUid: "catalog", q: "blue" },
        ],
      },
      { "Meili-Include-Metadata": "true" },
    );
    const metas = res.body.results.map((r: Json) => r.metadata);
    expect(metas.map((m: Json) => m.indexUid)).toEqual(["products", "catalog"]);
    expect(metas[0].queryUid).not.toBe(metas[1].queryUid);
    const got = await app.request("/api/v1/indexes/products/search?q=red", {
      headers: { "x-api-key": KEY, "Meili-Include-Metadata": "true" },
    });
    expect(((await got.json()) as Json).metadata.indexUid).toBe("products");
  });

  it("lets a page send Meili-Include-Metadata and X-MS-USER-ID (the preflight allows them)", async () => {
    const res = await app.request("/api/v1/indexes/products/search", {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "meili-include-metadata, x-ms-user-id",
      },
    });
    expect(res.status).toBe(204);
    const allowed = res.headers.get("access-control-allow-headers") ?? "";
    expect(allowed).toContain("meili-include-metadata");
    expect(allowed).toContain("x-ms-user-id");
    expect(CORS_ALLOW_HEADERS).toContain("meili-include-metadata");
  });
});

describe("recording scored searches", () => {
  it("records a scored search as served: uid, model, score, features, hit keys, query key, user hash", async () => {
    const res = await search(
      "catalog",
      { q: "  Red RUNNING shoes ", relevanceScore: true },
      { "X-MS-USER-ID": "shopper-7" },
    );
    expect(stored).toEqual([]); // nothing on the response path
    await settle();
    await recorder.flush();
    expect(stored).toHaveLength(1);
    const row = stored[0] as ServedSearch;
    expect(ServedSearchSchema.parse(row)).toEqual(row);
    expect(row).toMatchObject({
      queryUid: res.body.metadata.queryUid,
      account: ACCOUNT,
      index: "catalog",
      indexUid: "products",
      modelId: MODEL,
      score: res.body.relevanceScore,
      query: "  Red RUNNING shoes ",
      queryKey: tokenize("Red RUNNING shoes").join(" "),
      hitIds: ["1", "2", ""],
      estimatedTotalHits: 40,
      servedAt: clock.now(),
      userHash: await hashUserId(ACCOUNT, "shopper-7"),
    });
    expect(row.features).toHaveLength(FEATURE_SET_V1.length);
    expect(JSON.stringify(row)).not.toContain("shopper-7");
  });

  it("records nothing for a search without a score, and follows the index's sample rate", async () => {
    await search("products", { q: "red" });
    await search("halved", { q: "red", relevanceScore: true });
    await settle();
    await recorder.flush();
    expect(stored).toEqual([]);
    expect(recorder.stats()).toMatchObject({ offered: 1, sampledOut: 1 });
  });

  it("records each scored query of a multi-search", async () => {
    await post("/api/v1/multi-search", {
      queries: [
        { indexUid: "products", q: "red", relevanceScore: true },
        { indexUid: "products", q: "blue" },
        { indexUid: "catalog", q: "shoes", relevanceScore: true },
      ],
    });
    await settle();
    await recorder.flush();
    expect(stored.map((r) => [r.index, r.query])).toEqual([
      ["products", "red"],
      ["catalog", "shoes"],
    ]);
  });

  it("answers the search when the store hangs or throws: recording never fails nor waits", async () => {
    for (const sink of [() => new Promise<void>(() => {}), async () => Promise.reject(new Error("down"))]) {
      recorder = new Recorder({
        sink,
        now: clock.now,
        log,
        batchSize: 1,
        schedule: (fn) => {
          fn();
          return () => {};
        },
      });
      build();
      const res = await search("products", { q: "red", relevanceScore: true });
      expect(res.status).toBe(200);
      expect(typeof res.body.relevanceScore).toBe("number");
    }
    await settle();
    expect(recorder.stats().sinkFailed).toBe(1);
  });

  it("answers the search when the recorder itself throws", async () => {
    build({
      recorder: {
        sample: () => true,
        admit: () => {
          throw new Error("broken recorder");
        },
        flush: async () => {},
      },
    });
    const res = await search("products", { q: "red", relevanceScore: true });
    expect(res.status).toBe(200);
    await settle();
    expect(log.at("error").map((l) => l.message)).toContain("a served search could not be recorded");
  });
});

const CLICK = {
  eventType: "click",
  eventName: "Search Result Clicked",
  indexUid: "products",
  userId: "shopper-7",
  queryUid: UID,
  objectId: "1",
  objectName: "Red running shoes",
  position: 0,
};

describe("POST /api/v1/events", () => {
  it("stores a click as Meilisearch takes it and answers 201, the user id only hashed", async () => {
    const res = await post("/api/v1/events", CLICK);
    expect(res.status).toBe(201);
    expect(events).toEqual([
      {
        account: ACCOUNT,
        index: "products",
        queryUid: UID,
        eventType: "click",
        eventName: "Search Result Clicked",
        objectId: "1",
        objectName: "Red running shoes",
        position: 0,
        userHash: await hashUserId(ACCOUNT, "shopper-7"),
        receivedAt: clock.now(),
      },
    ]);
    expect(JSON.stringify(log.lines)).not.toContain("shopper-7");
  });

  it("takes the user from X-MS-USER-ID, and the optional fields as null", async () => {
    const res = await post(
      "/api/v1/events",
      { eventType: "conversion", eventName: "Purchased", indexUid: "products" },
      { "X-MS-USER-ID": "shopper-8" },
    );
    expect(res.status).toBe(201);
    expect(events[0]).toMatchObject({
      eventType: "conversion",
      queryUid: null,
      objectId: null,
      position: null,
      userHash: await hashUserId(ACCOUNT, "shopper-8"),
    });
  });

  it("refuses an event without a user, or with every bad field named at once (422), storing nothing", async () => {
    const { userId: _, ...anonymous } = CLICK;
    const none = await post("/api/v1/events", anonymous);
    expect(none.status).toBe(422);
    expect(none.body.error.details).toEqual([
      { path: "userId", message: expect.stringContaining("required") },
    ]);
    const bad = await post("/api/v1/events", {
      ...CLICK,
      eventType: "view",
      queryUid: "not-a-uid",
      position: MAX_EVENT_POSITION + 1,
      eventName: "x".repeat(257),
      extra: 1,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: Json) => d.path).sort()).toEqual(
      ["eventName", "eventType", "extra", "position", "queryUid"].sort(),
    );
    expect(bad.body.code).toBeTypeOf("string"); // Meilisearch's fields beside ours
    expect(events).toEqual([]);
  });

  it("refuses a body over its byte limit (413) and a user id header over its bound (422)", async () => {
    const big = await post("/api/v1/events", { ...CLICK, objectName: "x".repeat(MAX_EVENT_BODY_BYTES) });
    expect(big.status).toBe(413);
    const header = await post("/api/v1/events", CLICK, { "X-MS-USER-ID": "u".repeat(257) });
    expect(header.status).toBe(422);
    expect(header.body.error.details[0].path).toBe("X-MS-USER-ID");
    expect(events).toEqual([]);
  });

  it("refuses a key not allowed the index (403) and a key of another account cannot reach this one's", async () => {
    const res = await post("/api/v1/events", { ...CLICK, indexUid: "catalog" }, { "x-api-key": SCOPED });
    expect(res.status).toBe(403);
    const other = await post("/api/v1/events", CLICK, { "x-api-key": "rk_other" });
    expect(other.status).toBe(201);
    expect(events[0]?.account).toBe(OTHER); // stored under the sender's account: never joined to ours
  });

  it("answers 429 with Retry-After over the events per key per second, and takes them again the next second", async () => {
    build({ eventsPerKeyPerSecond: 2 });
    expect((await post("/api/v1/events", CLICK)).status).toBe(201);
    expect((await post("/api/v1/events", CLICK)).status).toBe(201);
    const over = await post("/api/v1/events", CLICK);
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBe("1");
    expect((await post("/api/v1/events", CLICK, { "x-api-key": SCOPED })).status).toBe(201);
    clock.advance(1000);
    expect((await post("/api/v1/events", CLICK)).status).toBe(201);
    expect(events).toHaveLength(4);
  });

  it("answers 503 when the store fails, claiming nothing, and logs no user id", async () => {
    build({ recordEvents: async () => Promise.reject(new Error("store down")) });
    const res = await post("/api/v1/events", CLICK);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("events_unavailable");
    expect(JSON.stringify(log.lines)).not.toContain("shopper-7");
  });

  it("answers 404 where no events store is configured", async () => {
    build({ recordEvents: undefined });
    expect((await post("/api/v1/events", CLICK)).status).toBe(404);
  });

  it("is callable from a page: preflight allowed, the answer readable by the origin", async () => {
    const res = await post("/api/v1/events", CLICK, { origin: "https://shop.example" });
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example");
  });
});
