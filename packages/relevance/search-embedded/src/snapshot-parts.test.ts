import { describe, expect, it } from "vitest";
import { loadSnapshot, snapshotParts } from "./snapshot-parts.ts";
import { smallIndex } from "./test-support/small-index.ts";

const content = smallIndex;

const header = { format: 1, config: "c", fields: ["id", "title", "tags"] };
const now = async () => {};

describe("index snapshots", () => {
  it("load back the same postings, statistics, terms and columns, bytes as raw parts", async () => {
    const original = content();
    const parts = [...snapshotParts(original, header)];
    expect(parts.some((part) => part instanceof Uint8Array)).toBe(true);
    const loaded = await loadSnapshot(parts, now);
    expect(loaded.index.data).toEqual(original.index.data);
    expect(loaded.columns).toEqual(original.columns);
    expect([...loaded.index.terms.keys()].sort()).toEqual([...original.index.data.terms].sort());
    expect(loaded.index.runs("red")).toEqual(original.index.runs("red"));
  });

  it("refuse a snapshot whose postings point past the documents, or whose parts are cut short", async () => {
    const original = content();
    const parts = [...snapshotParts(original, header)];
    const at = parts.findIndex((part) => typeof part === "string" && part.startsWith('["docs"'));
    const damaged = [...parts];
    const bytes = new Uint8Array(parts[at + 1] as Uint8Array);
    new DataView(bytes.buffer).setUint32(0, 1000, true);
    damaged[at + 1] = bytes;
    await expect(loadSnapshot(damaged, now)).rejects.toThrow(/document/);
    await expect(loadSnapshot(parts.slice(0, -2), now)).rejects.toThrow(/incomplete/);
    await expect(loadSnapshot([parts[0] as string, '["docs", 0, 4]', "not bytes"], now)).rejects.toThrow(
      /not an index snapshot/,
    );
  });

  it("keep names holding a line break, as a JSON array", async () => {
    const original = content();
    original.index.data.ids[1] = "line\nbreak";
    const loaded = await loadSnapshot([...snapshotParts(original, header)], now);
    expect(loaded.index.data.ids).toEqual(["a", "line\nbreak", "c"]);
  });

  it("find fields holding strings in the order first seen when no list is given", () => {
    expect(content().index.data.fields).toEqual(["id", "title", "tags"]);
    // `c` has no tags: its length there is 0, and MiniSearch's running average counts it.
    const { lengths, averageLengths } = content().index.data;
    expect([...lengths]).toEqual([1, 2, 2, 1, 2, 1, 1, 2, 0]);
    expect(averageLengths[2]).toBeCloseTo((2 + 1) / 2, 12);
  });
});
