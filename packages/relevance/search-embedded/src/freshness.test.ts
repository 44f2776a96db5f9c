// Issue 29, item 4: documents written while an index is being built are never missed, and an update
// is searchable on the next search. The build is made to interleave with the writes by a slice
// clock that ends every slice at once (each document indexed in a turn of its own).
import type { SearchTarget } from "@relevance/search";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import { EmbeddedRetrieval } from "./engine.ts";
import { SLICE_MS } from "./slices.ts";

const target: SearchTarget = {
  systemAccountId: "acct",
  index: "products",
  primaryKey: "id",
  searchableAttributes: ["title"],
  filterableAttributes: ["colour"],
  sortableAttributes: [],
};
const query = (q: string, extra: Record<string, unknown> = {}) => ({ q, offset: 0, limit: 1000, ...extra });

async function engine() {
  const documents = new SqliteDocumentStore(openDatabase(":memory:"));
  await documents.upsert(
    "acct",
    "products",
    "id",
    Array.from({ length: 2000 }, (_, i) => ({
      id: `p${String(i).padStart(4, "0")}`,
      title: `chair ${i}`,
      colour: "red",
    })),
  );
  let now = 0;
  const retrieval = new EmbeddedRetrieval({ documents, sliceClock: () => (now += SLICE_MS) });
  return { documents, retrieval };
}

describe("documents written while an index is built", () => {
  it("are all in the index the next search uses: added, updated and deleted ones", async () => {
    const { documents, retrieval } = await engine();
    let turns = 0;
    let writing = true;
    // Writes land between the build's slices, one per turn of the event loop.
    const writes = (async () => {
      for (let i = 0; i < 20; i++) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        turns++;
        await documents.upsert("acct", "products", "id", [
          { id: `new${i}`, title: `lamp ${i}`, colour: "blue" },
        ]);
      }
      await documents.upsert("acct", "products", "id", [{ id: "p1500", title: "sofa", colour: "green" }]);
      await documents.deleteMany("acct", "products", ["p0007"]);
      writing = false;
    })();
    const during = await retrieval.search(target, query("chair"));
    await writes;
    expect(writing).toBe(false);
    // The build really interleaved with the writes (it started before they ended).
    expect(turns).toBeGreaterThan(0);
    expect(during.estimatedTotalHits).toBeGreaterThan(0);
    // The next search sees every write, whatever the build in flight had read.
    const lamps = await retrieval.search(target, query("lamp"));
    expect(lamps.hits.map((hit) => hit.id).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `new${i}`).sort(),
    );
    expect((await retrieval.search(target, query("sofa"))).hits).toEqual([
      { id: "p1500", title: "sofa", colour: "green" },
    ]);
    const chairs = await retrieval.search(target, query("chair"));
    expect(chairs.estimatedTotalHits).toBe(1998);
    expect(chairs.hits.some((hit) => hit.id === "p0007" || hit.id === "p1500")).toBe(false);
    // The columns are rebuilt with the postings: filters see the writes too.
    expect((await retrieval.search(target, query("", { filter: "colour = blue" }))).estimatedTotalHits).toBe(
      20,
    );
  });

  it("makes an update searchable on the search right after the write, with no wait", async () => {
    const { documents, retrieval } = await engine();
    expect((await retrieval.search(target, query("xylophone"))).hits).toEqual([]);
    await documents.upsert("acct", "products", "id", [{ id: "p0042", title: "xylophone", colour: "red" }]);
    expect((await retrieval.search(target, query("xylophone"))).hits.map((hit) => hit.id)).toEqual(["p0042"]);
    expect((await retrieval.search(target, query("chair"))).estimatedTotalHits).toBe(1999);
  });
});
