// The embedded engine's Meilisearch search parameters: sort, facets, highlight/crop, ranking score,
// attributesToRetrieve, array filters.

import { MAX_VALUES_PER_FACET, RetrievalError, type SearchQuery, type SearchTarget } from "@relevance/search";
import type { Document } from "@relevance/settings";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import { ColumnBuilder } from "./columns.ts";
import { EmbeddedRetrieval } from "./engine.ts";
import { columnFacets, computeFacets } from "./facets.ts";
import { formatted } from "./highlight.ts";

function target(overrides: Partial<SearchTarget> = {}): SearchTarget {
  return {
    systemAccountId: "acct",
    index: "products",
    primaryKey: "id",
    searchableAttributes: ["title", "description"],
    filterableAttributes: ["brand", "price", "tags", "meta"],
    ...overrides,
  };
}

const DOCS: Document[] = [
  { id: "a", title: "Red shoes", brand: "Acme", price: 50, tags: ["red", "Sale"] },
  { id: "b", title: "Blue shoes", brand: "acme", price: 20, tags: ["blue", "sale"] },
  { id: "c", title: "Red hat", brand: "Hatters", price: 35.5, tags: ["red"] },
  { id: "d", title: "Shoe polish", brand: "Shine", tags: [] },
];

async function engine(docs: Document[] = DOCS): Promise<EmbeddedRetrieval> {
  const documents = new SqliteDocumentStore(openDatabase(":memory:"));
  await documents.upsert("acct", "products", "id", docs);
  return new EmbeddedRetrieval({ documents });
}

const run = async (
  e: EmbeddedRetrieval,
  q: string,
  o: Partial<SearchQuery> = {},
  t: Partial<SearchTarget> = {},
) => e.search(target(t), { q, limit: 20, offset: 0, ...o });

async function refusal(promise: Promise<unknown>): Promise<RetrievalError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RetrievalError);
  return error as RetrievalError;
}

describe("sort", () => {
  it("sorts numbers and strings in both directions, missing values last, ties by ranking", async () => {
    const e = await engine();
    const ids = async (sort: string[], q = "") => (await run(e, q, { sort })).hits.map((h) => h.id);
    expect(await ids(["price:asc"])).toEqual(["b", "c", "a", "d"]);
    expect(await ids(["price:desc"])).toEqual(["a", "c", "b", "d"]);
    // Strings compare case-insensitively; acme = Acme, then price breaks the tie.
    expect(await ids(["brand:asc", "price:desc"])).toEqual(["a", "b", "c", "d"]);
    expect(await ids(["brand:asc", "price:asc"])).toEqual(["b", "a", "c", "d"]);
    // Arrays: the smallest element ascending, the largest descending; an empty array has no value.
    expect(await ids(["tags:asc"])).toEqual(["b", "a", "c", "d"]);
    // Sort applies to the matches of a query, not to every document.
    expect(await ids(["price:asc"], "red")).toEqual(["c", "a"]);
    // The total is unchanged by sorting ("shoe" in "Shoe polish" is one typo away from "shoes").
    const sorted = await run(e, "shoes", { sort: ["price:asc"] });
    expect(sorted.estimatedTotalHits).toBe((await run(e, "shoes")).estimatedTotalHits);
    expect(sorted.hits.map((h) => h.id)).toEqual(["b", "a", "d"]);
  });

  it("refuses an attribute outside sortableAttributes when the target lists them, before any index work", async () => {
    const e = await engine();
    const error = await refusal(run(e, "", { sort: ["price:asc"] }, { sortableAttributes: ["brand"] }));
    expect([error.failure, error.field]).toEqual(["invalid_request", "sort"]);
    expect(error.message).toBe("Attribute `price` is not sortable. Sortable attributes: `brand`.");
    expect(e.stats.builds).toBe(0);
    expect((await run(e, "", { sort: ["brand:asc"] }, { sortableAttributes: ["brand"] })).hits).toHaveLength(
      4,
    );
  });
});

describe("facets", () => {
  it("counts values over every match (not just the page), case-insensitively, with min/max of numbers", async () => {
    const e = await engine();
    const res = await run(e, "", { facets: ["brand", "tags", "price"], limit: 1 });
    expect(res.hits).toHaveLength(1);
    expect(res.facetDistribution).toEqual({
      brand: { Acme: 2, Hatters: 1, Shine: 1 },
      tags: { Sale: 2, blue: 1, red: 2 },
      price: { "20": 1, "35.5": 1, "50": 1 },
    });
    expect(res.facetStats).toEqual({ price: { min: 20, max: 50 } });
    const filtered = await run(e, "red", { facets: ["*"], filter: ["price > 40"] });
    expect(filtered.facetDistribution?.brand).toEqual({ Acme: 1 });
    expect(Object.keys(filtered.facetDistribution ?? {})).toEqual(["brand", "price", "tags", "meta"]);
  });

  it("refuses a facet on an attribute that is not filterable, before any index work", async () => {
    const e = await engine();
    const error = await refusal(run(e, "", { facets: ["title"] }));
    expect([error.failure, error.field]).toEqual(["invalid_request", "facets"]);
    expect(e.stats.builds).toBe(0);
  });

  it(`reports at most ${MAX_VALUES_PER_FACET} values per facet, the first alphabetically, counted once per document`, async () => {
    const docs = Array.from({ length: 500 }, (_, i) => ({
      v: `v${String(i).padStart(3, "0")}`,
      t: ["x", "x", "X"],
    }));
    const { facetDistribution } = await computeFacets(docs, ["v", "t"]);
    const values = Object.keys(facetDistribution.v ?? {});
    expect(values).toHaveLength(MAX_VALUES_PER_FACET);
    expect(values[0]).toBe("v000");
    expect(values.at(-1)).toBe(`v0${MAX_VALUES_PER_FACET - 1}`);
    expect(facetDistribution.t).toEqual({ x: 500 });
    // Numbers come first, in numeric order; only the first are reported, the stats see them all.
    const numbers = await computeFacets(
      Array.from({ length: 500 }, (_, i) => ({ n: 499 - i })),
      ["n"],
    );
    expect(Object.keys(numbers.facetDistribution.n ?? {}).map(Number)).toEqual(
      Array.from({ length: MAX_VALUES_PER_FACET }, (_, i) => i),
    );
    expect(numbers.facetStats.n).toEqual({ min: 0, max: 499 });
  });

  it("counts each search's own matches over one column: values the matches lack are left out, min and max are theirs", async () => {
    const builder = new ColumnBuilder("v");
    const values: unknown[] = [30, "beta", true, 10, "Alpha", false, 20, "gamma", 40, ["beta", 5]];
    for (const v of values) builder.add({ v });
    const column = builder.finish();
    const facets = (docs: number[]) => columnFacets([column], docs);
    // numbers ascending, then false and true, then strings by text
    expect(await facets([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])).toEqual({
      facetDistribution: {
        v: { 5: 1, 10: 1, 20: 1, 30: 1, 40: 1, false: 1, true: 1, Alpha: 1, beta: 2, gamma: 1 },
      },
      facetStats: { v: { min: 5, max: 40 } },
    });
    expect(await facets([3, 6, 7, 1])).toEqual({
      facetDistribution: { v: { 10: 1, 20: 1, beta: 1, gamma: 1 } },
      facetStats: { v: { min: 10, max: 20 } },
    });
    expect(await facets([1, 2])).toEqual({ facetDistribution: { v: { true: 1, beta: 1 } }, facetStats: {} });
    expect(Object.keys((await facets([4, 1, 9])).facetDistribution.v ?? {})).toEqual(["5", "Alpha", "beta"]);
  });
});

describe("highlight, crop, ranking score and attributesToRetrieve", () => {
  it("answers _formatted with the matched words (typos and prefixes included) between the tags", async () => {
    const e = await engine();
    const res = await run(e, "red sho", {
      attributesToHighlight: ["*"],
      attributesToRetrieve: ["id", "title", "price"],
    });
    const hit = res.hits[0] as Record<string, unknown>;
    expect(hit.id).toBe("a");
    expect(hit).not.toHaveProperty("brand");
    expect(hit._formatted).toEqual({ id: "a", title: "<em>Red</em> <em>shoes</em>", price: "50" });
  });

  it("highlights as the engine tokenizes: case and NFKC", () => {
    const terms = new Set(["café", "ｔｅａ".normalize("NFKC")]);
    const out = formatted(
      { t: "CAFÉ and Cafe\u0301, TEA time" },
      { q: "", limit: 1, offset: 0, attributesToHighlight: ["t"] },
      terms,
    );
    expect(out.t).toBe("<em>CAFÉ</em> and <em>Cafe\u0301</em>, <em>TEA</em> time");
  });

  it("crops around the first match with the marker, and leaves short text whole", () => {
    const text = "one two three four five six seven eight nine ten eleven twelve";
    const q = { q: "", limit: 1, offset: 0, attributesToCrop: ["t"], cropLength: 3 };
    expect(formatted({ t: text }, q, new Set(["seven"])).t).toBe("…six seven eight…");
    expect(formatted({ t: text }, q, new Set(["one"])).t).toBe("one two three…");
    expect(formatted({ t: text }, q, new Set()).t).toBe("one two three…");
    expect(formatted({ t: text }, { ...q, cropMarker: "" }, new Set(["twelve"])).t).toBe("ten eleven twelve");
    expect(formatted({ t: "short text" }, q, new Set()).t).toBe("short text");
    expect(
      formatted(
        { t: text },
        { ...q, attributesToHighlight: ["t"], highlightPreTag: "[", highlightPostTag: "]" },
        new Set(["seven"]),
      ).t,
    ).toBe("…six [seven] eight…");
  });

  it("answers _rankingScore from 0 to 1, in ranking order, 1 for a placeholder search", async () => {
    const e = await engine();
    const res = await run(e, "red shoes", { showRankingScore: true });
    const scores = res.hits.map((h) => h._rankingScore as number);
    expect(res.hits.map((h) => h.id)).toEqual(["a", "c"]);
    expect(scores[0]).toBe(1);
    expect(scores[1]).toBeGreaterThan(0);
    expect(scores[1]).toBeLessThan(1);
    expect((await run(e, "", { showRankingScore: true })).hits.every((h) => h._rankingScore === 1)).toBe(
      true,
    );
    expect((await run(e, "red")).hits[0]).not.toHaveProperty("_rankingScore");
  });

  it("filters with arrays: outer AND, inner OR", async () => {
    const e = await engine();
    const ids = async (filter: SearchQuery["filter"]) => (await run(e, "", { filter })).hits.map((h) => h.id);
    expect(await ids(["tags = red", ["brand = acme", "brand = shine"]])).toEqual(["a"]);
    expect(await ids([["price < 30", "price > 40"]])).toEqual(["a", "b"]);
    expect(await ids(["", []])).toEqual(["a", "b", "c", "d"]);
  });
});

describe("matchingStrategy last: the page-only fast path", () => {
  it("answers the same hits, scores and totals as ranking every match", async () => {
    const adjectives = ["red", "blue", "green", "wool", "light"];
    const nouns = ["shoes", "socks", "hat", "jacket"];
    const docs = Array.from({ length: 120 }, (_, i) => ({
      id: `d${String(i).padStart(3, "0")}`,
      title: `${adjectives[i % 5]} ${adjectives[(i * 7) % 5]} ${nouns[i % 4]}`,
      brand: i % 3 === 0 ? "Acme" : "Other",
      price: i,
      same: 1,
    }));
    const e = await engine(docs);
    for (const q of [
      "red shoes",
      "wool socks hat",
      "blue jacket",
      "light",
      "green sho",
      "shoes red",
      "red blue hat",
    ]) {
      for (const filter of [undefined, "brand = Acme"]) {
        for (const limit of [1, 5, 8, 30, 200]) {
          const page = { limit, showRankingScore: true, ...(filter === undefined ? {} : { filter }) };
          // A sort on a value every document shares leaves the relevance order.
          const fast = await run(e, q, { ...page, facets: ["brand", "price"] });
          const full = await run(e, q, { ...page, facets: ["brand", "price"], sort: ["same:asc"] });
          expect(fast.hits).toEqual(full.hits);
          expect(fast.estimatedTotalHits).toBe(full.estimatedTotalHits);
          expect(fast.facetDistribution).toEqual(full.facetDistribution);
          expect(fast.facetStats).toEqual(full.facetStats);
          const plain = await run(e, q, page);
          expect(plain.hits).toEqual(full.hits);
          expect(plain.estimatedTotalHits).toBe(full.estimatedTotalHits);
        }
      }
    }
  });
});

describe("sort with and without the ranking score", () => {
  it("answers the same hits, totals and facets whether or not showRankingScore is asked", async () => {
    const colours = ["red", "blue", "green", "wool"];
    const docs = Array.from({ length: 80 }, (_, i) => ({
      id: `d${String(i).padStart(2, "0")}`,
      title: `${colours[i % 4]} ${colours[(i * 3) % 4]} ${i % 2 ? "shoes" : "hat"}`,
      brand: i % 3 === 0 ? "Acme" : "Other",
      // Unique prices (no ties), and a rank with ties every 4 documents.
      price: (i * 37) % 101,
      rank: Math.floor(i / 4),
    }));
    const e = await engine(docs);
    for (const q of ["red shoes", "blue", "wool hat red", "green sho"]) {
      for (const sort of [
        ["price:asc"],
        ["price:desc"],
        ["brand:asc", "price:desc"],
        ["rank:asc"],
        ["brand:desc"],
      ]) {
        for (const matchingStrategy of ["last", "all"] as const) {
          for (const [offset, limit] of [
            [0, 3],
            [2, 5],
            [0, 100],
          ] as const) {
            for (const rankingRules of [
              undefined,
              ["sort", "words", "typo", "proximity", "attribute", "exactness"],
            ]) {
              const t = rankingRules === undefined ? {} : { rankingRules };
              const request = { sort, matchingStrategy, offset, limit, facets: ["brand"] };
              const quick = await run(e, q, request, t);
              const ranked = await run(e, q, { ...request, showRankingScore: true }, t);
              expect(quick.hits).toEqual(ranked.hits.map(({ _rankingScore, ...hit }) => hit));
              expect(quick.estimatedTotalHits).toBe(ranked.estimatedTotalHits);
              expect(quick.facetDistribution).toEqual(ranked.facetDistribution);
            }
          }
        }
      }
    }
  });
});

describe("pages of a search", () => {
  it("are slices of one large page, ranking scores, totals and facets included, for every matching strategy", async () => {
    const words = ["red", "blue", "green", "wool", "light", "shoes", "socks", "hat"];
    const docs = Array.from({ length: 200 }, (_, i) => ({
      id: `d${String(i).padStart(3, "0")}`,
      title: [0, 1, 2].map((k) => words[(i * (k + 3) + k * 5) % words.length]).join(" "),
      description: i % 7 === 0 ? "red wool" : "plain",
      brand: i % 3 === 0 ? "Acme" : "Other",
    }));
    const e = await engine(docs);
    for (const matchingStrategy of ["last", "all", "frequency"] as const) {
      for (const q of ["red shoes", "wool socks hat", "red blue green hat", "light", "gren sho", "zzz red"]) {
        for (const filter of [undefined, "brand = Acme"]) {
          const o = {
            matchingStrategy,
            showRankingScore: true,
            facets: ["brand"],
            ...(filter ? { filter } : {}),
          };
          const whole = await run(e, q, { ...o, limit: 300 });
          for (const [offset, limit] of [
            [0, 1],
            [0, 4],
            [3, 9],
            [20, 30],
          ] as const) {
            const page = await run(e, q, { ...o, offset, limit });
            expect(page.hits, `${q} ${matchingStrategy} ${filter} ${offset}/${limit}`).toEqual(
              whole.hits.slice(offset, offset + limit),
            );
            expect(page.estimatedTotalHits).toBe(whole.estimatedTotalHits);
            expect(page.facetDistribution).toEqual(whole.facetDistribution);
          }
        }
      }
    }
  });
});

describe("sort as a ranking rule", () => {
  const SORT_FIRST = ["sort", "words", "typo", "proximity", "attribute", "exactness"];
  const ids = async (
    e: EmbeddedRetrieval,
    q: string,
    o: Partial<SearchQuery>,
    t: Partial<SearchTarget> = {},
  ) => (await run(e, q, o, t)).hits.map((h) => h.id);

  const words = [
    { id: "x", title: "Red shoes", price: 90 },
    { id: "y", title: "Red hat", price: 10 },
    { id: "z", title: "Red running shoes", price: 50 },
    { id: "w", title: "Blue hat", price: 1 },
  ];

  it("a sorted search keeps documents matching every word above cheaper ones that match fewer words", async () => {
    const e = await engine(words);
    expect(await ids(e, "red shoes", { sort: ["price:asc"] })).toEqual(["z", "x", "y"]);
    expect(await ids(e, "red shoes", { sort: ["price:desc"] })).toEqual(["x", "z", "y"]);
    // Paging goes on into the lower tier in the same order.
    expect(await ids(e, "red shoes", { sort: ["price:asc"], offset: 2, limit: 1 })).toEqual(["y"]);
    expect(await ids(e, "red shoes", { sort: ["price:asc"], offset: 0, limit: 1 })).toEqual(["z"]);
    // The total and the facets still count every match of the matching strategy.
    const all = await run(e, "red shoes", { sort: ["price:asc"], limit: 1, facets: ["price"] });
    expect(all.estimatedTotalHits).toBe(3);
    expect(all.facetDistribution).toEqual({ price: { "10": 1, "50": 1, "90": 1 } });
  });

  it("with sort first in rankingRules, the cheapest match comes first", async () => {
    const e = await engine(words);
    const t = { rankingRules: SORT_FIRST };
    expect(await ids(e, "red shoes", { sort: ["price:asc"] }, t)).toEqual(["y", "z", "x"]);
    expect(await ids(e, "red shoes", { sort: ["price:asc"], offset: 1, limit: 1 }, t)).toEqual(["z"]);
    // Without a sort in the request the rules rank by relevance alone.
    expect(await ids(e, "red shoes", {}, t)).toEqual(await ids(e, "red shoes", {}));
  });

  it("a sorted search keeps exact matches above cheaper typo matches, unless sort comes before typo", async () => {
    const e = await engine([
      { id: "exact", title: "leather boots", price: 80 },
      { id: "typo", title: "lather boots", price: 5 },
    ]);
    expect(await ids(e, "leather", { sort: ["price:asc"] })).toEqual(["exact", "typo"]);
    const sortBeforeTypo = ["words", "sort", "typo", "proximity", "attribute", "exactness"];
    expect(await ids(e, "leather", { sort: ["price:asc"] }, { rankingRules: sortBeforeTypo })).toEqual([
      "typo",
      "exact",
    ]);
  });

  it("a sorted search keeps matches in an earlier searchable attribute above cheaper ones, unless sort comes before attribute", async () => {
    const e = await engine([
      { id: "title", title: "Desk lamp", description: "For reading", price: 90 },
      { id: "description", title: "Desk", description: "With a lamp", price: 10 },
    ]);
    expect(await ids(e, "lamp", { sort: ["price:asc"] })).toEqual(["title", "description"]);
    const sortBeforeAttribute = ["words", "typo", "proximity", "sort", "attribute", "exactness"];
    expect(await ids(e, "lamp", { sort: ["price:asc"] }, { rankingRules: sortBeforeAttribute })).toEqual([
      "description",
      "title",
    ]);
  });

  it("pages of a sorted search are slices of one large page, for every matching strategy and rule order", async () => {
    const adjectives = ["red", "blue", "green", "wool", "light"];
    const nouns = ["shoes", "socks", "hat", "jacket"];
    const docs = Array.from({ length: 150 }, (_, i) => ({
      id: `d${String(i).padStart(3, "0")}`,
      title: `${adjectives[i % 5]} ${adjectives[(i * 7) % 5]} ${nouns[i % 4]}`,
      description: i % 6 === 0 ? "red shoes" : "plain",
      brand: i % 3 === 0 ? "Acme" : "Other",
      price: (i * 37) % 23,
    }));
    const e = await engine(docs);
    for (const rankingRules of [undefined, SORT_FIRST]) {
      for (const matchingStrategy of ["last", "all", "frequency"] as const) {
        for (const q of ["red shoes", "wool socks hat", "blue", "green sho", "red blue hat"]) {
          for (const sort of [["price:asc"], ["brand:desc", "price:desc"]]) {
            const t = rankingRules === undefined ? {} : { rankingRules };
            const whole = await ids(e, q, { sort, matchingStrategy, limit: 200 }, t);
            for (const [offset, limit] of [
              [0, 1],
              [0, 7],
              [5, 10],
              [30, 20],
            ] as const) {
              const page = await ids(e, q, { sort, matchingStrategy, offset, limit }, t);
              expect(page, `${q} ${sort} ${matchingStrategy} ${offset}/${limit}`).toEqual(
                whole.slice(offset, offset + limit),
              );
            }
          }
        }
      }
    }
  });
});
