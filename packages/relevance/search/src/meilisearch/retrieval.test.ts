import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetrievalError, type SearchTarget } from "../ports.ts";
import { MeilisearchRetrieval } from "./retrieval.ts";
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "./test-support/meilisearch-double.ts";

const target = (index: string): SearchTarget => ({
  systemAccountId: "acct_a",
  index,
  primaryKey: "id",
  searchableAttributes: [],
  filterableAttributes: ["tags"],
});
const QUERY = { q: "red", limit: 2, offset: 0 };

async function failure(promise: Promise<unknown>): Promise<RetrievalError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a RetrievalError");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RetrievalError);
  return error as RetrievalError;
}

describe("MeilisearchRetrieval against a local double of the Meilisearch API (documented responses replayed, not Meilisearch)", () => {
  let double: MeilisearchDouble;
  let meili: MeilisearchRetrieval;

  beforeAll(async () => {
    double = await startMeilisearchDouble(1000);
    meili = new MeilisearchRetrieval({ url: `${double.url}/`, apiKey: MASTER_KEY, timeoutMs: 200 });
  });
  afterAll(() => double.close());

  it("posts q, limit, offset and filter with a bearer key to /indexes/<account>-<index>/search", async () => {
    double.requests.length = 0;
    const result = await meili.search(target("products"), { ...QUERY, offset: 1, filter: "tags = shoes" });
    expect(double.requests).toEqual([
      {
        uid: "acct_a-products",
        authorization: `Bearer ${MASTER_KEY}`,
        body: { q: "red", limit: 2, offset: 1, filter: "tags = shoes" },
      },
    ]);
    expect(result).toEqual({
      hits: [
        { id: 2, title: "Blue running shorts", tags: ["apparel"] },
        { id: 3, title: "Red socks", tags: ["socks"] },
      ],
      estimatedTotalHits: 976,
    });
  });

  it("leaves out an absent filter and uses a custom index uid", async () => {
    double.requests.length = 0;
    const custom = new MeilisearchRetrieval({
      url: double.url,
      apiKey: MASTER_KEY,
      indexUid: (t) => `shop_${t.index}-products`,
    });
    await custom.search(target("x"), QUERY);
    expect(double.requests[0]).toMatchObject({
      uid: "shop_x-products",
      body: { q: "red", limit: 2, offset: 0 },
    });
    expect(double.requests[0]?.body).not.toHaveProperty("filter");
  });

  it("maps invalid_search_filter (400) to invalid_request on the field filter, without the index uid", async () => {
    const error = await failure(meili.search(target("products"), { ...QUERY, filter: "color = red" }));
    expect(error.failure).toBe("invalid_request");
    expect(error.field).toBe("filter");
    expect(error.message).toMatch(/^Attribute `color` is not filterable/);
    expect(error.message).not.toContain("acct_a");
  });

  it("maps index_not_found (404) to unavailable: the index exists in our settings, so the backend is at fault", async () => {
    const error = await failure(meili.search(target("missing"), QUERY));
    expect(error.failure).toBe("unavailable");
    expect(error.message).toContain("index_not_found");
  });

  it("maps invalid_api_key (403) and missing_authorization_header (401) to unavailable", async () => {
    const wrong = new MeilisearchRetrieval({ url: double.url, apiKey: "wrong" });
    expect(await failure(wrong.search(target("products"), QUERY))).toMatchObject({ failure: "unavailable" });
    expect((await failure(wrong.search(target("products"), QUERY))).message).toContain("invalid_api_key");
    const none = new MeilisearchRetrieval({ url: double.url, apiKey: "" });
    expect((await failure(none.search(target("products"), QUERY))).message).toContain(
      "missing_authorization_header",
    );
  });

  it("maps a 500 and a non-JSON 502 to unavailable", async () => {
    expect(await failure(meili.search(target("broken"), QUERY))).toMatchObject({ failure: "unavailable" });
    expect(await failure(meili.search(target("proxy"), QUERY))).toMatchObject({ failure: "unavailable" });
  });

  it("maps a slow answer to timeout after timeoutMs", async () => {
    const answered = double.slowSearchesAnswered;
    double.requests.length = 0;
    const error = await failure(meili.search(target("slow"), QUERY));
    expect(error.failure).toBe("timeout");
    expect(error.message).toContain("200 ms");
    // The double got the search and had not answered it (that takes 1,000 ms) when the adapter gave up.
    expect(double.requests).toEqual([expect.objectContaining({ uid: expect.stringMatching(/-slow$/) })]);
    expect(double.slowSearchesAnswered).toBe(answered);
  });

  it("maps a refused connection to unavailable", async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, "127.0.0.1", () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const down = new MeilisearchRetrieval({ url: `http://127.0.0.1:${closed}`, apiKey: MASTER_KEY });
    const error = await failure(down.search(target("products"), QUERY));
    expect(error.failure).toBe("unavailable");
    expect(error.message).toMatch(/could not be reached/);
  });

  it("refuses a 200 without a hits array as unavailable", async () => {
    const odd = new MeilisearchRetrieval({
      url: "http://meili.invalid",
      apiKey: MASTER_KEY,
      fetch: async () => new Response(JSON.stringify({ results: [] }), { status: 200 }),
    });
    expect(await failure(odd.search(target("products"), QUERY))).toMatchObject({ failure: "unavailable" });
  });
  it("passes Meilisearch's search parameters through and maps facets and exhaustive totals", async () => {
    double.requests.length = 0;
    const result = await meili.search(target("products"), {
      q: "red",
      limit: 2,
      offset: 0,
      pagination: { page: 1, hitsPerPage: 2 },
      filter: ["tags = shoes", ["id = 1", "id = 3"]],
      sort: ["title:desc"],
      facets: ["tags", "id"],
      attributesToRetrieve: ["id", "title"],
      attributesToHighlight: ["title"],
      highlightPreTag: "<b>",
      highlightPostTag: "</b>",
      showRankingScore: true,
      matchingStrategy: "all",
      distinct: "title",
      rankingScoreThreshold: 0.2,
    });
    expect(double.requests[0]?.body).toEqual({
      q: "red",
      page: 1,
      hitsPerPage: 2,
      filter: ["tags = shoes", ["id = 1", "id = 3"]],
      sort: ["title:desc"],
      facets: ["tags", "id"],
      attributesToRetrieve: ["id", "title"],
      attributesToHighlight: ["title"],
      highlightPreTag: "<b>",
      highlightPostTag: "</b>",
      showRankingScore: true,
      matchingStrategy: "all",
      distinct: "title",
      rankingScoreThreshold: 0.2,
    });
    expect(result.estimatedTotalHits).toBe(3);
    expect(result.hits[0]).toEqual({
      id: 3,
      title: "Red socks",
      _formatted: { id: "3", title: "<b>Red</b> socks" },
      _rankingScore: 1,
    });
    expect(result.facetDistribution).toEqual({
      tags: { shoes: 1, running: 1, apparel: 1, socks: 1 },
      id: { "1": 1, "2": 1, "3": 1 },
    });
    expect(result.facetStats).toEqual({ id: { min: 1, max: 3 } });
  });

  it("posts a facet search to /indexes/<uid>/facet-search and maps its facetHits", async () => {
    const result = await meili.facetSearch(target("products"), {
      facetName: "tags",
      facetQuery: "s",
      q: "",
      filter: "id > 0",
      matchingStrategy: "all",
      exhaustiveFacetCount: true,
    });
    expect(double.indexRequests.at(-1)?.path).toMatch(/\/facet-search$/);
    expect(result.facetHits).toEqual([
      { value: "shoes", count: 1 },
      { value: "socks", count: 1 },
    ]);
    const unknown = await failure(meili.facetSearch(target("products"), { facetName: "color", q: "" }));
    expect([unknown.failure, unknown.field]).toEqual(["invalid_request", "facetName"]);
    const missing = await failure(meili.facetSearch(target("missing"), { facetName: "tags", q: "" }));
    expect(missing.failure).toBe("unavailable");
  });

  it("maps invalid_search_sort and invalid_search_facets to invalid_request naming the field", async () => {
    const sort = await failure(meili.search(target("products"), { ...QUERY, sort: ["price:asc"] }));
    expect([sort.failure, sort.field]).toEqual(["invalid_request", "sort"]);
    expect(sort.message).toBe(
      "Attribute `price` is not sortable. Available sortable attributes are: `id, title`.",
    );
    const facets = await failure(meili.search(target("products"), { ...QUERY, facets: ["color"] }));
    expect([facets.failure, facets.field]).toEqual(["invalid_request", "facets"]);
  });
});
