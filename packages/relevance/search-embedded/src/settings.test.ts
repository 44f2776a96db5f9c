// The index settings as the embedded engine honours them (docs/search.md, "Compatibility: index settings").

import { RetrievalError, type SearchQuery, type SearchTarget } from "@relevance/search";
import type { Document } from "@relevance/settings";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import { EmbeddedRetrieval } from "./engine.ts";
import { displayedFields } from "./settings.ts";
import { assertSortable } from "./sortable.ts";

function target(overrides: Partial<SearchTarget> = {}): SearchTarget {
  return {
    systemAccountId: "acct",
    index: "products",
    primaryKey: "id",
    searchableAttributes: [],
    filterableAttributes: [],
    ...overrides,
  };
}

async function setup(docs: Document[]) {
  const documents = new SqliteDocumentStore(openDatabase(":memory:"));
  await documents.upsert("acct", "products", "id", docs);
  const engine = new EmbeddedRetrieval({ documents });
  const search = (q: string, t: Partial<SearchTarget> = {}, extra: Partial<SearchQuery> = {}) =>
    engine.search(target(t), { q, limit: 20, offset: 0, ...extra });
  const ids = async (q: string, t: Partial<SearchTarget> = {}, extra: Partial<SearchQuery> = {}) =>
    (await search(q, t, extra)).hits.map((h) => h.id);
  return { engine, search, ids };
}

const typo = (overrides: Partial<NonNullable<SearchTarget["typoTolerance"]>> = {}) => ({
  enabled: true,
  minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
  disableOnWords: [],
  disableOnAttributes: [],
  ...overrides,
});

async function refusal(promise: Promise<unknown>): Promise<RetrievalError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RetrievalError);
  expect((error as RetrievalError).failure).toBe("invalid_request");
  return error as RetrievalError;
}

describe("searchableAttributes", () => {
  const docs = [
    { id: "1", title: "Red lamp", description: "A blue chair", sku: "lamp-9" },
    { id: "2", title: "Blue chair", description: "A red lamp", sku: "chair-1" },
  ];

  it('["*"] searches every string field, like no list at all', async () => {
    const { ids } = await setup(docs);
    expect((await ids("lamp", { searchableAttributes: ["*"] })).sort()).toEqual(["1", "2"]);
    expect(await ids("chair", { searchableAttributes: ["*"] })).toEqual(await ids("chair"));
  });

  it("an ordered list restricts the search and ranks a match in an earlier attribute higher", async () => {
    const { ids } = await setup(docs);
    expect(await ids("lamp", { searchableAttributes: ["title", "description"] })).toEqual(["1", "2"]);
    expect(await ids("lamp", { searchableAttributes: ["description", "title"] })).toEqual(["2", "1"]);
    expect(await ids("lamp", { searchableAttributes: ["description"] })).toEqual(["2"]);
  });
});

describe("displayedAttributes", () => {
  it("returns only the listed fields, the primary key included only when listed; ['*'] returns all", async () => {
    const { search } = await setup([{ id: "1", title: "Lamp", price: 10, author: { name: "A", born: 1 } }]);
    expect((await search("lamp", { displayedAttributes: ["title", "price"] })).hits).toEqual([
      { title: "Lamp", price: 10 },
    ]);
    expect((await search("lamp", { displayedAttributes: ["*"] })).hits).toEqual([
      { id: "1", title: "Lamp", price: 10, author: { name: "A", born: 1 } },
    ]);
    // Hidden fields still count for search.
    expect((await search("lamp", { displayedAttributes: ["price"] })).hits).toEqual([{ price: 10 }]);
  });

  it("keeps a dot path's leaf inside its object", () => {
    const doc = { id: 1, author: { name: "A", born: 1 } };
    expect(displayedFields(doc, ["author.name", "missing"])).toEqual({ author: { name: "A" } });
    expect(doc).toEqual({ id: 1, author: { name: "A", born: 1 } });
  });
});

describe("synonyms", () => {
  const docs = [
    { id: "1", title: "Sofa cover" },
    { id: "2", title: "Couch pillow" },
    { id: "3", title: "Settee legs" },
  ];

  it("one-way: a search for the word also finds its synonyms, not the reverse", async () => {
    const { ids } = await setup(docs);
    const synonyms = { sofa: ["couch"] };
    expect(await ids("sofa", { synonyms })).toEqual(["1", "2"]);
    expect(await ids("couch", { synonyms })).toEqual(["2"]);
    expect(await ids("sofa")).toEqual(["1"]);
  });

  it("multi-way when listed both ways, case-insensitively", async () => {
    const { ids } = await setup(docs);
    const synonyms = { Sofa: ["settee"], settee: ["SOFA"] };
    expect((await ids("sofa", { synonyms })).sort()).toEqual(["1", "3"]);
    expect((await ids("SETTEE", { synonyms })).sort()).toEqual(["1", "3"]);
  });

  it("counts a synonym as the query word it stands for (all words must match)", async () => {
    const { ids } = await setup(docs);
    // "sofa pillow": no document has both words, except through the synonym.
    expect(await ids("sofa pillow", { synonyms: { sofa: ["couch"] } }, { matchingStrategy: "all" })).toEqual([
      "2",
    ]);
  });

  it("refuses a multi-word synonym rather than ignoring it", async () => {
    const { search } = await setup(docs);
    const error = await refusal(search("sofa", { synonyms: { sofa: ["love seat"] } }));
    expect(error.field).toBe("synonyms.sofa");
  });
});

describe("stopWords", () => {
  const docs = [
    { id: "1", title: "The lamp" },
    { id: "2", title: "The chair" },
    { id: "3", title: "A lamp of the desk" },
  ];

  it("leaves stop words out of the query, unless the query has only stop words", async () => {
    const { ids } = await setup(docs);
    // Without stop words, matchingStrategy last keeps "of", the first word: only the desk lamp.
    expect(await ids("of chair")).toEqual(["3"]);
    expect(await ids("of chair", { stopWords: ["of", "THE"] })).toEqual(["2"]);
    expect((await ids("the", { stopWords: ["the"] })).sort()).toEqual(["1", "2", "3"]);
  });
});

describe("typoTolerance", () => {
  const docs = [
    { id: "1", title: "Leather boots" },
    { id: "2", title: "Waterproof raincoat" },
  ];

  it("follows minWordSizeForTypos", async () => {
    const { ids } = await setup(docs);
    // "bots" (4 characters): no typo by default (oneTypo 5), one with oneTypo 4.
    expect(await ids("bots")).toEqual([]);
    expect(
      await ids("bots", { typoTolerance: typo({ minWordSizeForTypos: { oneTypo: 4, twoTypos: 9 } }) }),
    ).toEqual(["1"]);
    // "watreprof" has two typos: allowed from 9 characters, not with twoTypos 10.
    expect(await ids("watreproof")).toEqual(["2"]);
    expect(
      await ids("watreproof", { typoTolerance: typo({ minWordSizeForTypos: { oneTypo: 5, twoTypos: 11 } }) }),
    ).toEqual([]);
  });

  it("a swapped pair of letters needs two typos (MiniSearch counts it as two edits)", async () => {
    const { ids } = await setup([{ id: "1", title: "Running shoes" }]);
    expect(await ids("runnign")).toEqual([]);
    const sizes = { oneTypo: 5, twoTypos: 7 };
    expect(await ids("runnign", { typoTolerance: typo({ minWordSizeForTypos: sizes }) })).toEqual(["1"]);
  });

  it("enabled: false and disableOnWords match exactly", async () => {
    const { ids } = await setup(docs);
    expect(await ids("lether")).toEqual(["1"]);
    expect(await ids("lether", { typoTolerance: typo({ enabled: false }) })).toEqual([]);
    expect(await ids("lether", { typoTolerance: typo({ disableOnWords: ["Lether"] }) })).toEqual([]);
    expect(await ids("raincoet", { typoTolerance: typo({ disableOnWords: ["lether"] }) })).toEqual(["2"]);
  });

  it("refuses disableOnAttributes", async () => {
    const { search } = await setup(docs);
    const error = await refusal(search("boots", { typoTolerance: typo({ disableOnAttributes: ["title"] }) }));
    expect(error.field).toBe("typoTolerance.disableOnAttributes");
  });
});

describe("rankingRules", () => {
  it("accepts the default rules with sort at any position and refuses any other list", async () => {
    const { ids, search } = await setup([{ id: "1", title: "Lamp" }]);
    const rules = ["words", "typo", "proximity", "attribute", "sort", "exactness"];
    expect(await ids("lamp", { rankingRules: rules })).toEqual(["1"]);
    for (let at = 0; at < rules.length; at++) {
      const moved = rules.filter((r) => r !== "sort");
      moved.splice(at, 0, "sort");
      expect(await ids("lamp", { rankingRules: moved })).toEqual(["1"]);
    }
    for (const other of [
      ["typo", "words"],
      [...rules].reverse(),
      [...rules, "price:desc"],
      [...rules, "sort"],
    ]) {
      const error = await refusal(search("lamp", { rankingRules: other }));
      expect(error.field).toBe("rankingRules");
    }
  });
});

describe("sortableAttributes", () => {
  it("assertSortable refuses an unsortable attribute or a malformed expression, naming it", () => {
    const t = { sortableAttributes: ["price", "author.name"] };
    expect(() => assertSortable(t, ["price:asc", "author.name:desc"])).not.toThrow();
    expect(() => assertSortable(t, ["title:asc"])).toThrow(/attribute "title" is not sortable/);
    expect(() => assertSortable(t, ["price"])).toThrow(/must be "attribute:asc"/);
    expect(() => assertSortable({}, ["price:asc"])).toThrow(/sortable attributes are: none/);
    try {
      assertSortable(t, ["title:desc"]);
    } catch (error) {
      expect(error).toMatchObject({ failure: "invalid_request", field: "sort" });
    }
  });
});
