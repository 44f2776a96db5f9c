// The search proxy checks a key from its KV copy alone: the action, the index (each query's in a
// multi-search), the expiry on the injected clock, and the account's CORS origins for a page.
import { apiKeyCopyKey, apiKeyHash } from "@relevance/settings";
import { beforeEach, describe, expect, it } from "vitest";
import { createSearchApp } from "./app.ts";
import {
  FixedHitsBackend,
  manualClock,
  newKv,
  putApiKey,
  putSettings,
  recordingLogger,
} from "./test-support/harness.ts";

const ACCOUNT = "acct_aaaaaaaaaaaa";
const START = 1_700_000_000_000;
const SHOP = "https://shop.example";

type Kv = ReturnType<typeof newKv>;
let kv: Kv;
let clock: ReturnType<typeof manualClock>;
let app: ReturnType<typeof createSearchApp>;

const putKey = (key: string, grant: Record<string, unknown>) => putApiKey(kv, key, ACCOUNT, grant);

beforeEach(async () => {
  kv = newKv();
  await putSettings(kv, ACCOUNT, "products", {});
  await putSettings(kv, ACCOUNT, "blog", {});
  await putKey("rk_search", { actions: ["search"], indexes: ["*"] });
  await putKey("rk_products", { actions: ["search"], indexes: ["prod*"] });
  await putKey("rk_documents", { actions: ["documents.*"], indexes: ["*"] });
  await putKey("rk_soon", {
    actions: ["search"],
    indexes: ["*"],
    expires_at: new Date(START + 1000).toISOString(),
  });
  clock = manualClock(START);
  app = createSearchApp({
    kv,
    retrieval: new FixedHitsBackend([{ id: "1", title: "x" }], 1),
    log: recordingLogger(),
    now: clock.now,
  });
});

const post = (path: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, ...headers },
    body: JSON.stringify(body),
  });

describe("API key scopes at the search proxy", () => {
  it("a search key searches; a key without `search` gets Meilisearch's 403 invalid_api_key", async () => {
    expect((await post("/api/v1/indexes/products/search", "rk_search", { q: "x" })).status).toBe(200);
    const res = await post("/api/v1/indexes/products/search", "rk_documents", { q: "x" });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      code: "invalid_api_key",
      type: "auth",
      link: expect.any(String),
    });
  });

  it("a key for prod* searches products, not blog, also inside a multi-search (nothing run)", async () => {
    expect((await post("/api/v1/indexes/products/search", "rk_products", {})).status).toBe(200);
    expect((await post("/api/v1/indexes/blog/search", "rk_products", {})).status).toBe(403);
    const multi = await post("/api/v1/multi-search", "rk_products", {
      queries: [{ indexUid: "products" }, { indexUid: "blog" }],
    });
    expect(multi.status).toBe(403);
    expect(((await multi.json()) as { message: string }).message).toContain("queries[1]");
  });

  it("an expired key answers 401 from its expiresAt on the injected clock", async () => {
    expect((await post("/api/v1/indexes/products/search", "rk_soon", {})).status).toBe(200);
    clock.advance(1000);
    const res = await post("/api/v1/indexes/products/search", "rk_soon", {});
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "invalid_api_key" });
  });

  it("a revoked key fails once its copy is gone", async () => {
    expect((await post("/api/v1/indexes/products/search", "rk_search", {})).status).toBe(200);
    await kv.delete(apiKeyCopyKey(await apiKeyHash("rk_search")));
    expect((await post("/api/v1/indexes/products/search", "rk_search", {})).status).toBe(401);
  });
});

describe("CORS at the search proxy", () => {
  it("answers a preflight 204 before authentication, without a KV read", async () => {
    const reads: string[] = [];
    const get = kv.get.bind(kv);
    kv.get = async (key: string) => {
      reads.push(key);
      return get(key);
    };
    const res = await app.request("/api/v1/indexes/products/search", {
      method: "OPTIONS",
      headers: { origin: SHOP, "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(res.headers.get("access-control-allow-headers")).toContain("x-meilisearch-client");
    expect(reads).toEqual([]);
  });

  it("a page's search is allowed from any origin by default, and its 401 is readable", async () => {
    const ok = await post("/api/v1/indexes/products/search", "rk_search", {}, { origin: SHOP });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(SHOP);
    const bad = await post("/api/v1/indexes/products/search", "rk_wrong", {}, { origin: SHOP });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("access-control-allow-origin")).toBe(SHOP);
  });

  it("the account's readOrigins (its KV copy) refuse another origin 403 origin_not_allowed", async () => {
    await kv.put(
      `cors:${ACCOUNT}`,
      JSON.stringify({ system_account_id: ACCOUNT, read_origins: [SHOP], write_origins: [], version: 1 }),
    );
    expect((await post("/api/v1/indexes/products/search", "rk_search", {}, { origin: SHOP })).status).toBe(
      200,
    );
    const res = await post(
      "/api/v1/indexes/products/search",
      "rk_search",
      {},
      { origin: "https://evil.example" },
    );
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "origin_not_allowed" });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://evil.example");
  });
});
