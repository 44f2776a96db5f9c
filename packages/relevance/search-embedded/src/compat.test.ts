// The search app driven by the official Meilisearch clients, as a new user would use them:
// `meilisearch` (`new Meilisearch({host: ".../api/v1", apiKey}).index("products").search(...)`) and
// `@meilisearch/instant-meilisearch`'s searchClient, over HTTP against the app served by
// @hono/node-server on port 0, with the embedded engine over a small seeded catalogue.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { instantMeiliSearch } from "@meilisearch/instant-meilisearch";
import { createSearchApp } from "@relevance/search";
import { newKv, putApiKey, putSettings, recordingLogger } from "@relevance/search/test-support";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { Meilisearch, MeilisearchApiError } from "meilisearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedRetrieval } from "./engine.ts";

const ACCOUNT = "acct_compat0000";
const KEY = "rk_compat_key_of_the_test_account_000000000000";

const CATALOGUE = [
  {
    id: "1",
    title: "Red running shoes",
    brand: "Acme",
    category: "shoes",
    price: 80,
    tags: ["running", "red"],
  },
  { id: "2", title: "Blue running shoes", brand: "Acme", category: "shoes", price: 95, tags: ["running"] },
  { id: "3", title: "Red wool socks", brand: "Woolly", category: "socks", price: 12, tags: ["red", "wool"] },
  { id: "4", title: "Green trail shoes", brand: "Trail Co", category: "shoes", price: 120, tags: ["trail"] },
  {
    id: "5",
    title: "Red rain jacket",
    brand: "Acme",
    category: "jackets",
    price: 150,
    tags: ["red", "rain"],
    description:
      "A light jacket for running in the rain with taped seams, a hood that stays put and pockets that keep a phone dry on long runs",
  },
  { id: "6", title: "Running cap", brand: "Trail Co", category: "accessories", price: 25, tags: ["running"] },
];

let server: ReturnType<typeof serve>;
let host: string;
let client: Meilisearch;

beforeAll(async () => {
  const kv = newKv();
  await putApiKey(kv, KEY, ACCOUNT);
  await putSettings(kv, ACCOUNT, "products", {
    searchable_attributes: ["title", "brand", "description"],
    filterable_attributes: ["brand", "category", "price", "tags"],
    sortable_attributes: ["brand", "price"],
  });
  const documents = new SqliteDocumentStore(openDatabase(":memory:"));
  await documents.upsert(ACCOUNT, "products", "id", CATALOGUE);
  const app = createSearchApp({
    kv,
    retrieval: new EmbeddedRetrieval({ documents }),
    log: recordingLogger(),
  });
  server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  client = new Meilisearch({ host, apiKey: KEY });
});

afterAll(
  () =>
    new Promise<void>((resolve) => {
      if ("closeAllConnections" in server) server.closeAllConnections();
      server.close(() => resolve());
    }),
);

const ids = (hits: readonly Record<string, unknown>[]) => hits.map((h) => h.id);

describe("the official meilisearch client against the search API (embedded engine)", () => {
  it("searches with q, offset and limit, and answers estimatedTotalHits", async () => {
    const res = await client.index("products").search("running shoes", { limit: 1, offset: 1 });
    expect(res.hits).toHaveLength(1);
    expect(res.limit).toBe(1);
    expect(res.offset).toBe(1);
    // last: both words first (1, 2), then "running" alone (5: in the description, 6).
    expect(res.estimatedTotalHits).toBe(4);
    const all = await client.index("products").search("running shoes");
    expect(ids(all.hits).slice(0, 2).sort()).toEqual(["1", "2"]);
    expect(ids(all.hits).slice(2).sort()).toEqual(["5", "6"]);
  });

  it("filters with a string and with arrays (inner OR, outer AND)", async () => {
    const index = client.index("products");
    const byString = await index.search("", { filter: "category = shoes AND price < 100" });
    expect(ids(byString.hits)).toEqual(["1", "2"]);
    const byArray = await index.search("", {
      filter: ["tags = red", ["category = socks", "category = jackets"]],
    });
    expect(ids(byArray.hits)).toEqual(["3", "5"]);
  });

  it("sorts on one and on two attributes", async () => {
    const index = client.index("products");
    expect(ids((await index.search("", { sort: ["price:desc"] })).hits)).toEqual([
      "5",
      "4",
      "2",
      "1",
      "6",
      "3",
    ]);
    expect(ids((await index.search("", { sort: ["brand:asc", "price:asc"] })).hits)).toEqual([
      "1",
      "2",
      "5",
      "6",
      "4",
      "3",
    ]);
  });

  it("answers facetDistribution over every match and facetStats for numbers", async () => {
    const res = await client.index("products").search("red", { facets: ["category", "price"], limit: 1 });
    expect(res.hits).toHaveLength(1);
    expect(res.facetDistribution).toEqual({
      category: { jackets: 1, shoes: 1, socks: 1 },
      price: { "12": 1, "150": 1, "80": 1 },
    });
    expect(res.facetStats).toEqual({ price: { min: 12, max: 150 } });
    const star = await client.index("products").search("", { facets: ["*"] });
    expect(Object.keys(star.facetDistribution ?? {}).sort()).toEqual(["brand", "category", "price", "tags"]);
  });

  it("pages with page and hitsPerPage (exhaustive: totalHits, totalPages)", async () => {
    const res = await client.index("products").search("", { page: 2, hitsPerPage: 4 });
    expect(ids(res.hits)).toEqual(["5", "6"]);
    expect(res).toMatchObject({ page: 2, hitsPerPage: 4, totalHits: 6, totalPages: 2 });
    expect(res).not.toHaveProperty("estimatedTotalHits");
  });

  it("retrieves only the attributes asked for, and highlights and crops the matched words", async () => {
    const res = await client.index("products").search("red jacket", {
      attributesToRetrieve: ["id", "title", "description"],
      attributesToHighlight: ["title"],
      highlightPreTag: "<mark>",
      highlightPostTag: "</mark>",
      attributesToCrop: ["description"],
      cropLength: 5,
      cropMarker: "[…]",
    });
    const hit = res.hits[0] as Record<string, unknown>;
    expect(hit.id).toBe("5");
    expect(Object.keys(hit).sort()).toEqual(["_formatted", "description", "id", "title"]);
    const formatted = hit._formatted as Record<string, string>;
    expect(formatted.title).toBe("<mark>Red</mark> rain <mark>jacket</mark>");
    expect(formatted.description).toBe("A light jacket for running[…]");
  });

  it("answers _rankingScore between 0 and 1, best first, with showRankingScore", async () => {
    const res = await client.index("products").search("red shoes", { showRankingScore: true });
    const scores = res.hits.map((h) => h._rankingScore as number);
    expect(scores[0]).toBe(1);
    for (const s of scores) expect(s).toBeGreaterThan(0);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(ids(res.hits)[0]).toBe("1");
  });

  it("honours matchingStrategy all and last", async () => {
    const index = client.index("products");
    expect(ids((await index.search("red shoes", { matchingStrategy: "all" })).hits)).toEqual(["1"]);
    expect(ids((await index.search("red shoes", { matchingStrategy: "last" })).hits).sort()).toEqual([
      "1",
      "3",
      "5",
    ]);
  });

  it("runs a multi-search, each result with its indexUid", async () => {
    const res = await client.multiSearch({
      queries: [
        { indexUid: "products", q: "socks" },
        { indexUid: "products", q: "", filter: "brand = Acme", limit: 2 },
      ],
    });
    expect(res.results.map((r) => r.indexUid)).toEqual(["products", "products"]);
    expect(ids(res.results[0]?.hits ?? [])).toEqual(["3"]);
    expect(ids(res.results[1]?.hits ?? [])).toEqual(["1", "2"]);
    expect(res.results[1]?.estimatedTotalHits).toBe(3);
  });

  it("answers health without a key and the version with one", async () => {
    expect(await new Meilisearch({ host }).health()).toEqual({ status: "available" });
    expect(await new Meilisearch({ host }).isHealthy()).toBe(true);
    const version = await client.getVersion();
    expect(version.pkgVersion).toEqual(expect.any(String));
    await expect(new Meilisearch({ host, apiKey: "rk_wrong" }).getVersion()).rejects.toBeInstanceOf(
      MeilisearchApiError,
    );
  });

  it("raises MeilisearchApiError with Meilisearch's code and a readable message for a bad request", async () => {
    const error = await client
      .index("products")
      .search("red", { limit: 5000 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(MeilisearchApiError);
    const api = error as MeilisearchApiError;
    expect(api.cause?.code).toBe("invalid_search_limit");
    expect(api.cause?.type).toBe("invalid_request");
    expect(api.cause?.link).toBe("https://docs.meilisearch.com/errors#invalid_search_limit");
    expect(api.message).toContain("limit: must be an integer from 0 to 1000, got 5000");
    expect(api.response.status).toBe(422);

    const filter = await client
      .index("products")
      .search("red", { filter: "colour = red" })
      .catch((e: unknown) => e as MeilisearchApiError);
    expect(filter).toBeInstanceOf(MeilisearchApiError);
    expect((filter as MeilisearchApiError).cause?.code).toBe("invalid_search_filter");
    expect((filter as MeilisearchApiError).message).toContain("Attribute `colour` is not filterable");

    const missing = await client
      .index("nothere")
      .search("red")
      .catch((e: unknown) => e as MeilisearchApiError);
    expect((missing as MeilisearchApiError).cause?.code).toBe("index_not_found");

    const noKey = await new Meilisearch({ host })
      .index("products")
      .search("red")
      .catch((e: unknown) => e as MeilisearchApiError);
    expect((noKey as MeilisearchApiError).cause?.code).toBe("missing_authorization_header");
    expect((noKey as MeilisearchApiError).cause?.type).toBe("auth");
  });
});

describe("the official client's front-end calls (embedded engine)", () => {
  it("searches with limit 0 for the facets alone", async () => {
    const res = await client.index("products").search("red", { limit: 0, facets: ["category"] });
    expect(res.hits).toEqual([]);
    expect(res.estimatedTotalHits).toBe(3);
    expect(res.facetDistribution).toEqual({ category: { jackets: 1, shoes: 1, socks: 1 } });
  });

  it("searches with searchGet, the parameters in the query string", async () => {
    const res = await client
      .index("products")
      .searchGet("shoes", { filter: "price < 100", sort: ["price:desc"], attributesToRetrieve: ["id"] });
    expect(res.hits).toEqual([{ id: "2" }, { id: "1" }]);
  });

  it("searches facet values with searchForFacetValues", async () => {
    const res = await client
      .index("products")
      .searchForFacetValues({ facetName: "brand", facetQuery: "tra" });
    expect(res.facetHits).toEqual([{ value: "Trail Co", count: 2 }]);
    expect(res.facetQuery).toBe("tra");
    const red = await client
      .index("products")
      .searchForFacetValues({ facetName: "category", q: "red", filter: "price > 50" });
    expect(red.facetHits).toEqual([
      { value: "jackets", count: 1 },
      { value: "shoes", count: 1 },
    ]);
    const error = await client
      .index("products")
      .searchForFacetValues({ facetName: "title" })
      .catch((e: unknown) => e as MeilisearchApiError);
    expect((error as MeilisearchApiError).cause?.code).toBe("invalid_facet_search_facet_name");
  });

  it("answers distinct and rankingScoreThreshold with a 422 naming them (the embedded engine cannot honour them)", async () => {
    for (const [params, code] of [
      [{ distinct: "brand" }, "invalid_search_distinct"],
      [{ rankingScoreThreshold: 0.5 }, "invalid_search_ranking_score_threshold"],
      [{ showMatchesPosition: true }, "invalid_search_show_matches_position"],
    ] as const) {
      const error = await client
        .index("products")
        .search("red", params)
        .catch((e: unknown) => e as MeilisearchApiError);
      expect(error).toBeInstanceOf(MeilisearchApiError);
      expect((error as MeilisearchApiError).cause?.code).toBe(code);
      expect((error as MeilisearchApiError).response.status).toBe(422);
      expect((error as MeilisearchApiError).message).toContain(Object.keys(params)[0]);
    }
  });
});

describe("instant-meilisearch's searchClient against the search API", () => {
  it("answers a refinementList's second query (limit 0, the facet alone) and a searchable refinementList", async () => {
    const { searchClient } = instantMeiliSearch(host, KEY);
    const { results } = await searchClient.search([
      {
        indexName: "products",
        params: { query: "", hitsPerPage: 6, page: 0, facets: ["brand"], facetFilters: [["brand:Acme"]] },
      },
      { indexName: "products", params: { query: "", hitsPerPage: 0, page: 0, facets: ["brand"] } },
    ]);
    const [refined, facetsOnly] = results as unknown as Record<string, unknown>[];
    expect(refined?.nbHits).toBe(3);
    expect(facetsOnly?.hits).toEqual([]);
    expect(facetsOnly?.facets).toEqual({ brand: { Acme: 3, "Trail Co": 2, Woolly: 1 } });
    const values = await searchClient.searchForFacetValues?.([
      { indexName: "products", params: { facetName: "brand", facetQuery: "wo", query: "" } },
    ]);
    expect(values?.[0]?.facetHits.map((h: { value: string; count: number }) => [h.value, h.count])).toEqual([
      ["Woolly", 1],
    ]);
  });

  it("answers InstantSearch's search call with hits, counts and facets", async () => {
    const { searchClient } = instantMeiliSearch(host, KEY);
    const { results } = await searchClient.search([
      { indexName: "products", params: { query: "running", hitsPerPage: 2, page: 0, facets: ["brand"] } },
    ]);
    const [result] = results as unknown as Record<string, unknown>[];
    expect(result?.index).toBe("products");
    expect(result?.nbHits).toBe(4);
    expect(result?.hits).toHaveLength(2);
    expect(result?.facets).toEqual({ brand: { Acme: 3, "Trail Co": 1 } });
  });
});
