// The Worker bundle in real workerd (Miniflare) driven by the official `meilisearch` client, over
// the LOCAL DOUBLE of the Meilisearch API (not Meilisearch): the same calls a new user makes.
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "@relevance/search/meilisearch/test-support";
import { putApiKey, putSettings } from "@relevance/search/test-support";
import { Meilisearch, MeilisearchApiError } from "meilisearch";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, startWorker } from "./test-support.ts";

const ACCOUNT = "acct_0123456789ab";
const API_KEY = "rk_worker_compat_key";

let mf: Miniflare;
let meili: MeilisearchDouble;
let host: string;
let client: Meilisearch;

beforeAll(async () => {
  meili = await startMeilisearchDouble();
  const started = await startWorker(await bundleWorker(), {
    MEILISEARCH_URL: meili.url,
    MEILISEARCH_API_KEY: MASTER_KEY,
    KV_TIMEOUT_MS: "1000",
  });
  mf = started.mf;
  await putApiKey(started.kv, API_KEY, ACCOUNT);
  await putSettings(started.kv, ACCOUNT, "products", { filterable_attributes: ["tags", "id"] });
  host = `${(await mf.ready).origin}/api/v1`;
  client = new Meilisearch({ host, apiKey: API_KEY });
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await meili?.close();
});

describe("the official meilisearch client against the Worker (Meilisearch double behind it)", () => {
  it("searches with sort, facets, page/hitsPerPage, attributesToRetrieve, highlight and ranking score", async () => {
    meili.requests.length = 0;
    const res = await client.index("products").search("red", {
      sort: ["title:desc"],
      facets: ["tags", "id"],
      page: 1,
      hitsPerPage: 2,
      attributesToRetrieve: ["id", "title"],
      attributesToHighlight: ["title"],
      showRankingScore: true,
      filter: ["tags = socks", ["id = 1", "id = 3"]],
    });
    expect(res.hits.map((h) => h.id)).toEqual([3, 1]);
    expect(res.hits[0]?._formatted).toEqual({ id: "3", title: "<em>Red</em> socks" });
    expect(res.hits[0]?._rankingScore).toBe(1);
    expect(res).toMatchObject({ page: 1, hitsPerPage: 2, totalHits: 3, totalPages: 2 });
    expect(res.facetStats).toEqual({ id: { min: 1, max: 3 } });
    expect(res.facetDistribution?.tags).toEqual({ shoes: 1, running: 1, apparel: 1, socks: 1 });
    // The Worker passed the request on as Meilisearch takes it, to the account's index uid.
    expect(meili.requests[0]?.uid).toBe(`${ACCOUNT}-products`);
    expect(meili.requests[0]?.body).toMatchObject({
      q: "red",
      page: 1,
      hitsPerPage: 2,
      sort: ["title:desc"],
    });
  });

  it("runs a multi-search and answers health and version", async () => {
    const res = await client.multiSearch({
      queries: [
        { indexUid: "products", q: "red", limit: 1 },
        { indexUid: "products", q: "blue", offset: 1, limit: 1 },
      ],
    });
    expect(res.results.map((r) => [r.indexUid, r.hits.length, r.estimatedTotalHits])).toEqual([
      ["products", 1, 976],
      ["products", 1, 976],
    ]);
    expect(await new Meilisearch({ host }).health()).toEqual({ status: "available" });
    expect((await client.getVersion()).pkgVersion).toEqual(expect.any(String));
  });

  it("raises MeilisearchApiError with the backend's code and message for a sort it refuses", async () => {
    const error = await client
      .index("products")
      .search("red", { sort: ["price:asc"] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MeilisearchApiError);
    const api = error as MeilisearchApiError;
    expect(api.cause?.code).toBe("invalid_search_sort");
    expect(api.message).toContain("Attribute `price` is not sortable");
    expect(api.response.status).toBe(422);
  });

  it("searches with limit 0 for the facets alone, and with searchGet", async () => {
    meili.requests.length = 0;
    const facetsOnly = await client.index("products").search("", { limit: 0, facets: ["tags"] });
    expect(facetsOnly.hits).toEqual([]);
    expect(facetsOnly.facetDistribution?.tags).toEqual({ shoes: 1, running: 1, apparel: 1, socks: 1 });
    expect(meili.requests[0]?.body).toMatchObject({ limit: 0, facets: ["tags"] });
    const got = await client
      .index("products")
      .searchGet("red", { limit: 1, attributesToRetrieve: ["id"], sort: ["title:asc"] });
    expect(got.hits).toEqual([{ id: 2 }]);
    expect(meili.requests[1]?.body).toMatchObject({
      q: "red",
      limit: 1,
      attributesToRetrieve: ["id"],
      sort: ["title:asc"],
    });
  });

  it("searches facet values through the Worker, and passes distinct on to Meilisearch", async () => {
    const values = await client
      .index("products")
      .searchForFacetValues({ facetName: "tags", facetQuery: "s" });
    expect(values.facetHits).toEqual([
      { value: "shoes", count: 1 },
      { value: "socks", count: 1 },
    ]);
    expect(values.facetQuery).toBe("s");
    const refused = await client
      .index("products")
      .searchForFacetValues({ facetName: "colour" })
      .catch((e: unknown) => e as MeilisearchApiError);
    expect((refused as MeilisearchApiError).cause?.code).toBe("invalid_facet_search_facet_name");
    expect((refused as MeilisearchApiError).response.status).toBe(422);
    meili.requests.length = 0;
    await client.index("products").search("red", { distinct: "title", rankingScoreThreshold: 0.1 });
    expect(meili.requests[0]?.body).toMatchObject({ distinct: "title", rankingScoreThreshold: 0.1 });
  });
});
