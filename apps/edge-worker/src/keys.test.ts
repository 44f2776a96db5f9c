// API key scopes and CORS in the Worker bundle, in real workerd (Miniflare): the key's KV copy is
// all the Worker has, so what the key may do, its expiry and the account's origins come from KV.
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "@relevance/search/meilisearch/test-support";
import { putApiKey, putSettings } from "@relevance/search/test-support";
import { apiKeyCopyKey, apiKeyHash } from "@relevance/settings";
import type { WorkersKv } from "@relevance/settings/workers-kv";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, startWorker } from "./test-support.ts";

const ACCOUNT = "acct_0123456789ab";
const SHOP = "https://shop.example";
let mf: Miniflare;
let kv: WorkersKv;
let meili: MeilisearchDouble;

const putKey = (key: string, grant: Record<string, unknown>) =>
  putApiKey(kv, key, ACCOUNT, { indexes: ["*"], ...grant });

beforeAll(async () => {
  meili = await startMeilisearchDouble();
  const started = await startWorker(await bundleWorker(), {
    MEILISEARCH_URL: meili.url,
    MEILISEARCH_API_KEY: MASTER_KEY,
    KV_TIMEOUT_MS: "1000",
  });
  mf = started.mf;
  kv = started.kv;
  await putSettings(kv, ACCOUNT, "products", {});
  await putKey("rk_search", { actions: ["search"] });
  await putKey("rk_documents", { actions: ["documents.*"] });
  // Expiry is checked against the Worker's clock: a date long past.
  await putKey("rk_expired", { actions: ["search"], expires_at: "2001-01-01T00:00:00.000Z" });
  await putKey("rk_revoked", { actions: ["search"] });
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await meili?.close();
});

const search = (key: string, headers: Record<string, string> = {}) =>
  mf.dispatchFetch("http://worker/api/v1/indexes/products/search", {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, ...headers },
    body: JSON.stringify({ q: "" }),
  });

describe("API keys in the Worker", () => {
  it("a search key searches; a documents key gets 403 invalid_api_key; an expired key 401", async () => {
    const ok = await search("rk_search");
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    const forbidden = await search("rk_documents");
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ code: "invalid_api_key", type: "auth" });
    const expired = await search("rk_expired");
    expect(expired.status).toBe(401);
    await expired.arrayBuffer();
  });

  it("a revoked key fails once its KV copy is gone", async () => {
    const before = await search("rk_revoked");
    expect(before.status).toBe(200);
    await before.arrayBuffer();
    await kv.delete(apiKeyCopyKey(await apiKeyHash("rk_revoked")));
    const after = await search("rk_revoked");
    expect(after.status).toBe(401);
    await after.arrayBuffer();
  });
});

describe("CORS in the Worker", () => {
  it("answers the preflight 204 with the origin and the headers Meilisearch's clients send", async () => {
    const res = await mf.dispatchFetch("http://worker/api/v1/indexes/products/search", {
      method: "OPTIONS",
      headers: {
        origin: SHOP,
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-meilisearch-client, content-type, authorization",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(res.headers.get("access-control-allow-headers")).toContain("x-meilisearch-client");
    expect(res.headers.get("access-control-allow-headers")).toContain("authorization");
    expect(res.headers.get("access-control-max-age")).toBe("7200");
  });

  it("the actual request and its errors carry Access-Control-Allow-Origin", async () => {
    const ok = await search("rk_search", { origin: SHOP });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(SHOP);
    await ok.arrayBuffer();
    const bad = await search("rk_unknown", { origin: SHOP });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("access-control-allow-origin")).toBe(SHOP);
    await bad.arrayBuffer();
  });
});
