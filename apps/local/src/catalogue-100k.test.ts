// A shop's whole catalogue through the customer API of npm start (issue 29): 100,000 generated
// products added with Meilisearch's official client in batches, as a shop's back end would, then
// searched. The assertions are about results (computed from the generated data), never times:
// docs/benchmarks.md ("Search at catalogue size") has the times.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tokenize } from "@relevance/core";
import { catalogue, type Product } from "@relevance/core/test-support/catalogue";
import type { Logger } from "@relevance/settings";
import { Meilisearch } from "meilisearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN } from "./test-support.ts";

const PRODUCTS = 100_000;

/** The catalogue, each title's last word a code only that product has. */
function products100k(): Product[] {
  const all: Product[] = [];
  for (const batch of catalogue(PRODUCTS, 10_000, true)) all.push(...batch);
  return all;
}

/** The words a product is found by (its searchable attributes' tokens). */
const words = (p: Product) =>
  new Set(tokenize([p.title, p.category, p.tags.join(" "), p.description].join(" ")));

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
let stack: Stack;
let dataDir: string;
let client: Meilisearch;
const products = products100k();
const byId = new Map(products.map((p) => [p.id, p]));

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "catalogue-100k-"));
  stack = await startStack(
    configFrom({ PORT: "0", DATA_DIR: dataDir, ADMIN_TOKEN, MONITOR_TOKEN, DEMO: "0" }),
    quiet,
  );
  const created = await fetch(`${stack.url}/api/v1/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Catalogue" }),
  });
  const { apiKey } = (await created.json()) as { apiKey: string };
  client = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey });
  await client.createIndex("products", { primaryKey: "id" }).waitTask({ interval: 10 });
  const index = client.index("products");
  const settings = await index
    .updateSettings({
      searchableAttributes: ["title", "category", "tags", "description"],
      filterableAttributes: ["category", "price", "tags"],
      sortableAttributes: ["price"],
    })
    .waitTask({ interval: 10 });
  expect(settings.status).toBe("succeeded");
  // 100 batches of 1,000 (the most one request may carry), as the client's addDocumentsInBatches sends them.
  const tasks = await index.addDocumentsInBatches(products, 1000);
  for (const task of tasks) {
    const done = await task.waitTask({ interval: 5, timeout: 60_000 });
    expect(done.status).toBe("succeeded");
  }
  // The settings reach search through the exporter's copy (within 2 s on npm start): a sorted search
  // is refused until `price` is sortable there.
  for (const deadline = Date.now() + 10_000; ; ) {
    try {
      await index.search("", { sort: ["price:asc"], limit: 1 });
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a 100,000-product catalogue loaded through the customer API", () => {
  it("holds every product", async () => {
    expect((await client.index("products").getStats()).numberOfDocuments).toBe(PRODUCTS);
  });

  it("finds a product first by its exact title", async () => {
    for (const i of [0, 4242, 99_999]) {
      const product = products[i] as Product;
      const { hits } = await client.index("products").search(product.title, { limit: 5 });
      expect(hits[0]?.id).toBe(product.id);
    }
  });

  it("answers a multi-word query with products holding every word", async () => {
    const { hits, estimatedTotalHits } = await client
      .index("products")
      .search("red leather boots", { limit: 20 });
    expect(hits).toHaveLength(20);
    for (const hit of hits) {
      const found = words(byId.get(hit.id as string) as Product);
      expect(["red", "leather", "boots"].every((w) => found.has(w))).toBe(true);
    }
    // `last` (the default strategy) also counts the products matching only the first words.
    const first = products.filter((p) => words(p).has("red")).length;
    expect(estimatedTotalHits).toBe(first);
  });

  it("counts a one-word query's matches exactly", async () => {
    const { estimatedTotalHits, hits } = await client.index("products").search("jacket", { limit: 10 });
    expect(estimatedTotalHits).toBe(products.filter((p) => words(p).has("jacket")).length);
    for (const hit of hits) expect(words(byId.get(hit.id as string) as Product).has("jacket")).toBe(true);
  });

  it("finds the intended word through a typo, and completes the last word as a prefix", async () => {
    const typo = await client.index("products").search("hedphones", { limit: 20 });
    expect(typo.hits.length).toBe(20);
    for (const hit of typo.hits)
      expect(words(byId.get(hit.id as string) as Product).has("headphones")).toBe(true);
    const prefix = await client.index("products").search("wirel", { limit: 20 });
    expect(prefix.estimatedTotalHits).toBe(
      products.filter((p) => [...words(p)].some((w) => w.startsWith("wirel"))).length,
    );
    for (const hit of prefix.hits) {
      expect([...words(byId.get(hit.id as string) as Product)].some((w) => w.startsWith("wirel"))).toBe(true);
    }
  });

  it("filters, sorts and counts facets over the whole catalogue", async () => {
    const expected = products.filter((p) => p.category === "lamp" && p.price < 50);
    const result = await client.index("products").search("", {
      filter: "category = lamp AND price < 50",
      sort: ["price:asc"],
      facets: ["category", "tags", "price"],
      limit: 50,
    });
    expect(result.estimatedTotalHits).toBe(expected.length);
    const prices = result.hits.map((hit) => hit.price as number);
    expect(prices).toEqual([...expected.map((p) => p.price)].sort((a, b) => a - b).slice(0, 50));
    for (const hit of result.hits) expect(hit.category).toBe("lamp");
    expect(result.facetDistribution?.category).toEqual({ lamp: expected.length });
    const tags = new Map<string, number>();
    for (const p of expected) for (const tag of new Set(p.tags)) tags.set(tag, (tags.get(tag) ?? 0) + 1);
    expect(result.facetDistribution?.tags).toEqual(Object.fromEntries(tags));
    expect(result.facetStats?.price).toEqual({
      min: Math.min(...expected.map((p) => p.price)),
      max: Math.max(...expected.map((p) => p.price)),
    });
  });

  it("answers the empty query with every product in primary-key order", async () => {
    const first = await client.index("products").search("", { limit: 20 });
    expect(first.estimatedTotalHits).toBe(PRODUCTS);
    expect(first.hits.map((hit) => hit.id)).toEqual(products.slice(0, 20).map((p) => p.id));
    // The deepest page the API serves (offset at most 10,000, as Meilisearch's maxTotalHits).
    const deep = await client.index("products").search("", { limit: 20, offset: 9_980 });
    expect(deep.hits.map((hit) => hit.id)).toEqual(products.slice(9_980, 10_000).map((p) => p.id));
  });

  it("sees an update in the next search, and a product added after the index was built", async () => {
    const index = client.index("products");
    const update = await index
      .updateDocuments([{ id: "p0004242", title: "Brand-new xylophone" }])
      .waitTask({ interval: 5 });
    expect(update.status).toBe("succeeded");
    expect((await index.search("xylophone")).hits.map((hit) => hit.id)).toEqual(["p0004242"]);
    const added = await index
      .addDocuments([
        { id: "p100000", title: "Zither", category: "music", price: 1, tags: [], description: "" },
      ])
      .waitTask({ interval: 5 });
    expect(added.status).toBe("succeeded");
    expect((await index.search("zither")).hits.map((hit) => hit.id)).toEqual(["p100000"]);
    expect((await index.search("")).estimatedTotalHits).toBe(PRODUCTS + 1);
  });
});
