// One behaviour suite for every Retrieval adapter: the embedded engine (@relevance/search-embedded)
// and Meilisearch (meilisearch/retrieval.ts, against the local double and, with MEILI_URL/MEILI_KEY,
// a real server). Only what both engines promise is asserted: which documents match (the set, not
// the order: each engine ranks its own way), paging as slices of one order, synonyms, stop words,
// the placeholder search and the total count, facet counts and facet search. Queries say matchingStrategy "all", so no engine's
// fallback to fewer words is involved.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Retrieval, SearchQuery, SearchTarget } from "../ports.ts";
import { RetrievalError } from "../ports.ts";

/** An index for one case: its documents (primary key `id`) and the settings both engines honour. */
export interface ContractIndex {
  documents: Record<string, unknown>[];
  synonyms?: Record<string, string[]>;
  stopWords?: string[];
  filterableAttributes?: string[];
}

/** Loads `index` under `name` into the adapter's engine; answers the retrieval and the target to search. */
export type RetrievalSetup = (
  name: string,
  index: ContractIndex,
) => Promise<{ retrieval: Retrieval; target: SearchTarget }>;

const CATALOGUE = [
  { id: "1", title: "Red running shoes", tags: ["shoes"] },
  { id: "2", title: "Blue running shorts", tags: ["apparel"] },
  { id: "3", title: "Red wool socks", tags: ["socks"] },
  { id: "4", title: "Walnut sofa", tags: ["furniture"] },
  { id: "5", title: "Oak dining table", tags: ["furniture"] },
  { id: "6", title: "The red chair", tags: ["furniture"] },
];

const query = (q: string, extra: Partial<SearchQuery> = {}): SearchQuery => ({
  q,
  limit: 20,
  offset: 0,
  matchingStrategy: "all",
  ...extra,
});

const ids = (hits: Record<string, unknown>[]) => hits.map((hit) => String(hit.id)).sort();

export function retrievalContract(name: string, setup: RetrievalSetup): void {
  describe(`Retrieval contract: ${name}`, () => {
    const run = randomBytes(3).toString("hex");
    let counter = 0;
    const fresh = (index: ContractIndex) => setup(`rc${run}_${++counter}`, index);

    it("finds the documents holding every query word, and counts them", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE });
      const result = await retrieval.search(target, query("red running"));
      expect(ids(result.hits)).toEqual(["1"]);
      expect(result.estimatedTotalHits).toBe(1);
      const red = await retrieval.search(target, query("red"));
      expect(ids(red.hits)).toEqual(["1", "3", "6"]);
      expect(red.estimatedTotalHits).toBe(3);
    });

    it("matches the last word as a prefix", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE });
      expect(ids((await retrieval.search(target, query("blue runn"))).hits)).toEqual(["2"]);
    });

    it("answers every document to an empty query (placeholder search)", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE });
      const all = await retrieval.search(target, query(""));
      expect(ids(all.hits)).toEqual(["1", "2", "3", "4", "5", "6"]);
      expect(all.estimatedTotalHits).toBe(6);
    });

    it("pages with offset and limit as slices of one order", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE });
      const whole = await retrieval.search(target, query("", { limit: 6 }));
      const first = await retrieval.search(target, query("", { limit: 4 }));
      const second = await retrieval.search(target, query("", { offset: 4, limit: 4 }));
      expect([...first.hits, ...second.hits].map((h) => h.id)).toEqual(whole.hits.map((h) => h.id));
      expect(second.hits).toHaveLength(2);
    });

    it("finds a word's synonyms", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE, synonyms: { couch: ["sofa"] } });
      expect(ids((await retrieval.search(target, query("couch"))).hits)).toEqual(["4"]);
    });

    it("ignores stop words in a query", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE, stopWords: ["the"] });
      expect(ids((await retrieval.search(target, query("the oak"))).hits)).toEqual(["5"]);
    });

    it("answers limit 0 with no hits but the total and the facet counts", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE, filterableAttributes: ["tags"] });
      const result = await retrieval.search(target, query("red", { limit: 0, facets: ["tags"] }));
      expect(result.hits).toEqual([]);
      expect(result.estimatedTotalHits).toBe(3);
      expect(result.facetDistribution).toEqual({ tags: { furniture: 1, shoes: 1, socks: 1 } });
    });

    it("facet search: the values starting with the facet query, counted over every document, alphabetically", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE, filterableAttributes: ["tags"] });
      const s = await retrieval.facetSearch(target, { facetName: "tags", facetQuery: "s", q: "" });
      expect(s.facetHits).toEqual([
        { value: "shoes", count: 1 },
        { value: "socks", count: 1 },
      ]);
      const all = await retrieval.facetSearch(target, { facetName: "tags", q: "" });
      expect(all.facetHits.map((h) => h.value)).toEqual(["apparel", "furniture", "shoes", "socks"]);
      expect(all.facetHits.find((h) => h.value === "furniture")?.count).toBe(3);
    });

    it("facet search: counts only the documents q selects, and forgives a typo in a long facet query", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE, filterableAttributes: ["tags"] });
      const red = await retrieval.facetSearch(target, {
        facetName: "tags",
        q: "red",
        matchingStrategy: "all",
      });
      expect(red.facetHits).toEqual([
        { value: "furniture", count: 1 },
        { value: "shoes", count: 1 },
        { value: "socks", count: 1 },
      ]);
      const typo = await retrieval.facetSearch(target, { facetName: "tags", facetQuery: "funiture", q: "" });
      expect(typo.facetHits).toEqual([{ value: "furniture", count: 3 }]);
      const none = await retrieval.facetSearch(target, { facetName: "tags", facetQuery: "xyz", q: "" });
      expect(none.facetHits).toEqual([]);
    });

    it("facet search on an attribute that is not filterable is the client's error, naming facetName", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE, filterableAttributes: ["tags"] });
      const error = await retrieval
        .facetSearch(target, { facetName: "title", q: "" })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetrievalError);
      expect(error).toMatchObject({ failure: "invalid_request", field: "facetName" });
    });

    it("answers no hits, and a total of 0, to a word no document holds", async () => {
      const { retrieval, target } = await fresh({ documents: CATALOGUE });
      const none = await retrieval.search(target, query("xylophone"));
      expect(none.hits).toEqual([]);
      expect(none.estimatedTotalHits).toBe(0);
    });
  });
}
