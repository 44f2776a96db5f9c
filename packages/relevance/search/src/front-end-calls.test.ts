// The calls InstantSearch (through instant-meilisearch) and the official client make besides a
// POST search, in process over a recording backend: `limit: 0`, GET search and facet search, with
// Meilisearch's error codes naming the field at fault.
import { beforeEach, describe, expect, it } from "vitest";
import { createSearchApp } from "./app.ts";
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_FACET_QUERY_CHARS,
  MAX_QUERY_PARAMS,
  MAX_QUERY_STRING_CHARS,
} from "./limits.ts";
import { RetrievalError } from "./ports.ts";
import { FixedHitsBackend, newKv, putApiKey, putSettings, recordingLogger } from "./test-support/harness.ts";

const ACCOUNT = "acct_aaaaaaaaaaaa";
const KEY = "rk_key_of_account_a";
const HITS = [
  { id: "1", title: "Red running shoes", tags: ["shoes"] },
  { id: "2", title: "Blue shorts", tags: ["apparel"] },
];

let backend: FixedHitsBackend;
let app: ReturnType<typeof createSearchApp>;

beforeEach(async () => {
  const kv = newKv();
  await putApiKey(kv, KEY, ACCOUNT);
  await putSettings(kv, ACCOUNT, "products", { filterable_attributes: ["tags", "brand"] });
  await putSettings(kv, ACCOUNT, "shop", { type: "alias", alias_of: "products" });
  backend = new FixedHitsBackend(HITS, 2);
  app = createSearchApp({ kv, retrieval: backend, log: recordingLogger() });
});

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked field by field.
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await app.request(path, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}
const facetSearch = (body: unknown, index = "products") =>
  call("POST", `/api/v1/indexes/${index}/facet-search`, body);
const getSearch = (query: string) => call("GET", `/api/v1/indexes/products/search?${query}`);

describe("limit 0, as InstantSearch's refinementList asks for facets", () => {
  it("answers no hits with the total and the facets, on search and multi-search", async () => {
    const one = await call("POST", "/api/v1/indexes/products/search", { q: "", limit: 0, facets: ["tags"] });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ hits: [], limit: 0, offset: 0, estimatedTotalHits: 2 });
    const multi = await call("POST", "/api/v1/multi-search", {
      queries: [{ indexUid: "products", q: "", limit: 0, facets: ["tags"] }],
    });
    expect(multi.status).toBe(200);
    expect(multi.body.results[0]).toMatchObject({ hits: [], limit: 0, estimatedTotalHits: 2 });
    expect(backend.calls.map((c) => c.query.limit)).toEqual([0, 0]);
  });

  it("answers hitsPerPage 0 with the totals only", async () => {
    const res = await call("POST", "/api/v1/indexes/products/search", { hitsPerPage: 0 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ hits: [], hitsPerPage: 0, totalHits: 2, totalPages: 0 });
  });
});

describe("GET /api/v1/indexes/{index}/search", () => {
  it("reads the parameters as Meilisearch's searchGet takes them: numbers, booleans, comma-separated lists", async () => {
    const res = await getSearch(
      "q=red%20shoes&limit=5&offset=1&filter=tags%20%3D%20shoes&sort=title:asc,id:desc&facets=tags&attributesToRetrieve=id,%20title&showRankingScore=true&matchingStrategy=all",
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ query: "red shoes", limit: 5, offset: 1 });
    expect(backend.calls[0]?.query).toEqual({
      q: "red shoes",
      limit: 5,
      offset: 1,
      filter: "tags = shoes",
      sort: ["title:asc", "id:desc"],
      facets: ["tags"],
      attributesToRetrieve: ["id", "title"],
      showRankingScore: true,
      matchingStrategy: "all",
    });
  });

  it("pages with page and hitsPerPage, and answers every document without q", async () => {
    const res = await getSearch("page=1&hitsPerPage=1");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ query: "", page: 1, hitsPerPage: 1, totalHits: 2, totalPages: 2 });
  });

  it.each([
    ["limit=ten", "limit", "invalid_search_limit"],
    ["limit=1001", "limit", "invalid_search_limit"],
    ["showRankingScore=yes", "showRankingScore", "invalid_search_show_ranking_score"],
    ["sort=price", "sort[0]", "invalid_search_sort"],
    ["vector=1", "vector", "invalid_search_vector"],
    ["distinct=", "distinct", "invalid_search_distinct"],
    ["__proto__=1", "__proto__", "bad_request"],
  ])("answers 422 naming the parameter for ?%s", async (query, path, code) => {
    const res = await getSearch(query);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(code);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    expect(backend.calls).toEqual([]);
  });

  it(`refuses a query string over ${MAX_QUERY_STRING_CHARS} characters or ${MAX_QUERY_PARAMS} parameters before reading it`, async () => {
    const long = await getSearch(`q=${"a".repeat(MAX_QUERY_STRING_CHARS)}`);
    expect(long.status).toBe(422);
    expect(long.body.message).toContain(String(MAX_QUERY_STRING_CHARS));
    const many = await getSearch(Array.from({ length: MAX_QUERY_PARAMS + 1 }, (_, i) => `p${i}=1`).join("&"));
    expect(many.status).toBe(422);
    expect(many.body.message).toContain(String(MAX_QUERY_PARAMS));
    expect(many.body.error.details[0].path).toBe("query string");
    expect((await getSearch(`q=${"a".repeat(MAX_QUERY_STRING_CHARS - 2)}`)).status).toBe(422); // q over 1,000
    expect(backend.calls).toEqual([]);
  });
});

describe("POST /api/v1/indexes/{index}/facet-search", () => {
  it("answers Meilisearch's shape: facetHits, facetQuery, processingTimeMs", async () => {
    backend.facetHits = [{ value: "Shoes", count: 3 }];
    const res = await facetSearch({ facetName: "tags", facetQuery: "sho", q: "red", filter: "brand = acme" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      facetHits: [{ value: "Shoes", count: 3 }],
      facetQuery: "sho",
      processingTimeMs: expect.any(Number),
    });
    expect(backend.facetCalls[0]?.query).toEqual({
      facetName: "tags",
      facetQuery: "sho",
      q: "red",
      filter: "brand = acme",
    });
  });

  it("answers facetQuery null when none was sent, and accepts exhaustiveFacetCount", async () => {
    const res = await facetSearch({ facetName: "tags", exhaustiveFacetCount: true, matchingStrategy: "all" });
    expect(res.status).toBe(200);
    expect(res.body.facetQuery).toBeNull();
    expect(backend.facetCalls[0]?.query).toEqual({
      facetName: "tags",
      q: "",
      matchingStrategy: "all",
      exhaustiveFacetCount: true,
    });
  });

  it("checks and ignores the search fields that do not bear on facet values, as instant-meilisearch sends them", async () => {
    const res = await facetSearch({
      facetName: "tags",
      limit: 0,
      sort: ["title:asc"],
      attributesToHighlight: ["*"],
      highlightPreTag: "<em>",
      facets: ["tags"],
    });
    expect(res.status).toBe(200);
    expect(backend.facetCalls[0]?.query).toEqual({ facetName: "tags", q: "" });
  });

  it("searches the index an alias points at", async () => {
    expect((await facetSearch({ facetName: "tags" }, "shop")).status).toBe(200);
    expect(backend.facetCalls[0]?.target.index).toBe("products");
    expect((await facetSearch({ facetName: "tags" }, "nothing")).status).toBe(404);
  });

  it.each([
    [{}, "facetName", "missing_facet_search_facet_name"],
    [{ facetName: 3 }, "facetName", "invalid_facet_search_facet_name"],
    [{ facetName: "" }, "facetName", "invalid_facet_search_facet_name"],
    [{ facetName: "x".repeat(MAX_ATTRIBUTE_CHARS + 1) }, "facetName", "invalid_facet_search_facet_name"],
    [
      { facetName: "tags", facetQuery: "x".repeat(MAX_FACET_QUERY_CHARS + 1) },
      "facetQuery",
      "invalid_facet_search_facet_query",
    ],
    [{ facetName: "tags", facetQuery: 1 }, "facetQuery", "invalid_facet_search_facet_query"],
    [{ facetName: "tags", filter: 1 }, "filter", "invalid_search_filter"],
    [{ facetName: "tags", q: "x".repeat(1001) }, "q", "invalid_search_q"],
    [{ facetName: "tags", matchingStrategy: "any" }, "matchingStrategy", "invalid_search_matching_strategy"],
    [{ facetName: "tags", unknown: 1 }, "unknown", "bad_request"],
    [{ facetName: "tags", limit: -1 }, "limit", "invalid_search_limit"],
  ])("answers 422 naming the field for %j", async (body, path, code) => {
    const res = await facetSearch(body);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(code);
    expect(res.body.error.details[0].path).toBe(path);
    expect(backend.facetCalls).toEqual([]);
  });

  it("answers the backend's refusal of a facet that is not filterable as a 422 naming facetName", async () => {
    backend.failWith = new RetrievalError(
      "invalid_request",
      "Attribute `color` is not filterable",
      "facetName",
    );
    const res = await facetSearch({ facetName: "color" });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("invalid_facet_search_facet_name");
    expect(res.body.error.details).toEqual([
      { path: "facetName", message: "Attribute `color` is not filterable" },
    ]);
  });

  it("answers 401 without a key, before any backend work", async () => {
    const res = await app.request("/api/v1/indexes/products/facet-search", {
      method: "POST",
      body: JSON.stringify({ facetName: "tags" }),
    });
    expect(res.status).toBe(401);
    expect(backend.facetCalls).toEqual([]);
  });
});

describe("the official client's search parameters (meilisearch-js SearchParams)", () => {
  const honoured: Record<string, unknown> = {
    q: "red",
    offset: 0,
    limit: 5,
    filter: "tags = shoes",
    sort: ["title:asc"],
    facets: ["tags"],
    attributesToRetrieve: ["id"],
    attributesToHighlight: ["title"],
    highlightPreTag: "<b>",
    highlightPostTag: "</b>",
    attributesToCrop: ["title"],
    cropLength: 5,
    cropMarker: "…",
    matchingStrategy: "all",
    showRankingScore: true,
    distinct: "brand",
    rankingScoreThreshold: 0.5,
  };
  const paged: Record<string, unknown> = { page: 2, hitsPerPage: 5 };
  const refused: Record<string, unknown> = {
    attributesToSearchOn: ["title"],
    hybrid: { embedder: "default" },
    vector: [0.1],
    retrieveVectors: true,
    media: {},
    locales: ["eng"],
    showMatchesPosition: true,
    showRankingScoreDetails: true,
    showPerformanceDetails: true,
    personalize: { userContext: "x" },
    facetName: "tags",
    facetQuery: "s",
  };

  it("passes every one it honours to the backend", async () => {
    for (const [name, value] of Object.entries({ ...honoured, ...paged })) {
      backend.calls.length = 0;
      const body = name in paged ? { [name]: value } : { [name]: value };
      const res = await call("POST", "/api/v1/indexes/products/search", body);
      expect([name, res.status]).toEqual([name, 200]);
      const query = backend.calls[0]?.query as unknown as Record<string, unknown>;
      if (name in paged) expect(query.pagination).toMatchObject({ [name]: value });
      else expect([name, query[name]]).toEqual([name, value]);
    }
  });

  it("refuses every other one with a 422 naming it, with Meilisearch's code for it", async () => {
    for (const [name, value] of Object.entries(refused)) {
      const res = await call("POST", "/api/v1/indexes/products/search", { q: "red", [name]: value });
      expect([name, res.status]).toEqual([name, 422]);
      expect(res.body.error.details).toEqual([{ path: name, message: expect.any(String) }]);
      expect(res.body.message).toContain(name);
      const code = name.startsWith("facet") ? "bad_request" : expect.stringMatching(/^invalid_search_/);
      expect(res.body.code).toEqual(code);
    }
    expect(backend.calls).toEqual([]);
  });
});
