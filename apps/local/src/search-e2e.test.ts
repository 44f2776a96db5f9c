// The configuration's observable outcomes end to end through HTTP on the embedded stack: admin API → settings
// table → change log → exporter → SQLite KV → search proxy (embedded engine) → relevanceScore.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildArtifact, importXgboost, modelKey } from "@relevance/core";
import type { Logger } from "@relevance/settings";
import { Meilisearch } from "meilisearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN } from "./test-support.ts";

const FIXTURE = fileURLToPath(
  new URL("../../../packages/relevance/core/fixtures/xgboost/binary_logistic.model.json", import.meta.url),
);
const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
const log: Logger = {
  info: (message, fields) => lines.push({ level: "info", message, fields }),
  warn: (message, fields) => lines.push({ level: "warn", message, fields }),
  error: (message, fields) => lines.push({ level: "error", message, fields }),
};

let stack: Stack;
let account: string;
let apiKey: string;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

function artifact(modelId: string): string {
  const draft = importXgboost(JSON.parse(readFileSync(FIXTURE, "utf8")));
  if (!draft.ok) throw new Error("fixture");
  const built = buildArtifact(draft.value, { modelId, titleField: "title", tagsField: "tags" });
  if (!built.ok) throw new Error("fixture");
  return built.value.text;
}

async function http(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(stack.url + path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    model: res.headers.get("x-relevance-model"),
    body: (await res.json()) as Record<string, unknown>,
  };
}

const search = (index: string) =>
  http(
    "POST",
    `/api/v1/indexes/${index}/search`,
    { q: "red shoes", relevanceScore: true },
    { "x-api-key": apiKey },
  );
const configure = (index: string, modelId: string | null) =>
  http(
    "PUT",
    `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-trigger-config`,
    {
      relevanceTriggerConfig: modelId === null ? null : { modelId, titleField: "title", tagsField: "tags" },
    },
    admin,
  );

/** Settings reach search through the exporter; in the embedded stack that takes milliseconds (spec: within 2 s). */
async function searchUntil(index: string, accept: (r: Awaited<ReturnType<typeof search>>) => boolean) {
  const deadline = Date.now() + 2000;
  for (;;) {
    const r = await search(index);
    if (accept(r) || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "e2e-"));
  stack = await startStack(
    configFrom({
      PORT: "0",
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      MONITOR_TOKEN: "test-monitor-token-0123456789",
      DEMO: "0",
    }),
    log,
  );
  const created = await http("POST", "/api/v1/admin/accounts", { name: "Seed 3" }, admin);
  account = created.body.systemAccountId as string;
  apiKey = created.body.apiKey as string;
  const key = { "x-api-key": apiKey };
  for (const name of ["products", "shoes"]) {
    await http("POST", "/api/v1/indexes", { name }, key);
    await http(
      "POST",
      `/api/v1/indexes/${name}/documents`,
      [
        { id: 1, title: "Red running shoes", tags: ["shoes", "running"] },
        { id: 2, title: "Red leather shoes", tags: ["shoes"] },
        { id: 3, title: "Blue socks", tags: ["socks"] },
      ],
      key,
    );
  }
  await http("PUT", "/api/v1/aliases/catalog", { index: "products" }, key);
});

afterAll(async () => {
  await stack.stop();
});

describe("seed section 3 end to end through HTTP (embedded stack)", () => {
  it("upload of an artifact alone: no index changes, no score", async () => {
    await stack.kv.put(modelKey(`${account}:products:v1`), artifact(`${account}:products:v1`));
    const r = await search("products");
    expect(r.status).toBe(200);
    expect(r.body.hits).not.toHaveLength(0);
    expect(r.body).not.toHaveProperty("relevanceScore");
  });

  it("configuration without an artifact: no score, a warning naming account, index and modelId", async () => {
    const put = await configure("shoes", `${account}:shoes:v1`);
    expect(put.body.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/no model artifact under relevance_model:/)]),
    );
    await searchUntil("shoes", () => lines.some((l) => l.message === "relevance model artifact missing"));
    const r = await search("shoes");
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty("relevanceScore");
    const warning = lines.find((l) => l.message === "relevance model artifact missing");
    expect(warning).toMatchObject({
      level: "warn",
      fields: { account, index: "shoes", modelId: `${account}:shoes:v1` },
    });
  });

  it("configuration with the artifact present: relevanceScore in [0, 10], from the named model", async () => {
    await configure("products", `${account}:products:v1`);
    const r = await searchUntil("products", (x) => "relevanceScore" in x.body);
    expect(r.model).toBe(`${account}:products:v1`);
    expect(r.body.relevanceScore).toBeGreaterThanOrEqual(0);
    expect(r.body.relevanceScore).toBeLessThanOrEqual(10);
  });

  it("admin PUT null: scoring skipped silently, the artifact stays in KV", async () => {
    await configure("products", null);
    const r = await searchUntil("products", (x) => !("relevanceScore" in x.body));
    expect(r.body).not.toHaveProperty("relevanceScore");
    expect(await stack.kv.get(modelKey(`${account}:products:v1`))).not.toBeNull();
  });

  it("switch to a new modelId whose artifact exists: the new model serves", async () => {
    await stack.kv.put(modelKey(`${account}:products:v2`), artifact(`${account}:products:v2`));
    await configure("products", `${account}:products:v1`);
    expect((await searchUntil("products", (x) => x.model === `${account}:products:v1`)).model).toBe(
      `${account}:products:v1`,
    );
    await configure("products", `${account}:products:v2`);
    expect((await searchUntil("products", (x) => x.model === `${account}:products:v2`)).model).toBe(
      `${account}:products:v2`,
    );
  });

  it("alias with config on both records: the alias record's config is used, retrieval from the index", async () => {
    await configure("catalog", `${account}:products:v1`);
    const viaAlias = await searchUntil("catalog", (x) => x.model === `${account}:products:v1`);
    expect(viaAlias.model).toBe(`${account}:products:v1`);
    expect(viaAlias.body.hits).toEqual((await search("products")).body.hits);
    // The index itself still serves v2: two records, two configs, one upload each.
    expect((await search("products")).model).toBe(`${account}:products:v2`);
  });
});

describe("the Meilisearch-compatible API on the embedded stack (npm start)", () => {
  it("serves the official client: health, version, search with a Bearer key, multi-search through an alias", async () => {
    const host = `${stack.url}/api/v1`;
    const client = new Meilisearch({ host, apiKey });
    expect(await new Meilisearch({ host }).health()).toEqual({ status: "available" });
    expect((await client.getVersion()).pkgVersion).toEqual(expect.any(String));
    // Sorting needs the attribute in sortableAttributes, as in Meilisearch; the settings reach search
    // through the exporter's KV copy.
    const patched = await http(
      "PATCH",
      "/api/v1/indexes/products/settings",
      { sortableAttributes: ["id"] },
      {
        "x-api-key": apiKey,
      },
    );
    expect(patched.status).toBe(200);
    let res: { hits: Array<Record<string, unknown>> } | undefined;
    for (const deadline = Date.now() + 2000; res === undefined; ) {
      try {
        res = await client
          .index("products")
          .search("red shoes", { sort: ["id:desc"], matchingStrategy: "all" });
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    expect(res.hits.map((h) => h.id)).toEqual([2, 1]);
    const multi = await client.multiSearch({
      queries: [
        { indexUid: "catalog", q: "socks" },
        { indexUid: "shoes", q: "", page: 1, hitsPerPage: 2 },
      ],
    });
    expect(multi.results[0]?.hits.map((h) => h.id)).toEqual([3]);
    expect(multi.results[1]).toMatchObject({ indexUid: "shoes", totalHits: 3, totalPages: 2 });
    // Errors carry Meilisearch's fields through the stack too; the internal auth-code header does not leak.
    const wrong = await fetch(`${host}/indexes/products/search`, {
      method: "POST",
      headers: { authorization: "Bearer rk_not_a_key", "content-type": "application/json" },
      body: JSON.stringify({ q: "red" }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("x-meilisearch-auth-code")).toBeNull();
    expect(await wrong.json()).toMatchObject({
      error: { code: "unauthorized" },
      code: "invalid_api_key",
      type: "auth",
    });
  });

  it("takes writes from the official client with tasks it can wait for, and a PATCH of synonyms changes results", async () => {
    const client = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey });
    const created = await client.createIndex("furniture", { primaryKey: "sku" }).waitTask({ interval: 10 });
    expect(created).toMatchObject({ status: "succeeded", type: "indexCreation", indexUid: "furniture" });
    const index = client.index("furniture");
    const added = await index
      .addDocuments([
        { sku: "a", title: "Walnut sofa" },
        { sku: "b", title: "Oak table" },
      ])
      .waitTask({ interval: 10 });
    expect(added).toMatchObject({
      status: "succeeded",
      details: { receivedDocuments: 2, indexedDocuments: 2 },
    });
    expect((await index.getDocuments({ limit: 5 })).results.map((d) => d.sku)).toEqual(["a", "b"]);
    expect(await index.getStats()).toMatchObject({ numberOfDocuments: 2, isIndexing: false });
    const ids = async () => (await index.search("couch")).hits.map((h) => h.sku);
    // The index's settings copy reaches search through the exporter (within 2 s in the embedded stack).
    let before: unknown[] | undefined;
    for (const deadline = Date.now() + 2000; before === undefined; ) {
      try {
        before = await ids();
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    expect(before).toEqual([]);
    const settings = await index.updateSettings({ synonyms: { couch: ["sofa"] } }).waitTask({ interval: 10 });
    expect(settings.status).toBe("succeeded");
    let after: unknown[] = [];
    for (const deadline = Date.now() + 2000; after.length === 0 && Date.now() < deadline; ) {
      after = await ids();
      if (after.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(after).toEqual(["a"]);
    const deleted = await client.deleteIndex("furniture").waitTask({ interval: 10 });
    expect(deleted.status).toBe("succeeded");
    expect((await http("GET", "/api/v1/indexes/furniture", undefined, { "x-api-key": apiKey })).status).toBe(
      404,
    );
  });
});
