import { MAX_VALUES_PER_FACET, type SearchTarget } from "@relevance/search";
import type { Document } from "@relevance/settings";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import { EmbeddedRetrieval } from "./engine.ts";
import { prefixWithin } from "./facet-search.ts";
import { SLICE_MS } from "./slices.ts";

const chars = (s: string) => [...s];

function target(overrides: Partial<SearchTarget> = {}): SearchTarget {
  return {
    systemAccountId: "acct",
    index: "products",
    primaryKey: "id",
    searchableAttributes: [],
    filterableAttributes: ["brand", "sku", "tags", "meta.colour", "price", "inStock"],
    ...overrides,
  };
}

async function engineOver(docs: Document[], options: { sliceClock?: () => number } = {}) {
  const documents = new SqliteDocumentStore(openDatabase(":memory:"));
  await documents.upsert("acct", "products", "id", docs);
  return new EmbeddedRetrieval({ documents, ...options });
}

describe("prefixWithin", () => {
  it.each([
    ["nik", "nike", 0, true],
    ["nike", "nike air", 0, true],
    ["nkie", "nike", 0, false],
    ["adiads", "adidas", 1, false],
    ["adiads", "adidas", 2, true],
    ["funiture", "furniture", 1, true],
    ["furnitrue", "furniture", 1, false],
    ["samsumg", "samsung galaxy", 1, true],
    ["zzzzz", "samsung", 2, false],
    ["", "anything", 0, true],
  ])("%s within %s with %i typos: %s", (query, value, typos, expected) => {
    expect(prefixWithin(chars(query), chars(value), typos)).toBe(expected);
  });
});

describe("EmbeddedRetrieval.facetSearch", () => {
  const catalogue: Document[] = [
    { id: "1", title: "Running shoes", brand: "Nike", tags: ["shoes", "Shoes"], price: 90, inStock: true },
    { id: "2", title: "Trail shoes", brand: "nike", tags: ["shoes"], price: 120, inStock: false },
    { id: "3", title: "Rain jacket", brand: "Adidas", tags: ["jackets"], meta: { colour: "Navy" } },
    { id: "4", title: "Wool socks", brand: "Nordisk", tags: ["socks"], meta: { colour: "navy" } },
  ];

  it("counts values case-insensitively, each document once, shown as first seen", async () => {
    const engine = await engineOver(catalogue);
    const hits = await engine.facetSearch(target(), { facetName: "brand", facetQuery: "N", q: "" });
    expect(hits.facetHits).toEqual([
      { value: "Nike", count: 2 },
      { value: "Nordisk", count: 1 },
    ]);
    const tags = await engine.facetSearch(target(), { facetName: "tags", facetQuery: "sho", q: "" });
    expect(tags.facetHits).toEqual([{ value: "shoes", count: 2 }]);
  });

  it("counts over the documents q and filter select, on nested attributes too", async () => {
    const engine = await engineOver(catalogue);
    const shoes = await engine.facetSearch(target(), { facetName: "brand", q: "shoes" });
    expect(shoes.facetHits).toEqual([{ value: "Nike", count: 2 }]);
    const filtered = await engine.facetSearch(target(), { facetName: "brand", q: "", filter: "price > 100" });
    // A value is shown as the catalogue first holds it (whatever the query): a refinement list
    // does not flip between "Nike" and "nike" from one query to the next.
    expect(filtered.facetHits).toEqual([{ value: "Nike", count: 1 }]);
    const nested = await engine.facetSearch(target(), { facetName: "meta.colour", q: "" });
    expect(nested.facetHits).toEqual([{ value: "Navy", count: 2 }]);
  });

  it("searches strings and booleans, not numbers (as Meilisearch)", async () => {
    const engine = await engineOver(catalogue);
    expect((await engine.facetSearch(target(), { facetName: "price", q: "" })).facetHits).toEqual([]);
    expect((await engine.facetSearch(target(), { facetName: "inStock", q: "" })).facetHits).toEqual([
      { value: "false", count: 1 },
      { value: "true", count: 1 },
    ]);
  });

  it("tolerates typos as the index's typoTolerance allows, and none when it is disabled", async () => {
    const engine = await engineOver(catalogue);
    const typo = { facetName: "brand", facetQuery: "Adodas", q: "" };
    expect((await engine.facetSearch(target(), typo)).facetHits).toEqual([{ value: "Adidas", count: 1 }]);
    const off = target({
      typoTolerance: {
        enabled: false,
        minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
        disableOnWords: [],
        disableOnAttributes: [],
      },
    });
    expect((await engine.facetSearch(off, typo)).facetHits).toEqual([]);
  });

  it("refuses a facet that is not filterable, naming facetName, and a bad filter, naming filter", async () => {
    const engine = await engineOver(catalogue);
    await expect(engine.facetSearch(target(), { facetName: "title", q: "" })).rejects.toMatchObject({
      failure: "invalid_request",
      field: "facetName",
    });
    await expect(
      engine.facetSearch(target(), { facetName: "brand", q: "", filter: "title = x" }),
    ).rejects.toMatchObject({ failure: "invalid_request", field: "filter" });
  });

  it(`answers at most ${MAX_VALUES_PER_FACET} values, the first alphabetically, in slices of the event loop`, async () => {
    const docs = Array.from({ length: 3000 }, (_, i) => ({
      id: `p${i}`,
      title: `Chair ${i}`,
      sku: `SKU-${String(2999 - i).padStart(5, "0")}`,
    }));
    let now = 0;
    const sliced = await engineOver(docs, { sliceClock: () => (now += SLICE_MS) });
    const whole = await engineOver(docs, { sliceClock: () => 0 });
    const ask = { facetName: "sku", facetQuery: "sku-0", q: "chair" };
    await whole.facetSearch(target(), ask);
    await sliced.facetSearch(target(), ask);
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const result = await sliced.facetSearch(target(), ask);
    done = true;
    expect(result).toEqual(await whole.facetSearch(target(), ask));
    expect(result.facetHits).toHaveLength(MAX_VALUES_PER_FACET);
    expect(result.facetHits[0]).toEqual({ value: "SKU-00000", count: 1 });
    expect(result.facetHits.at(-1)).toEqual({ value: "SKU-00099", count: 1 });
    // 3,000 matches counted and 3,000 values matched a few hundred per slice.
    expect(turns).toBeGreaterThan(10);
  });
});

describe("a search with limit 0 and facets (InstantSearch's facets-only query)", () => {
  it("walks and counts every document in slices of the event loop, answering as in one piece", async () => {
    const docs = Array.from({ length: 3000 }, (_, i) => ({
      id: `p${i}`,
      title: `Chair ${i}`,
      brand: `Brand ${i % 7}`,
      sku: `SKU-${String(2999 - i).padStart(5, "0")}`,
    }));
    let now = 0;
    const sliced = await engineOver(docs, { sliceClock: () => (now += SLICE_MS) });
    const whole = await engineOver(docs, { sliceClock: () => 0 });
    const ask = { q: "", limit: 0, offset: 0, facets: ["brand", "sku"] };
    const expected = await whole.search(target(), ask);
    await sliced.search(target(), ask);
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const result = await sliced.search(target(), ask);
    done = true;
    expect(result).toEqual(expected);
    expect(result.hits).toEqual([]);
    expect(result.estimatedTotalHits).toBe(3000);
    expect(Object.keys(result.facetDistribution?.sku ?? {})).toHaveLength(MAX_VALUES_PER_FACET);
    expect(Object.keys(result.facetDistribution?.sku ?? {})[0]).toBe("SKU-00000");
    expect(result.facetDistribution?.brand?.["Brand 0"]).toBe(429);
    // 3,000 documents walked and counted a few hundred per slice.
    expect(turns).toBeGreaterThan(10);
  });
});
