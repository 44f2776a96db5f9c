// The Worker bundle in real workerd (Miniflare): the esbuild bundle of src/worker.ts, a real KV
// namespace, and a LOCAL DOUBLE of the Meilisearch API as the search backend (Meilisearch itself is
// not available here).
import { fileURLToPath } from "node:url";
import { clampScore, computeFeaturesV1, loadArtifact } from "@relevance/core";
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "@relevance/search/meilisearch/test-support";
import { artifactText, putApiKey, putSettings } from "@relevance/search/test-support";
import { type KvNamespaceBinding, WorkersKv } from "@relevance/settings/workers-kv";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ENTRY = fileURLToPath(new URL("./worker.ts", import.meta.url));
const ACCOUNT = "acct_0123456789ab";
const API_KEY = "rk_worker_test_key";
const MODEL = `${ACCOUNT}:products:v1`;

let mf: Miniflare;
let meili: MeilisearchDouble;
let bundle: string;

beforeAll(async () => {
  meili = await startMeilisearchDouble();
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["worker", "browser"],
    write: false,
    logLevel: "silent",
  });
  bundle = out.outputFiles[0]?.text ?? "";
  mf = new Miniflare({
    modules: true,
    script: bundle,
    compatibilityDate: "2025-01-01",
    kvNamespaces: ["KV"],
    bindings: { MEILISEARCH_URL: meili.url, MEILISEARCH_API_KEY: MASTER_KEY, KV_TIMEOUT_MS: "1000" },
  });
  const kv = new WorkersKv((await mf.getKVNamespace("KV")) as unknown as KvNamespaceBinding);
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
});
