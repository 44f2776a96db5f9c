// The Worker bundle in real workerd (Miniflare): the esbuild bundle of src/worker.ts, a real KV
// namespace, and a LOCAL DOUBLE of the Meilisearch API as the search backend (Meilisearch itself is
// not available here).
import { clampScore, computeFeaturesV1, loadArtifact } from "@relevance/core";
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "@relevance/search/meilisearch/test-support";
import { artifactText, putApiKey, putSettings } from "@relevance/search/test-support";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, startWorker } from "./test-support.ts";

const ACCOUNT = "acct_0123456789ab";
const API_KEY = "rk_worker_test_key";
const MODEL = `${ACCOUNT}:products:v1`;

let mf: Miniflare;
let meili: MeilisearchDouble;
let bundle: string;

beforeAll(async () => {
  meili = await startMeilisearchDouble();
  bundle = await bundleWorker();
  const started = await startWorker(bundle, {
    MEILISEARCH_URL: meili.url,
    MEILISEARCH_API_KEY: MASTER_KEY,
    KV_TIMEOUT_MS: "1000",
  });
  mf = started.mf;
  const kv = started.kv;
  await putApiKey(kv, API_KEY, ACCOUNT);
  const config = { model_id: MODEL, title_field: "title", tags_field: "tags" };
  await putSettings(kv, ACCOUNT, "products", { relevance_trigger_config: config });
  await putSettings(kv, ACCOUNT, "catalog", {
    type: "alias",
    alias_of: "products",
    relevance_trigger_config: config,
  });
  await putSettings(kv, ACCOUNT, "unmodelled", {
    relevance_trigger_config: { ...config, model_id: `${ACCOUNT}:unmodelled:v9` },
  });
  await kv.put(`relevance_model:${MODEL}`, artifactText(MODEL));
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await meili?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
type Json = Record<string, any>;

async function search(index: string, body: unknown) {
  const res = await mf.dispatchFetch(`http://worker/api/v1/indexes/${index}/search`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": API_KEY },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    model: res.headers.get("x-relevance-model"),
    body: (await res.json()) as Json,
  };
}

describe("search Worker bundle in real workerd (Miniflare), Meilisearch as a local double", () => {
  it("bundles without node:* imports, eval or new Function", () => {
    expect(bundle).not.toMatch(/from\s*["']node:|require\(["']node:|import\(["']node:/);
    expect(bundle).not.toMatch(/\bnew Function\(/);
    expect(bundle).not.toMatch(/\beval\(/);
  });

  it("bundles the search schemas without the OpenAPI document generator or zod's locales", () => {
    // @relevance/search/worker leaves out openapi-document.ts (zod-to-openapi) and imports zod as a
    // namespace, which lets esbuild drop zod's message translations: about 380 KB, not 1 MB.
    expect(bundle).not.toContain("OpenApiGeneratorV31");
    expect(bundle.length).toBeLessThan(512 * 1024);
  });

  it("returns a relevanceScore computed by the model in KV, and names the model", async () => {
    const r = await search("products", { q: "red shoes", limit: 3, relevanceScore: true });
    expect(r.status).toBe(200);
    expect(r.model).toBe(MODEL);
    expect(r.body.hits).toHaveLength(3);
    expect(r.body.estimatedTotalHits).toBe(976);
    const loaded = loadArtifact(artifactText(MODEL));
    if (!loaded.ok) throw new Error("fixture");
    const features = computeFeaturesV1({
      query: "red shoes",
      hits: r.body.hits,
      estimatedTotalHits: 976,
      titleField: "title",
      tagsField: "tags",
    });
    expect(r.body.relevanceScore).toBe(clampScore(loaded.value.model.predictV1(features)));
    expect(meili.requests.at(-1)?.uid).toBe(`${ACCOUNT}-products`);
  });

  it("searches without a score when the request does not ask for one", async () => {
    const r = await search("products", { q: "red shoes" });
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty("relevanceScore");
    expect(r.model).toBeNull();
  });

  it("reads the alias record's config and retrieves from the index it points at", async () => {
    const r = await search("catalog", { q: "red", relevanceScore: true });
    expect(r.status).toBe(200);
    expect(r.model).toBe(MODEL);
    expect(typeof r.body.relevanceScore).toBe("number");
    expect(meili.requests.at(-1)?.uid).toBe(`${ACCOUNT}-products`);
  });

  it("searches without a score when the configured model is missing from KV", async () => {
    const r = await search("unmodelled", { q: "red", relevanceScore: true });
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty("relevanceScore");
    expect(r.body.hits.length).toBeGreaterThan(0);
  });

  it("answers 401 without a key and 404 for an unknown index", async () => {
    const noKey = await mf.dispatchFetch("http://worker/api/v1/indexes/products/search", {
      method: "POST",
      body: "{}",
    });
    expect(noKey.status).toBe(401);
    expect((await search("nope", { q: "x" })).status).toBe(404);
  });

  describe("request bounds: each answer is JSON, and a normal search right after still answers", () => {
    async function raw(path: string, init: { method: string }) {
      const res = await mf.dispatchFetch(`http://worker${path}`, init);
      return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
    }

    async function expectNextSearchWorks() {
      const next = await search("products", { q: "red shoes", limit: 2 });
      expect(next.status).toBe(200);
      expect(next.body.hits).toHaveLength(2);
    }

    it("answers an unknown route with a JSON 404", async () => {
      const r = await raw("/api/v1/nothing/here", { method: "GET" });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: { code: "not_found", message: "no such route" } });
      await expectNextSearchWorks();
    });

    it("answers DELETE on the search path with a JSON 405 and Allow: GET, HEAD, POST", async () => {
      const r = await raw("/api/v1/indexes/products/search", { method: "DELETE" });
      expect(r.status).toBe(405);
      expect(r.headers.get("allow")).toBe("GET, HEAD, POST");
      expect(r.body.error.code).toBe("method_not_allowed");
      await expectNextSearchWorks();
    });

    it("answers a filter nested 5,000 deep (and 2,000, within the length limit) with 422 naming filter", async () => {
      for (const depth of [5000, 2000]) {
        const filter = `${"(".repeat(depth)}tags = shoes${")".repeat(depth)}`;
        const r = await search("products", { q: "red", filter });
        expect(r.status).toBe(422);
        expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual(["filter"]);
      }
      await expectNextSearchWorks();
    });

    it("answers a 100 KB word and 100,000 words with 422 naming q", async () => {
      for (const q of ["x".repeat(100 * 1024), "word ".repeat(100_000)]) {
        const r = await search("products", { q, relevanceScore: true });
        expect(r.status).toBe(422);
        expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual(["q"]);
      }
      await expectNextSearchWorks();
    });

    it("answers a body above 1 MiB with a JSON 413 naming body and the limit", async () => {
      const r = await search("products", { q: "red", filter: "x".repeat(2 * 1024 * 1024) });
      expect(r.status).toBe(413);
      expect(r.body.error.code).toBe("payload_too_large");
      expect(r.body.error.details).toEqual([{ path: "body", message: "must be at most 1048576 bytes" }]);
      await expectNextSearchWorks();
    });
  });
});

describe("MODEL_CACHE_MB in the Worker", () => {
  let small: Miniflare;

  beforeAll(async () => {
    // About 10 KB: less than the fixture model is estimated to cost, so it is never kept.
    const started = await startWorker(bundle, {
      MEILISEARCH_URL: meili.url,
      MEILISEARCH_API_KEY: MASTER_KEY,
      KV_TIMEOUT_MS: "1000",
      MODEL_CACHE_MB: "0.01",
    });
    small = started.mf;
    const kv = started.kv;
    await putApiKey(kv, API_KEY, ACCOUNT);
    await putSettings(kv, ACCOUNT, "products", {
      relevance_trigger_config: { model_id: MODEL, title_field: "title", tags_field: "tags" },
    });
    await kv.put(`relevance_model:${MODEL}`, artifactText(MODEL));
  }, 60_000);

  afterAll(async () => {
    await small?.dispose();
  });

  it("bounds the model cache: a model costing more than the setting is not scored, and the search succeeds", async () => {
    const res = await small.dispatchFetch("http://worker/api/v1/indexes/products/search", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": API_KEY },
      body: JSON.stringify({ q: "red shoes", relevanceScore: true }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).not.toHaveProperty("relevanceScore");
    expect(body.hits.length).toBeGreaterThan(0);
  });
});
