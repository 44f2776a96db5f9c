import { describe, expect, it } from "vitest";
import { documentStats } from "./document-stats.ts";
import type { Document } from "./ports.ts";

function store(docs: Document[]) {
  const reads: [number, number][] = [];
  return {
    reads,
    list: async (_account: string, _index: string, offset: number, limit: number) => {
      reads.push([offset, limit]);
      return docs.slice(offset, offset + limit);
    },
  };
}

describe("documentStats", () => {
  it("counts the documents and each top-level field over every page", async () => {
    const s = store([
      { id: 1, title: "a" },
      { id: 2 },
      { id: 3, title: "c", price: 3 },
      { id: 4 },
      { id: 5 },
    ]);
    expect(await documentStats(s, "acct", "products", 2)).toEqual({
      numberOfDocuments: 5,
      fieldDistribution: { id: 5, title: 2, price: 1 },
    });
    expect(s.reads).toEqual([
      [0, 2],
      [2, 2],
      [4, 2],
    ]);
  });

  it("reads one more (empty) page when the last one is full, and answers zero for no documents", async () => {
    const s = store([{ id: 1 }, { id: 2 }]);
    expect(await documentStats(s, "acct", "products", 2)).toEqual({
      numberOfDocuments: 2,
      fieldDistribution: { id: 2 },
    });
    expect(s.reads).toHaveLength(2);
    expect(await documentStats(store([]), "acct", "empty", 500)).toEqual({
      numberOfDocuments: 0,
      fieldDistribution: {},
    });
  });
});
