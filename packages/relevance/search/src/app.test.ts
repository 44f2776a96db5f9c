import { clampScore, computeFeaturesV1, loadArtifact, modelKey } from "@relevance/core";
import { AuthThrottle } from "@shared/http";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createSearchApp, type SearchAppDeps } from "./app.ts";
import { RetrievalError } from "./ports.ts";
import {
  artifactText,
  FaultyKv,
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
const OTHER_KEY = "rk_key_of_account_b";
const MODEL = `${ACCOUNT}:products:v1`;
const CONFIG = { model_id: MODEL, title_field: "title", tags_field: "tags" };
const HITS = [
  { id: "1", title: "Red running shoes", tags: ["shoes", "running"] },
  { id: "2", title: "Blue running shorts", tags: ["apparel", "running"] },
  { id: "3", title: "Red socks", tags: "socks" },
  { id: "4", title: "Trail running shoes, red", tags: ["shoes"] },
];

let kv: FaultyKv;
let backend: FixedHitsBackend;
let log: ReturnType<typeof recordingLogger>;
let clock: ReturnType<typeof manualClock>;
let app: ReturnType<typeof createSearchApp>;

function build(overrides: Partial<SearchAppDeps> = {}): void {
  app = createSearchApp({ kv, retrieval: backend, log, now: clock.now, kvTimeoutMs: 20, ...overrides });
}

beforeEach(async () => {
  const inner = newKv();
  await putApiKey(inner, KEY, ACCOUNT);
  await putApiKey(inner, OTHER_KEY, OTHER);
  await putSettings(inner, ACCOUNT, "products", {
    searchable_attributes: ["title"],
    filterable_attributes: ["tags"],
    relevance_trigger_config: CONFIG,
  });
  await putSettings(inner, ACCOUNT, "plain", {});
  await putSettings(inner, OTHER, "secret", { relevance_trigger_config: CONFIG });
  await inner.put(modelKey(MODEL), artifactText(MODEL));
  kv = new FaultyKv(inner, () => false);
  backend = new FixedHitsBackend(HITS, 120);
  log = recordingLogger();
  clock = manualClock();
  build();
});

async function search(
  index: string,
  body: unknown,
  options: { key?: string | null; raw?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const key = options.key === undefined ? KEY : options.key;
  if (key !== null) headers["x-api-key"] = key;
  const res = await app.request(`/api/v1/indexes/${index}/search`, {
    method: "POST",
    headers,
    body: options.raw ?? JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

function expectedScore(query: string, hits: readonly Record<string, unknown>[], total: number): number {
  const loaded = loadArtifact(artifactText(MODEL));
  if (!loaded.ok) throw new Error("fixture does not load");
  const features = computeFeaturesV1({
    query,
    hits,
    estimatedTotalHits: total,
    titleField: "title",
    tagsField: "tags",
  });
  return clampScore(loaded.value.model.predictV1(features)) as number;
}

function expectError(res: { status: number; body: Record<string, unknown> }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({
    error: expect.objectContaining({ code, message: expect.any(String) }),
    // Meilisearch's fields, for its official clients.
    message: (res.body.error as { message: string }).message,
    code: expect.any(String),
    type: expect.stringMatching(/^(invalid_request|auth|internal|system)$/),
    link: `https://docs.meilisearch.com/errors#${res.body.code}`,
  });
  expect(JSON.stringify(res.body)).not.toMatch(/\bat .*\.ts:\d+|stack|sqlite|SqliteKv/i);
}

describe("POST /api/v1/indexes/{index}/search", () => {
  it("answers hits, query, limit, offset, estimatedTotalHits and processingTimeMs, without a score by default", async () => {
    const res = await search("products", { q: "red running shoes" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      "hits",
      "query",
      "limit",
      "offset",
      "estimatedTotalHits",
      "processingTimeMs",
    ]);
    expect(res.body).toMatchObject({
      hits: HITS,
      query: "red running shoes",
      limit: 20,
      offset: 0,
      estimatedTotalHits: 120,
    });
    expect(res.body.processingTimeMs).toEqual(expect.any(Number));
    expect(res.headers.get("x-relevance-model")).toBeNull();
    expect(backend.calls[0]?.query).toEqual({ q: "red running shoes", limit: 20, offset: 0 });
    expect(backend.calls[0]?.target).toEqual({
      systemAccountId: ACCOUNT,
      index: "products",
      primaryKey: "id",
      searchableAttributes: ["title"],
      filterableAttributes: ["tags"],
      // The settings the copy leaves out reach the backend as Meilisearch's defaults.
      displayedAttributes: ["*"],
      sortableAttributes: [],
      synonyms: {},
      stopWords: [],
      typoTolerance: {
        enabled: true,
        minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
        disableOnWords: [],
        disableOnAttributes: [],
      },
      rankingRules: ["words", "typo", "proximity", "attribute", "sort", "exactness"],
    });
  });

  it("passes limit, offset and filter to the search backend", async () => {
    const res = await search("products", { q: "red", limit: 2, offset: 1, filter: "tags = shoes" });
    expect(res.body).toMatchObject({ hits: HITS.slice(1, 3), limit: 2, offset: 1 });
    expect(backend.calls[0]?.query).toEqual({ q: "red", limit: 2, offset: 1, filter: "tags = shoes" });
  });

  it("scores with relevanceScore: true, a valid config and an artifact, and names the model in x-relevance-model", async () => {
    const res = await search("products", { q: "red running shoes", relevanceScore: true });
    expect(res.status).toBe(200);
    expect(res.body.relevanceScore).toBe(expectedScore("red running shoes", HITS, 120));
    expect(res.headers.get("x-relevance-model")).toBe(MODEL);
    expect(Object.keys(res.body).at(-1)).toBe("relevanceScore");
    expect(log.lines).toEqual([]);
  });

  it("scores the hits returned (the page), not the whole result set", async () => {
    const res = await search("products", { q: "red shoes", relevanceScore: true, limit: 2, offset: 2 });
    expect(res.body.relevanceScore).toBe(expectedScore("red shoes", HITS.slice(2, 4), 120));
  });

  it("does not score without relevanceScore: true", async () => {
    for (const body of [{ q: "red" }, { q: "red", relevanceScore: false }]) {
      const res = await search("products", body);
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty("relevanceScore");
      expect(res.headers.get("x-relevance-model")).toBeNull();
    }
  });

  it("does not score an index without a config, silently", async () => {
    const res = await search("plain", { q: "red", relevanceScore: true });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty("relevanceScore");
    expect(log.lines).toEqual([]);
  });

  describe("aliases", () => {
    it("reads the config from the alias record and retrieves from the index it points at", async () => {
      await putSettings(kv, ACCOUNT, "shop", {
        type: "alias",
        alias_of: "plain",
        relevance_trigger_config: CONFIG,
      });
      const res = await search("shop", { q: "red running shoes", relevanceScore: true });
      expect(res.status).toBe(200);
      expect(backend.calls[0]?.target.index).toBe("plain");
      expect(res.body.relevanceScore).toBe(expectedScore("red running shoes", HITS, 120));
      expect(res.headers.get("x-relevance-model")).toBe(MODEL);
    });

    it("does not score an alias without a config even if its index has one", async () => {
      await putSettings(kv, ACCOUNT, "shop", { type: "alias", alias_of: "products" });
      const res = await search("shop", { q: "red", relevanceScore: true });
      expect(backend.calls[0]?.target).toMatchObject({ index: "products", filterableAttributes: ["tags"] });
      expect(res.body).not.toHaveProperty("relevanceScore");
    });

    it("answers 404 when the alias points at a missing index", async () => {
      await putSettings(kv, ACCOUNT, "shop", { type: "alias", alias_of: "gone" });
      expectError(await search("shop", { q: "red" }), 404, "not_found");
      expect(backend.calls).toEqual([]);
    });
  });

  describe("bad input", () => {
    it("answers 400 to a body that is not JSON", async () => {
      expectError(await search("products", null, { raw: "{q: red" }), 400, "invalid_json");
      expectError(await search("products", null, { raw: "" }), 400, "invalid_json");
    });

    it.each([
      [{ q: 3 }, "q"],
      [{ q: ["red"] }, "q"],
      [{ q: "red", page: 0 }, "page"],
      [{ q: "red", hitsPerPage: 1001 }, "hitsPerPage"],
      [{ q: "red", limit: -1 }, "limit"],
      [{ q: "red", limit: 1001 }, "limit"],
      [{ q: "red", limit: 2.5 }, "limit"],
      [{ q: "red", limit: "10" }, "limit"],
      [{ q: "red", offset: -1 }, "offset"],
      [{ q: "red", offset: 0.5 }, "offset"],
      [{ q: "red", filter: [1] }, "filter[0]"],
      [{ q: "red", filter: { a: 1 } }, "filter"],
      [{ q: "red", relevanceScore: "yes" }, "relevanceScore"],
      [{ q: "red", relevanceScore: 1 }, "relevanceScore"],
      [{ q: "red", sort: ["price"] }, "sort[0]"],
      [{ q: "red", sort: "price:asc" }, "sort"],
      [{ q: "red", facets: Array.from({ length: 101 }, (_, i) => `f${i}`) }, "facets"],
      [{ q: "red", highlightPreTag: "<".repeat(65) }, "highlightPreTag"],
      [{ q: "red", matchingStrategy: "some" }, "matchingStrategy"],
      [{ q: "red", cropLength: 0 }, "cropLength"],
      [{ q: "red", attributesToRetrieve: ["x".repeat(257)] }, "attributesToRetrieve[0]"],
      [{ q: "red", showRankingScore: "yes" }, "showRankingScore"],
      [{ q: "red", unknownField: 1 }, "unknownField"],
    ])("answers 422 naming the field for %j", async (body, field) => {
      const res = await search("products", body);
      expectError(res, 422, "validation_failed");
      const error = res.body.error as { message: string; details: { path: string }[] };
      expect(error.details.map((d) => d.path)).toEqual([field]);
      expect(error.message).toContain(field);
      expect(backend.calls).toEqual([]);
    });

    it("accepts the limit bounds 0 and 1000", async () => {
      expect((await search("products", { q: "", limit: 0 })).status).toBe(200);
      expect((await search("products", { q: "", limit: 1000 })).status).toBe(200);
    });

    it("answers 422 to a body that is not an object, and lists every problem", async () => {
      expectError(await search("products", ["q"]), 422, "validation_failed");
      const res = await search("products", { q: 1, limit: -1, relevanceScore: "x" });
      const details = (res.body.error as { details: { path: string }[] }).details;
      expect(details.map((d) => d.path)).toEqual(["q", "limit", "relevanceScore"]);
    });

    it("answers 413 to a body above the limit", async () => {
      build({ maxBodyBytes: 100 });
      expectError(await search("products", { q: "x".repeat(200) }), 413, "payload_too_large");
    });
  });

  describe("authentication and unknown indexes", () => {
    it("answers 401 without x-api-key or with an unknown key", async () => {
      expectError(await search("products", { q: "red" }, { key: null }), 401, "unauthorized");
      expectError(await search("products", { q: "red" }, { key: "rk_nobody" }), 401, "unauthorized");
      expect(backend.calls).toEqual([]);
    });

    it("answers 404 for an unknown index and for another account's index alike", async () => {
      const missing = await search("nope", { q: "red" });
      const foreign = await search("secret", { q: "red" });
      expectError(missing, 404, "not_found");
      expect(foreign).toEqual({ ...missing, headers: foreign.headers });
      expect((await search("secret", { q: "red" }, { key: OTHER_KEY })).status).toBe(200);
      expectError(await search("bad%20name", { q: "red" }), 404, "not_found");
    });
  });

  describe("search backend failures", () => {
    it("answers 502 when the backend is unavailable, with a clear message and an error log", async () => {
      backend.failWith = new RetrievalError("unavailable", "Meilisearch answered 500 internal: boom");
      const res = await search("products", { q: "red" });
      expectError(res, 502, "backend_unavailable");
      expect(JSON.stringify(res.body)).not.toContain("Meilisearch");
      expect(log.at("error")[0]).toMatchObject({
        message: "search backend failed",
        fields: { account: ACCOUNT, index: "products", failure: "unavailable" },
      });
    });

    it("answers 504 when the backend is slow", async () => {
      backend.failWith = new RetrievalError("timeout", "Meilisearch did not answer within 2000 ms");
      expectError(await search("products", { q: "red" }), 504, "backend_timeout");
    });

    it("answers 422 naming the field when the backend refuses the request", async () => {
      backend.failWith = new RetrievalError(
        "invalid_request",
        "Attribute `color` is not filterable.",
        "filter",
      );
      const res = await search("products", { q: "red", filter: "color = red" });
      expectError(res, 422, "validation_failed");
      expect((res.body.error as { details: unknown }).details).toEqual([
        { path: "filter", message: "Attribute `color` is not filterable." },
      ]);
    });

    it("answers a generic 500 to anything unexpected and logs the cause", async () => {
      backend.failWith = new TypeError("cannot read properties of undefined (secret internals)");
      const res = await search("products", { q: "red" });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: { code: "internal", message: "internal error" },
        message: "internal error",
        code: "internal",
        type: "internal",
        link: "https://docs.meilisearch.com/errors#internal",
      });
      expect(log.at("error")[0]).toMatchObject({
        message: "request failed",
        fields: { method: "POST", error: "cannot read properties of undefined (secret internals)" },
      });
      expect(log.at("error")[0]?.fields.stack).toEqual(expect.any(String));
    });
  });

  describe("settings KV failures (503)", () => {
    it("answers 503 and logs an error when KV throws on the API key", async () => {
      kv = new FaultyKv(await copyOf(kv), (key) => key.startsWith("apikey:"));
      kv.mode = "throw";
      build();
      const res = await search("products", { q: "red" });
      expectError(res, 503, "settings_unavailable");
      expect(log.at("error")[0]).toMatchObject({
        message: "search settings could not be read",
        fields: { what: "API key", problem: "KV namespace unavailable (injected)" },
      });
    });

    it("answers 503 and logs an error when the settings read hangs past settingsTimeoutMs", async () => {
      kv = new FaultyKv(await copyOf(kv), (key) => key === `${ACCOUNT}-products`);
      kv.mode = "hang";
      build({ settingsTimeoutMs: 20 });
      const res = await search("products", { q: "red" });
      expectError(res, 503, "settings_unavailable");
      expect(log.at("error")[0]).toMatchObject({
        fields: {
          account: ACCOUNT,
          index: "products",
          what: "settings",
          problem: "the KV read timed out after 20 ms",
        },
      });
      expect(backend.calls).toEqual([]);
    });

    it("answers 500 and logs an error for a settings copy that is not JSON", async () => {
      await kv.put(`${ACCOUNT}-broken`, "{not json");
      const res = await search("broken", { q: "red" });
      expect(res.body).toEqual({
        error: { code: "internal", message: "internal error" },
        message: "internal error",
        code: "internal",
        type: "internal",
        link: "https://docs.meilisearch.com/errors#internal",
      });
      expect(log.at("error")[0]).toMatchObject({ message: "settings copy is malformed" });
    });
  });

  describe("scoring problems never fail the search", () => {
    it("warns once about a missing artifact, then serves an upload after the negative-cache window", async () => {
      const v2 = `${ACCOUNT}:products:v2`;
      await putSettings(kv, ACCOUNT, "products", { relevance_trigger_config: { ...CONFIG, model_id: v2 } });
      for (let i = 0; i < 25; i++) {
        const res = await search("products", { q: "red running shoes", relevanceScore: true });
        expect(res.status).toBe(200);
        expect(res.body).not.toHaveProperty("relevanceScore");
      }
      expect(log.lines).toEqual([
        {
          level: "warn",
          message: "relevance model artifact missing",
          fields: { account: ACCOUNT, index: "products", modelId: v2 },
        },
      ]);
      await kv.put(modelKey(v2), artifactText(v2));
      clock.advance(30_000);
      expect((await search("products", { q: "red", relevanceScore: true })).body).not.toHaveProperty(
        "relevanceScore",
      );
      clock.advance(30_000);
      const res = await search("products", { q: "red running shoes", relevanceScore: true });
      expect(res.body.relevanceScore).toBe(expectedScore("red running shoes", HITS, 120));
      expect(res.headers.get("x-relevance-model")).toBe(v2);
      expect(log.at("warn")).toHaveLength(1);
    });

    it("logs an error and answers 200 without a score for a malformed artifact", async () => {
      const v3 = `${ACCOUNT}:products:v3`;
      await kv.put(modelKey(v3), "[]");
      await putSettings(kv, ACCOUNT, "products", { relevance_trigger_config: { ...CONFIG, model_id: v3 } });
      const res = await search("products", { q: "red", relevanceScore: true });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty("relevanceScore");
      expect(log.at("error")).toEqual([
        expect.objectContaining({
          message: "relevance model artifact is malformed",
          fields: expect.objectContaining({ modelId: v3, problem: expect.any(String) }),
        }),
      ]);
    });

    it.each([
      ["an unknown sub-field", { ...CONFIG, extra: 1 }],
      ["a missing tags_field", { model_id: MODEL, title_field: "title" }],
      ["the camelCase form", { modelId: MODEL, titleField: "title", tagsField: null }],
      ["a string", "acct:products:v1"],
    ])("logs an error and answers 200 without a score for a config with %s", async (_, config) => {
      await putSettings(kv, ACCOUNT, "products", { relevance_trigger_config: config });
      const res = await search("products", { q: "red", relevanceScore: true });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty("relevanceScore");
      expect(log.at("error")).toEqual([
        expect.objectContaining({ message: "relevance trigger config is malformed" }),
      ]);
    });

    it.each(["throw", "hang"] as const)(
      "answers 200 without a score and logs an error when the artifact read %ss",
      async (mode) => {
        kv = new FaultyKv(await copyOf(kv), (key) => key.startsWith("relevance_model:"));
        kv.mode = mode;
        build();
        // The answer comes within 1,000 ms of vitest's fake clock: the artifact read is raced against
        // the model cache's deadline, and nothing else waits on time. The read has begun (and its
        // deadline is set) before the clock moves.
        vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
        let res: Awaited<ReturnType<typeof search>>;
        try {
          const answer = search("products", { q: "red", relevanceScore: true });
          while (kv.reads.length === 0) await new Promise((next) => setImmediate(next));
          await vi.advanceTimersByTimeAsync(1000);
          res = await answer;
        } finally {
          vi.useRealTimers();
        }
        expect(res.status).toBe(200);
        expect(res.body).not.toHaveProperty("relevanceScore");
        expect(log.at("error")).toEqual([
          expect.objectContaining({
            message: "relevance model artifact could not be read",
            fields: expect.objectContaining({ account: ACCOUNT, index: "products", modelId: MODEL }),
          }),
        ]);
      },
    );

    it("survives an injected scorer that throws", async () => {
      build({
        scorer: {
          score: () => {
            throw new Error("scorer bug");
          },
        },
      });
      const res = await search("products", { q: "red", relevanceScore: true });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty("relevanceScore");
      expect(log.at("error")[0]).toMatchObject({ message: "relevance scoring failed" });
    });
  });

  it("answers 404 in the error format for other routes", async () => {
    const res = await app.request("/api/v1/indexes/products/searches", { method: "POST" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "not_found", message: "no such route" } });
  });

  it("answers 405 with Allow: GET, HEAD, POST in the error format to another method on the search path", async () => {
    const res = await app.request("/api/v1/indexes/products/search", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(await res.json()).toMatchObject({ error: { code: "method_not_allowed" } });
  });

  describe("failed-authentication throttle", () => {
    const from = (address: string) => ({ "cf-connecting-ip": address });

    async function searchFrom(address: string, key: string) {
      const res = await app.request("/api/v1/indexes/products/search", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key, ...from(address) },
        body: JSON.stringify({ q: "red" }),
      });
      return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
    }

    it("answers 429 with Retry-After after 20 wrong keys from one address, and searches nothing", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await searchFrom("203.0.113.7", `rk_guess_${i}`)).status);
      expect(statuses).toEqual(Array(20).fill(401));
      const refused = await searchFrom("203.0.113.7", "rk_guess_20");
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: { code: "too_many_requests" } });
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
      // A right key that never worked from that address is refused like a guess until the window ends.
      expect((await searchFrom("203.0.113.7", KEY)).status).toBe(429);
      expect(backend.calls).toEqual([]);
    });

    it("still answers a correct key from another address, and the first address after the window", async () => {
      kv = new FaultyKv(await copyOf(kv), (key) => key.startsWith("apikey:"));
      build();
      for (let i = 0; i < 25; i++) await searchFrom("203.0.113.7", `rk_guess_${i}`);
      expect((await searchFrom("203.0.113.7", "rk_guess_x")).status).toBe(429);
      expect((await searchFrom("198.51.100.2", KEY)).status).toBe(200);
      clock.advance(60_000);
      expect((await searchFrom("203.0.113.7", KEY)).status).toBe(200);
    });

    it("keeps answering a key that worked from an address while guesses from there are refused", async () => {
      expect((await searchFrom("203.0.113.8", KEY)).status).toBe(200);
      for (let i = 0; i < 25; i++) await searchFrom("203.0.113.8", `rk_guess_${i}`);
      expect((await searchFrom("203.0.113.8", "rk_guess_x")).status).toBe(429);
      expect((await searchFrom("203.0.113.8", KEY)).status).toBe(200);
    });

    it("does not count a missing x-api-key (no guess)", async () => {
      for (let i = 0; i < 40; i++) {
        const res = await app.request("/api/v1/indexes/products/search", {
          method: "POST",
          headers: from("203.0.113.9"),
          body: JSON.stringify({ q: "red" }),
        });
        expect(res.status).toBe(401);
      }
      expect((await searchFrom("203.0.113.9", KEY)).status).toBe(200);
    });

    it("uses the injected throttle and client address", async () => {
      const throttle = new AuthThrottle({ maxFailuresPerAddress: 2, now: clock.now });
      build({ authThrottle: throttle, clientAddress: () => "everyone" });
      await searchFrom("a", "rk_wrong_1");
      await searchFrom("b", "rk_wrong_2");
      expect((await searchFrom("c", KEY)).status).toBe(429);
      expect(throttle.size).toBeGreaterThan(0);
    });
  });
});

/** A fresh SqliteKv with the same content (FaultyKv wraps one Kv; tests re-wrap with other faults). */
async function copyOf(source: FaultyKv) {
  const target = newKv();
  for (const key of await source.list("")) {
    const value = await source.get(key);
    if (value !== null) await target.put(key, value);
  }
  return target;
}
