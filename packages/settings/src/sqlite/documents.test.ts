import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.ts";
import { SqliteDocumentStore } from "./documents.ts";

describe("SqliteDocumentStore", () => {
  it("upserts by primary key, counts, lists in id order and deletes one index only", async () => {
    const store = new SqliteDocumentStore(openDatabase(":memory:"));
    await store.upsert("a", "products", "id", [
      { id: "b", title: "second" },
      { id: "a", title: "first" },
    ]);
    await store.upsert("a", "products", "id", [{ id: "b", title: "replaced" }]);
    await store.upsert("a", "other", "sku", [{ sku: 7, title: "elsewhere" }]);
    await store.upsert("b", "products", "id", [{ id: "a", title: "another account" }]);

    expect(await store.count("a", "products")).toBe(2);
    expect(await store.list("a", "products", 0, 10)).toEqual([
      { id: "a", title: "first" },
      { id: "b", title: "replaced" },
    ]);
    expect(await store.list("a", "products", 1, 1)).toEqual([{ id: "b", title: "replaced" }]);

    await store.deleteIndex("a", "products");
    expect(await store.count("a", "products")).toBe(0);
    expect(await store.count("a", "other")).toBe(1);
    expect(await store.count("b", "products")).toBe(1);
  });

  it("writes all documents of a batch or none", async () => {
    const store = new SqliteDocumentStore(openDatabase(":memory:"));
    await expect(store.upsert("a", "p", "id", [{ id: "1" }, { title: "no id" }])).rejects.toThrow(TypeError);
    expect(await store.count("a", "p")).toBe(0);
  });
});
