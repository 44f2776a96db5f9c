// The engine reads and fills MiniSearch's private fields (postings.ts scores from them,
// snapshot-parts.ts saves and restores them, slices.ts swaps their maps for ones that grow without
// rehashing). They are no API: the version is pinned exactly in package.json, and this test fails
// the day an upgrade changes the name, type or layout of any field the engine touches.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";

describe("MiniSearch's internals the engine depends on", () => {
  it("is the pinned version", () => {
    // minisearch's exports do not include its package.json: read it beside its resolved entry.
    const entry = createRequire(import.meta.url).resolve("minisearch");
    let dir = dirname(entry);
    while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version).toBe("7.2.0");
  });

  it("keeps every field the engine reads, with the types and layout it expects", () => {
    const search = new MiniSearch<{ id: string; title: string; tags: string }>({ fields: ["title", "tags"] });
    search.addAll([
      { id: "a", title: "red shoes", tags: "sale" },
      { id: "b", title: "blue shoes shoes", tags: "" },
    ]);
    const s = search as unknown as Record<string, unknown>;
    expect(s._documentCount).toBe(2);
    expect(s._nextId).toBe(2);
    expect(s._fieldIds).toEqual({ title: 0, tags: 1 });
    // Field lengths count distinct terms (7.2.0 counts an empty field as one).
    expect(s._avgFieldLength).toEqual([2, 1]);
    expect(s._dirtCount).toBe(0);
    expect(s._options).toMatchObject({ fields: ["title", "tags"] });
    expect([...(s._documentIds as Map<number, string>)]).toEqual([
      [0, "a"],
      [1, "b"],
    ]);
    expect([...(s._idToShortId as Map<string, number>)]).toEqual([
      ["a", 0],
      ["b", 1],
    ]);
    expect([...(s._fieldLength as Map<number, number[]>)]).toEqual([
      [0, [2, 1]],
      [1, [2, 1]],
    ]);
    // The postings: term → field id → short id → frequency, in a radix tree with get, set and iteration.
    const index = s._index as {
      get(term: string): Map<number, Map<number, number>> | undefined;
      set(term: string, v: Map<number, Map<number, number>>): unknown;
      [Symbol.iterator](): Iterator<[string, Map<number, Map<number, number>>]>;
    };
    expect(typeof index.set).toBe("function");
    expect(index.get("shoes")).toEqual(
      new Map([
        [
          0,
          new Map([
            [0, 1],
            [1, 2],
          ]),
        ],
      ]),
    );
    expect([...index].map(([term]) => term).sort()).toEqual(["blue", "red", "sale", "shoes"]);
    // Word expansion walks the same tree: terms by prefix, and by edit distance with the distance.
    const tree = s._index as {
      atPrefix(prefix: string): Iterable<[string, unknown]>;
      fuzzyGet(term: string, maxDistance: number): Map<string, [unknown, number]>;
    };
    expect([...tree.atPrefix("s")].map(([term]) => term).sort()).toEqual(["sale", "shoes"]);
    expect([...tree.fuzzyGet("shoe", 1)].map(([term, [, distance]]) => [term, distance])).toEqual([
      ["shoes", 1],
    ]);
  });
});
