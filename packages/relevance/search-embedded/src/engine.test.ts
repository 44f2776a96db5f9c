import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { RetrievalError, type SearchQuery, type SearchTarget } from "@relevance/search";
import type { Document } from "@relevance/settings";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EmbeddedRetrieval, fuzziness } from "./engine.ts";
import { SLICE_MS } from "./slices.ts";
import { SqliteIndexSnapshotStore } from "./sqlite-snapshots.ts";

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

function query(q: string, overrides: Partial<SearchQuery> = {}): SearchQuery {
  return { q, limit: 20, offset: 0, ...overrides };
}

async function setup(docs: Document[], index = "products") {
  const db = openDatabase(":memory:");
  const documents = new SqliteDocumentStore(db);
  if (docs.length > 0) await documents.upsert("acct", index, "id", docs);
  const engine = new EmbeddedRetrieval({ documents });
  const ids = async (q: string, t: Partial<SearchTarget> = {}, o: Partial<SearchQuery> = {}) =>
    (await engine.search(target(t), query(q, o))).hits.map((h) => h.id);
  return { db, documents, engine, ids };
}

describe("fuzziness", () => {
  it("allows Meilisearch's default typos: none up to 4 characters, one from 5, two from 9", () => {
    expect(["red", "shoe", "shoes", "runnin", "sneakers", "raincoats", "waterproof"].map(fuzziness)).toEqual([
      0, 0, 1, 1, 1, 2, 2,
    ]);
    expect(fuzziness("日本語")).toBe(0);
  });
});

describe("EmbeddedRetrieval", () => {
  it("tolerates typos scaled to the word's length", async () => {
    const { ids } = await setup([
      { id: "1", title: "Running shoes" },
      { id: "2", title: "Leather boots" },
      { id: "3", title: "Red hat" },
    ]);
    expect(await ids("runnimg shoes")).toEqual(["1"]);
    expect(await ids("runnimg")).toEqual(["1"]);
    expect(await ids("lether boots")).toEqual(["2"]);
    // Three letters or fewer must match exactly (or as a prefix, being the last word).
    expect(await ids("rad")).toEqual([]);
  });

  it("matches the last word as a prefix, and only the last word", async () => {
    const { ids } = await setup([
      { id: "1", title: "Red running shoes" },
      { id: "2", title: "Red hat" },
      { id: "3", title: "Running club" },
    ]);
    expect(await ids("red run", {}, { matchingStrategy: "all" })).toEqual(["1"]);
    expect(await ids("red runn", {}, { matchingStrategy: "all" })).toEqual(["1"]);
    expect((await ids("runn")).sort()).toEqual(["1", "3"]);
    // "runn" is not the last word here: no prefix match, so no document has every word, and
    // "frequency" (which keeps the rarer words) finds only "hat".
    expect(await ids("runn hat", {}, { matchingStrategy: "all" })).toEqual([]);
    expect(await ids("runn hat", {}, { matchingStrategy: "frequency" })).toEqual(["2"]);
  });

  it("ranks a short title with the term above a long description mentioning it once (BM25+)", async () => {
    const filler =
      "A sturdy everyday item made from recycled materials with a lifetime warranty and free returns";
    const { ids } = await setup([
      { id: "1", title: "Outdoor guide", description: `${filler}. Pairs well with boots. ${filler}.` },
      { id: "2", title: "Hiking boots", description: "Waterproof." },
      { id: "3", title: "Camping stove", description: filler },
    ]);
    expect(await ids("boots")).toEqual(["2", "1"]);
  });

  it("ranks exact matches above typo matches and more matched words above fewer", async () => {
    const { ids } = await setup([
      { id: "1", title: "shirts" },
      { id: "2", title: "skirts" },
    ]);
    expect(await ids("skirts")).toEqual(["2", "1"]);
  });

  it("searches only the searchable attributes when the settings name them", async () => {
    const { ids } = await setup([
      { id: "1", title: "Plain mug", brand: "Zebra" },
      { id: "2", title: "Zebra mug", brand: "Acme" },
    ]);
    expect((await ids("zebra")).sort()).toEqual(["1", "2"]);
    expect(await ids("zebra", { searchableAttributes: ["title"] })).toEqual(["2"]);
    expect(await ids("zebra", { searchableAttributes: ["brand"] })).toEqual(["1"]);
  });

  it("indexes every top-level string and string-array field when no attributes are named", async () => {
    const { ids } = await setup([
      { id: "1", tags: ["garden", "tools"], price: 1234, nested: { note: "hidden" } },
      { id: "2", title: "Other" },
    ]);
    expect(await ids("garden")).toEqual(["1"]);
    expect(await ids("1234")).toEqual([]);
    expect(await ids("hidden")).toEqual([]);
    expect(await ids("other")).toEqual(["2"]);
  });

  it("matches as Meilisearch's matching strategies do: last (default), all, frequency", async () => {
    const { ids } = await setup([
      { id: "1", title: "Blue running shoes" },
      { id: "2", title: "Blue hat" },
      { id: "3", title: "Green running shorts" },
      { id: "4", title: "Green running jacket" },
    ]);
    // last: every word first, then the words without the last one, down to the first word alone.
    expect(await ids("blue running")).toEqual(["1", "2"]);
    expect(await ids("blue running wool")).toEqual(["1", "2"]);
    expect(await ids("blue running wool", {}, { matchingStrategy: "last" })).toEqual(["1", "2"]);
    // all: every word or nothing.
    expect(await ids("blue running")).toEqual(["1", "2"]);
    expect(await ids("blue running", {}, { matchingStrategy: "all" })).toEqual(["1"]);
    expect(await ids("blue running wool", {}, { matchingStrategy: "all" })).toEqual([]);
    // frequency: the most frequent word (running: 3 documents) goes first, blue is kept.
    expect(await ids("running blue", {}, { matchingStrategy: "frequency" })).toEqual(["1", "2"]);
    expect(await ids("running blue", {}, { matchingStrategy: "last" })).toEqual(["1", "3", "4"]);
    expect(await ids("wool felt")).toEqual([]);
  });

  it("ignores query words after the tenth", async () => {
    const { ids } = await setup([{ id: "1", title: "Needle" }]);
    const padding = "alpha bravo charlie delta echo foxtrot golf hotel india";
    expect(await ids(`${padding} needle`, {}, { matchingStrategy: "frequency" })).toEqual(["1"]);
    expect(await ids(`${padding} juliet needle`, {}, { matchingStrategy: "frequency" })).toEqual([]);
  });

  it("counts every match and applies offset and limit after ranking", async () => {
    const docs = Array.from({ length: 30 }, (_, i) => ({
      id: `d${String(i).padStart(2, "0")}`,
      title: i % 3 === 0 ? "lamp lamp lamp" : "lamp with a much longer title than the others",
    }));
    const { engine } = await setup(docs);
    const all = await engine.search(target(), query("lamp", { limit: 1000 }));
    expect(all.estimatedTotalHits).toBe(30);
    expect(all.hits).toHaveLength(30);
    expect(all.hits.slice(0, 10).every((h) => h.title === "lamp lamp lamp")).toBe(true);
    const page = await engine.search(target(), query("lamp", { offset: 5, limit: 10 }));
    expect(page.estimatedTotalHits).toBe(30);
    expect(page.hits).toEqual(all.hits.slice(5, 15));
    const past = await engine.search(target(), query("lamp", { offset: 40, limit: 10 }));
    expect(past).toEqual({ hits: [], estimatedTotalHits: 30 });
  });

  it("returns full documents in primary-key order for an empty query (placeholder search)", async () => {
    const { engine } = await setup([
      { id: "b", title: "Second", price: 2 },
      { id: "a", title: "First", price: 1, extra: { deep: [1, 2] } },
      { id: "c", title: "Third", price: 3 },
    ]);
    for (const q of ["", "   ", "?!"]) {
      const result = await engine.search(target(), query(q, { limit: 2 }));
      expect(result).toEqual({
        hits: [
          { id: "a", title: "First", price: 1, extra: { deep: [1, 2] } },
          { id: "b", title: "Second", price: 2 },
        ],
        estimatedTotalHits: 3,
      });
    }
    const filtered = await engine.search(
      target({ filterableAttributes: ["price"] }),
      query("", { filter: "price >= 2" }),
    );
    expect(filtered.hits.map((h) => h.id)).toEqual(["b", "c"]);
  });

  it("answers an index that has no documents with no hits", async () => {
    const { engine } = await setup([]);
    expect(await engine.search(target(), query("anything"))).toEqual({ hits: [], estimatedTotalHits: 0 });
    expect(await engine.search(target(), query(""))).toEqual({ hits: [], estimatedTotalHits: 0 });
  });

  it("filters matches before counting and paging", async () => {
    const { engine } = await setup([
      { id: "1", title: "Red shirt", color: "red", price: 10, sizes: ["s", "m"] },
      { id: "2", title: "Blue shirt", color: "blue", price: 20, sizes: ["m"] },
      { id: "3", title: "Green shirt", color: "green", price: 30, sizes: ["l"] },
      { id: "4", title: "Red scarf", color: "red", price: 5 },
    ]);
    const t = target({ filterableAttributes: ["color", "price", "sizes"] });
    const ids = async (filter: string, q = "shirt") =>
      (await engine.search(t, query(q, { filter }))).hits.map((h) => h.id).sort();
    expect(await ids("color = red")).toEqual(["1"]);
    expect(await ids("color != red")).toEqual(["2", "3"]);
    expect(await ids("price > 10")).toEqual(["2", "3"]);
    expect(await ids("price >= 20")).toEqual(["2", "3"]);
    expect(await ids("price < 20")).toEqual(["1"]);
    expect(await ids("price <= 20")).toEqual(["1", "2"]);
    expect(await ids("color IN [red, green]")).toEqual(["1", "3"]);
    expect(await ids("sizes = m AND price > 10")).toEqual(["2"]);
    expect(await ids("color = green OR (sizes = m AND price < 15)")).toEqual(["1", "3"]);
    const counted = await engine.search(t, query("shirt", { filter: "color != red", limit: 1 }));
    expect(counted.estimatedTotalHits).toBe(2);
    expect(counted.hits).toHaveLength(1);
    // The OR fallback is filtered too.
    expect(await ids("color = red", "red wool")).toEqual(["1", "4"]);
  });

  it("rejects a filter on a non-filterable attribute or with a syntax error as invalid_request on filter", async () => {
    const { engine, documents } = await setup([{ id: "1", title: "x", color: "red", price: 1 }]);
    const list = vi.spyOn(documents, "list");
    const t = target({ filterableAttributes: ["color"] });
    for (const [filter, message] of [
      ["price > 1", /`price` is not filterable.*`color`/],
      ["color = ", /expected a value/],
      ["color = red AND (", /expected an attribute name/],
      ["NOT color = red", /`NOT` is not supported/],
    ] as const) {
      const error = await engine.search(t, query("x", { filter })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetrievalError);
      expect(error).toMatchObject({ failure: "invalid_request", field: "filter" });
      expect((error as Error).message).toMatch(message);
    }
    // A bad filter is refused before any index work.
    expect(list).not.toHaveBeenCalled();
  });

  it("sees upserts and deletes on the next search (revision check)", async () => {
    const { engine, documents, ids } = await setup([{ id: "1", title: "Wooden chair" }]);
    expect(await ids("table")).toEqual([]);
    await documents.upsert("acct", "products", "id", [{ id: "2", title: "Wooden table" }]);
    expect(await ids("table")).toEqual(["2"]);
    await documents.upsert("acct", "products", "id", [{ id: "1", title: "Wooden stool" }]);
    expect(await ids("chair")).toEqual([]);
    expect(await ids("stool")).toEqual(["1"]);
    await documents.deleteIndex("acct", "products");
    expect(await ids("wooden")).toEqual([]);
    expect(engine.stats.builds).toBe(4);
    // An unchanged revision reuses the index.
    await ids("wooden");
    expect(engine.stats.builds).toBe(4);
  });

  it("rebuilds when the searchable attributes change", async () => {
    const { engine, ids } = await setup([{ id: "1", title: "Lamp", brand: "Zebra" }]);
    expect(await ids("zebra", { searchableAttributes: ["title"] })).toEqual([]);
    expect(await ids("zebra", { searchableAttributes: ["title", "brand"] })).toEqual(["1"]);
    expect(engine.stats.builds).toBe(2);
  });

  it("keeps accounts and indexes apart", async () => {
    const { documents, ids } = await setup([{ id: "1", title: "Kettle" }]);
    await documents.upsert("other", "products", "id", [{ id: "9", title: "Kettle" }]);
    await documents.upsert("acct", "archive", "id", [{ id: "8", title: "Kettle" }]);
    expect(await ids("kettle")).toEqual(["1"]);
    expect(await ids("kettle", { systemAccountId: "other" })).toEqual(["9"]);
    expect(await ids("kettle", { index: "archive" })).toEqual(["8"]);
  });

  it("normalizes like the relevance core: NFKC and case (full-width, composed accents, CJK)", async () => {
    const { ids } = await setup([
      { id: "1", title: "Café au lait" },
      { id: "2", title: "Cafe\u0301 noir" },
      { id: "3", title: "東京タワー 限定グッズ" },
    ]);
    expect((await ids("ＣＡＦÉ")).sort()).toEqual(["1", "2"]);
    expect(await ids("café noir", {}, { matchingStrategy: "all" })).toEqual(["2"]);
    expect(await ids("限定グッズ")).toEqual(["3"]);
  });

  it("shares one build between concurrent searches of the same index", async () => {
    const { engine } = await setup([{ id: "1", title: "Desk" }]);
    const results = await Promise.all([1, 2, 3].map(() => engine.search(target(), query("desk"))));
    expect(results.map((r) => r.estimatedTotalHits)).toEqual([1, 1, 1]);
    expect(engine.stats.builds).toBe(1);
  });

  it("keeps at most maxIndexes indexes in memory, evicting the least recently used", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    for (const name of ["a", "b", "c"])
      await documents.upsert("acct", name, "id", [{ id: "1", title: name }]);
    const engine = new EmbeddedRetrieval({ documents, maxIndexes: 2 });
    const search = (index: string) => engine.search(target({ index }), query(index));
    await search("a");
    await search("b");
    await search("a"); // a is now the most recently used
    await search("c"); // evicts b
    expect(engine.stats).toMatchObject({ builds: 3, evictions: 1, inMemory: 2 });
    await search("a");
    expect(engine.stats.builds).toBe(3);
    await search("b"); // rebuilt; evicts c
    expect(engine.stats).toMatchObject({ builds: 4, evictions: 2, inMemory: 2 });
    expect(() => new EmbeddedRetrieval({ documents, maxIndexes: 0 })).toThrow(RangeError);
  });

  it("returns copies, so callers cannot change the cached documents", async () => {
    const { engine } = await setup([{ id: "1", title: "Vase" }]);
    const first = await engine.search(target(), query("vase"));
    (first.hits[0] as Document).title = "changed";
    expect((await engine.search(target(), query("vase"))).hits[0]?.title).toBe("Vase");
  });

  it("accepts numeric primary keys", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    await documents.upsert("acct", "p", "sku", [
      { sku: 7, title: "Bowl" },
      { sku: 3, title: "Bowl set" },
    ]);
    const engine = new EmbeddedRetrieval({ documents });
    const result = await engine.search(target({ index: "p", primaryKey: "sku" }), query("bowl"));
    expect(result.hits.map((h) => h.sku)).toEqual([7, 3]);
  });
});

describe("EmbeddedRetrieval snapshots", () => {
  let dir: string | undefined;
  const open: DatabaseSync[] = [];
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function start(file: string) {
    const db = openDatabase(file);
    open.push(db);
    const documents = new SqliteDocumentStore(db);
    const store = new SqliteIndexSnapshotStore(db);
    const engine = new EmbeddedRetrieval({ documents, store });
    return { db, documents, store, engine };
  }

  it("loads the stored snapshot after a restart with unchanged documents, and rebuilds after a change", async () => {
    dir = mkdtempSync(join(tmpdir(), "embedded-"));
    const file = join(dir, "search.db");
    const first = start(file);
    await first.documents.upsert("acct", "products", "id", [
      { id: "1", title: "Running shoes", color: "red" },
      { id: "2", title: "Rain jacket", color: "blue" },
    ]);
    const t = target({ filterableAttributes: ["color"] });
    const before = await first.engine.search(t, query("runnimg"));
    expect(first.engine.stats).toMatchObject({ builds: 1, snapshotLoads: 0 });
    await first.engine.flush();
    expect(first.engine.stats.snapshotWrites).toBe(1);
    expect(await first.store.get("acct", "products")).toMatchObject({ revision: 1 });

    // A new process: the snapshot is loaded, not rebuilt, and answers the same.
    const second = start(file);
    const list = vi.spyOn(second.documents, "listJson");
    const byId = vi.spyOn(second.documents, "getMany");
    expect(await second.engine.search(t, query("runnimg"))).toEqual(before);
    expect(await second.engine.search(t, query("r", { filter: "color = blue" }))).toMatchObject({
      hits: [{ id: "2" }],
    });
    expect(second.engine.stats).toMatchObject({ builds: 0, snapshotLoads: 1 });
    // No document is read to load the index (its filter columns are in the snapshot); only the
    // hits of each page are, by id.
    expect(list).not.toHaveBeenCalled();
    expect(byId.mock.calls.map((call) => call[2])).toEqual([["1"], ["2"]]);

    // Documents changed since the snapshot: rebuilt, and the snapshot replaced.
    await second.documents.upsert("acct", "products", "id", [{ id: "3", title: "Trail runners" }]);
    const third = start(file);
    expect((await third.engine.search(t, query("trail"))).hits).toEqual([
      { id: "3", title: "Trail runners" },
    ]);
    expect(third.engine.stats).toMatchObject({ builds: 1, snapshotLoads: 0 });
    await third.engine.flush();
    expect(await third.store.get("acct", "products")).toMatchObject({ revision: 2 });

    // Other searchable attributes than the snapshot was built for: rebuilt.
    const fourth = start(file);
    await fourth.engine.search(target({ searchableAttributes: ["color"] }), query("red"));
    expect(fourth.engine.stats).toMatchObject({ builds: 1, snapshotLoads: 0 });
  });

  it("writes the snapshot after the delay, only for the latest build, and never for an empty index", async () => {
    const db = openDatabase(":memory:");
    open.push(db);
    const documents = new SqliteDocumentStore(db);
    const store = new SqliteIndexSnapshotStore(db);
    const put = vi.spyOn(store, "put");
    const engine = new EmbeddedRetrieval({ documents, store, snapshotDelayMs: 20 });
    await engine.search(target(), query("anything"));
    await documents.upsert("acct", "products", "id", [{ id: "1", title: "Jug" }]);
    await engine.search(target(), query("jug"));
    await documents.upsert("acct", "products", "id", [{ id: "2", title: "Jug lid" }]);
    await engine.search(target(), query("jug"));
    expect(put).not.toHaveBeenCalled(); // not on the searches' path
    await vi.waitFor(() => expect(engine.stats.snapshotWrites).toBe(1));
    expect(put).toHaveBeenCalledTimes(1);
    expect(put.mock.calls[0]?.[2].revision).toBe(2);
    await engine.flush();
    expect(put).toHaveBeenCalledTimes(1);
  });

  it("rebuilds from the documents when a snapshot is unreadable, and never lets an older one replace a newer", async () => {
    const db = openDatabase(":memory:");
    open.push(db);
    const documents = new SqliteDocumentStore(db);
    const store = new SqliteIndexSnapshotStore(db);
    await documents.upsert("acct", "products", "id", [{ id: "1", title: "Teapot" }]);
    await store.put("acct", "products", { revision: 1, parts: ["{not json"] });
    const warnings: string[] = [];
    const logger = { info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
    const engine = new EmbeddedRetrieval({ documents, store, logger });
    expect((await engine.search(target(), query("teapot"))).estimatedTotalHits).toBe(1);
    expect(engine.stats).toMatchObject({ builds: 1, snapshotLoads: 0 });
    expect(warnings).toHaveLength(1);

    await store.put("acct", "products", { revision: 5, parts: ["newer", "parts"] });
    await store.put("acct", "products", { revision: 4, parts: ["older"] });
    expect(await store.get("acct", "products")).toEqual({ revision: 5, parts: ["newer", "parts"] });
    expect(await store.get("acct", "missing")).toBeNull();
  });

  it("still answers when the snapshot store fails", async () => {
    const db = openDatabase(":memory:");
    open.push(db);
    const documents = new SqliteDocumentStore(db);
    await documents.upsert("acct", "products", "id", [{ id: "1", title: "Teapot" }]);
    const broken = {
      get: async () => {
        throw new Error("disk");
      },
      put: async () => {
        throw new Error("disk");
      },
    };
    const warnings: string[] = [];
    const logger = { info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
    const engine = new EmbeddedRetrieval({ documents, store: broken, logger });
    expect((await engine.search(target(), query("teapot"))).estimatedTotalHits).toBe(1);
    await engine.flush();
    expect(warnings).toEqual([
      "embedded search: could not read an index snapshot",
      "embedded search: could not store an index snapshot",
    ]);
  });
});

describe("long index work in slices of the event loop", () => {
  /** Runs `work`, counting the event-loop turns (setImmediate callbacks) other requests got meanwhile. */
  async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const value = await work();
    done = true;
    return { value, turns };
  }

  const products = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `p${String(i).padStart(6, "0")}`,
      title: `Rustic chair ${i} oak table w${i % 977} lamp${i % 31}`,
      description: `A sturdy piece number ${i}, ${"fine words ".repeat(5)}`,
    }));

  it("gives each search its own turn of the event loop (a multi-search's queries are not answered in one)", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    await documents.upsert("acct", "products", "id", products(10));
    const engine = new EmbeddedRetrieval({ documents });
    await engine.search(target(), query("chair"));
    const ten = await turnsDuring(() =>
      Promise.all(Array.from({ length: 10 }, () => engine.search(target(), query("chair")))),
    );
    expect(ten.value.every((r) => r.estimatedTotalHits === 10)).toBe(true);
    expect(ten.turns).toBeGreaterThanOrEqual(1);
    db.close();
  });

  it("scores a search of many matches in slices, ranking exactly as in one piece", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    await documents.upsert("acct", "products", "id", products(3000));
    // A clock on which every slice is already used up: each chance to give the loop back is taken.
    let now = 0;
    const sliced = new EmbeddedRetrieval({ documents, sliceClock: () => (now += SLICE_MS) });
    const whole = new EmbeddedRetrieval({ documents, sliceClock: () => 0 });
    const queries = ["c", "rustic", "oak lamp1", "chair w9"].map((q) =>
      query(q, { limit: 30, showRankingScore: true }),
    );
    await sliced.search(target(), query("warm"));
    await whole.search(target(), query("warm"));
    const expected = [];
    for (const q of queries) {
      const one = await turnsDuring(() => whole.search(target(), q));
      // With no slice used up, the search takes only its own first turn.
      expect(one.turns).toBeLessThanOrEqual(1);
      expected.push(one.value);
    }
    for (const [i, q] of queries.entries()) {
      const one = await turnsDuring(() => sliced.search(target(), q));
      expect(one.value).toEqual(expected[i]);
      // 3,000 candidates (every document has "chair"), scored a few hundred per slice.
      if (i === 0) expect(one.turns).toBeGreaterThan(5);
    }
    expect(expected[0]?.estimatedTotalHits).toBe(3000);
    // Searches interleaved slice by slice (sharing the index's scratch marks) rank as one at a time.
    expect(await Promise.all(queries.map((q) => sliced.search(target(), q)))).toEqual(expected);
    db.close();
  });

  it("builds a large index, writes its snapshot in parts and loads it, giving the event loop back throughout", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    const store = new SqliteIndexSnapshotStore(db);
    await documents.upsert("acct", "products", "id", products(5000));
    const engine = new EmbeddedRetrieval({ documents, store, snapshotDelayMs: 60_000 });
    const built = await turnsDuring(() => engine.search(target(), query("rustic chair", { limit: 5 })));
    expect(built.value.estimatedTotalHits).toBe(5000);
    // The build (read, parse, index) let other callbacks run many times: it never held the loop whole.
    expect(built.turns).toBeGreaterThan(5);

    const written = await turnsDuring(() => engine.flush());
    const stored = await store.get("acct", "products");
    expect(stored?.revision).toBe(1);
    const parts = stored?.parts ?? [];
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) expect(part.length).toBeLessThan(2 * 1024 * 1024);
    expect(written.turns).toBeGreaterThanOrEqual(parts.length);

    const again = new EmbeddedRetrieval({ documents, store });
    const loaded = await turnsDuring(() => again.search(target(), query("rustic chair", { limit: 5 })));
    expect(again.stats).toMatchObject({ builds: 0, snapshotLoads: 1 });
    expect(loaded.value).toEqual(built.value);
    expect(loaded.turns).toBeGreaterThan(5);
    db.close();
  });
});
