// The embedded engine expands query words itself (expandWord, searchWords) so that each word's
// typo and prefix matching is bounded. Within the bounds it must rank exactly as MiniSearch's own
// expansion did; beyond them, work must not grow with the word, the vocabulary or the query.

import { growth } from "@relevance/core/test-support/growth";
import { MAX_EXPANSIONS_PER_WORD, MAX_PREFIX_SCAN, MAX_QUERY_WORDS } from "@relevance/search";
import type { Document } from "@relevance/settings";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import fc from "fast-check";
import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import {
  EmbeddedRetrieval,
  expandWord,
  matchWords,
  searchWords,
  UNBOUNDED_SEARCH_OPTIONS,
} from "./engine.ts";
import { buildTypedIndex, type TypedIndex } from "./typed-index.ts";

const split = (text: string) => text.split(" ").filter((t) => t !== "");

/** The engine's index of the same documents as MiniSearch's (ids "0", "1", ...). */
function typed(docs: Record<string, unknown>[], fields: string[]): TypedIndex {
  return buildTypedIndex(
    docs.map((doc, i) => [String(i), doc]),
    {
      fields,
      text: (doc, f) => (typeof doc[f] === "string" ? (doc[f] as string) : undefined),
      tokenize: split,
    },
  );
}

function index(titles: string[]): MiniSearch<Document> {
  const search = new MiniSearch<Document>({
    fields: ["title"],
    storeFields: [],
    tokenize: (text) => text.split(" ").filter((t) => t !== ""),
    processTerm: (term) => term,
  });
  search.addAll(titles.map((title, i) => ({ id: String(i), title })));
  return search;
}

/** MiniSearch's term index, as the engine reads it. */
const termIndex = (search: MiniSearch<Document>) =>
  (search as unknown as { _index: Parameters<typeof expandWord>[0] })._index;

describe("searchWords within the bounds", () => {
  // A small alphabet makes typo and prefix matches (and their overlaps) frequent.
  const word = fc.string({ unit: fc.constantFrom("a", "b", "c", "d"), minLength: 1, maxLength: 7 });

  it("ranks and scores exactly as MiniSearch's own typo and prefix matching", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(word, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 30 }),
        fc.array(word, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("AND" as const, "OR" as const),
        (docs, words, combineWith) => {
          const titles = docs.map((d) => d.join(" "));
          const search = index(titles);
          const ours = searchWords(
            typed(
              titles.map((title) => ({ title })),
              ["title"],
            ),
            words,
            combineWith,
          );
          const theirs = search.search(words.join(" "), { ...UNBOUNDED_SEARCH_OPTIONS, combineWith });
          expect(ours.map((r) => r.id).sort()).toEqual(theirs.map((r) => r.id).sort());
          const score = new Map(theirs.map((r) => [r.id, r.score]));
          for (const r of ours) expect(r.score).toBeCloseTo(score.get(r.id) as number, 9);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("scoring from the postings", () => {
  const word = fc.string({ unit: fc.constantFrom("a", "b", "c", "d"), minLength: 1, maxLength: 7 });
  const text = fc.array(word, { minLength: 0, maxLength: 5 }).map((w) => w.join(" "));

  function twoFields(docs: { title: string; tags: string }[]): MiniSearch<Document> {
    const search = new MiniSearch<Document>({
      fields: ["title", "tags"],
      storeFields: [],
      tokenize: (t) => t.split(" ").filter((x) => x !== ""),
      processTerm: (term) => term,
    });
    search.addAll(docs.map((d, i) => ({ id: String(i), ...d })));
    return search;
  }

  it("scores several fields with boosts exactly as MiniSearch's own typo and prefix matching", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ title: text, tags: text }), { minLength: 1, maxLength: 30 }),
        fc.array(word, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("AND" as const, "OR" as const),
        (docs, words, combineWith) => {
          const search = twoFields(docs);
          const boost = { title: 2, tags: 1 };
          const ours = searchWords(typed(docs, ["title", "tags"]), words, combineWith, undefined, { boost });
          const theirs = search.search(words.join(" "), { ...UNBOUNDED_SEARCH_OPTIONS, combineWith, boost });
          expect(ours.map((r) => r.id).sort()).toEqual(theirs.map((r) => r.id).sort());
          const score = new Map(theirs.map((r) => [r.id, r.score]));
          for (const r of ours) expect(r.score).toBeCloseTo(score.get(r.id) as number, 9);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a search requiring the first k words finds the OR search's documents matching them, with the same scores", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ title: text, tags: text }), { minLength: 1, maxLength: 30 }),
        // Distinct words: a repeated word shares its first position's bit, but only the last
        // position gets prefix matches, so "matched the first word" would be ambiguous.
        fc.uniqueArray(word, { minLength: 1, maxLength: 4 }),
        fc.nat(4),
        (docs, words, k) => {
          const search = typed(docs, ["title", "tags"]);
          const leading = Math.min(k, words.length);
          const any = matchWords(search, words, 0);
          const required = matchWords(search, words, leading);
          const firstK = words
            .slice(0, leading)
            .reduce((mask, _, i) => mask | (1 << (any.canonical[i] as number)), 0);
          const expected = new Map<number, number>();
          any.shortIds.forEach((id, r) => {
            if (((any.masks[r] as number) & firstK) === firstK) expected.set(id, any.scores[r] as number);
          });
          expect(
            new Map(Array.from(required.shortIds, (id, r) => [id, required.scores[r] as number])),
          ).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("expansion bounds", () => {
  it("keeps at most 50 expansions of a one-letter prefix and examines at most 2000 index terms", () => {
    const titles = Array.from({ length: 10_000 }, (_, i) => `s${i.toString(36)}x`);
    const real = termIndex(index(titles));
    let examined = 0;
    const counting = {
      *atPrefix(prefix: string) {
        for (const entry of real.atPrefix(prefix)) {
          examined++;
          yield entry;
        }
      },
      fuzzyGet: (term: string, d: number) => real.fuzzyGet(term, d),
    };
    const terms = expandWord(counting, "s", true);
    expect(terms.size).toBe(1 + MAX_EXPANSIONS_PER_WORD);
    expect(examined).toBeLessThanOrEqual(MAX_PREFIX_SCAN + 1);
    // The closest completions are kept: the shortest ones.
    const kept = [...terms.keys()].slice(1);
    expect(Math.max(...kept.map((t) => t.length))).toBeLessThanOrEqual(4);
  });

  it("matches a word longer than 64 characters exactly: no typo or prefix search at all", () => {
    const calls: string[] = [];
    const spy = {
      atPrefix: (p: string) => {
        calls.push(`prefix ${p.length}`);
        return [];
      },
      fuzzyGet: (t: string) => {
        calls.push(`fuzzy ${t.length}`);
        return new Map();
      },
    };
    expect([...expandWord(spy, "x".repeat(65), true).keys()]).toEqual(["x".repeat(65)]);
    expect(calls).toEqual([]);
    expandWord(spy, "x".repeat(64), true);
    expect(calls).toEqual(["prefix 64", "fuzzy 64"]);
  });
});

describe("EmbeddedRetrieval with adversarial queries", () => {
  async function engine() {
    const documents = new SqliteDocumentStore(openDatabase(":memory:"));
    const docs = Array.from({ length: 500 }, (_, i) => ({
      id: String(i),
      title: `red running shoe ${i} s${i}x`,
    }));
    await documents.upsert("acct", "products", "id", docs);
    const retrieval = new EmbeddedRetrieval({ documents });
    const target = {
      systemAccountId: "acct",
      index: "products",
      primaryKey: "id",
      searchableAttributes: ["title"],
      filterableAttributes: [],
    };
    const search = (q: string) => retrieval.search(target, { q, limit: 20, offset: 0 });
    await search("warm up");
    return { search };
  }

  it("answers one 100 KB word, and a search right after still works", async () => {
    const { search } = await engine();
    expect((await search("x".repeat(100 * 1024))).hits).toEqual([]);
    expect((await search("runing shoe")).hits.length).toBeGreaterThan(0);
  });

  it("answers 100,000 words from the first 10 only, and a search right after still works", async () => {
    const { search } = await engine();
    const many = await search(`red running ${"zzz ".repeat(100_000)}`);
    const ten = await search(`red running ${"zzz ".repeat(MAX_QUERY_WORDS - 2)}`);
    expect(many).toEqual(ten);
    expect((await search("red shoe")).hits.length).toBeGreaterThan(0);
  });

  it("costs time linear in the length of one long word (typo search is skipped past 64 characters)", async () => {
    // The search of a 100,000-character word answers (empty) ...
    const { search } = await engine();
    expect((await search("y".repeat(100_000))).hits).toEqual([]);
    // ... and expanding a word, the part that grows with it, costs CPU time linear in its length:
    // 100 times the word, 100 to a few hundred times the time; a typo search over it would be
    // quadratic (10,000 times). Measured as a ratio of CPU times, never against a wall clock.
    const terms = termIndex(index(["yak yam yard yarn yawn", "red running shoes"]));
    const work = (word: string) => expandWord(terms, word, true);
    expect(growth(work, "y".repeat(1000), "y".repeat(100_000), 2000)).toBeLessThan(2000);
  });

  it("expands a word at the same cost whatever the index holds beyond the prefix scan", () => {
    const small = termIndex(index(Array.from({ length: 3000 }, (_, i) => `s${i.toString(36)}`)));
    const large = termIndex(index(Array.from({ length: 30_000 }, (_, i) => `s${i.toString(36)}`)));
    const work = (t: Parameters<typeof expandWord>[0]) => expandWord(t, "s", true);
    expect(growth(work, small, large, 5)).toBeLessThan(5);
  });
});

describe("the work a tenant's settings add to one search", () => {
  /** 1,000 documents with a title, indexed over `fields` searchable attributes (the title first). */
  function indexOver(fields: number): TypedIndex {
    const words = ["oak", "chair", "table", "lamp", "steel", "marble", "rustic", "modern", "sofa", "desk"];
    return typed(
      Array.from({ length: 1000 }, (_, i) => ({
        title: `${words[i % 10]} ${words[(i * 7 + 3) % 10]} item${i}`,
      })),
      ["title", ...Array.from({ length: fields - 1 }, (_, i) => `f${i}`)],
    );
  }

  it("does not grow with the searchable attributes a term is not in, nor with synonyms no document holds", () => {
    const indexes = new Map([10, 500].map((n) => [n, indexOver(n)]));
    const words = ["oak", "chair", "table", "lamp", "steel", "marble", "rustic", "modern", "sofa", "desk"];
    const synonyms = new Map(words.map((w) => [w, Array.from({ length: 100 }, (_, i) => `${w}syn${i}`)]));
    const boost = Object.fromEntries(
      ["title", ...Array.from({ length: 499 }, (_, i) => `f${i}`)].map((f, i) => [f, 500 - i]),
    );
    const work = (fields: number) =>
      matchWords(indexes.get(fields) as TypedIndex, words, 0, undefined, { synonyms, boost }).shortIds.length;
    expect(work(10)).toBe(1000);
    expect(work(500)).toBe(1000);
    // Fifty times the searchable attributes: about the same work (was fifty times more).
    expect(growth(work, 10, 500, 3)).toBeLessThan(5);
  });
});
