import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { documentStats } from "../document-stats.ts";
import { openDatabase } from "./database.ts";
import { SqliteDocumentStore } from "./documents.ts";

describe("SqliteDocumentStore", () => {
  it("keeps each index's count and field distribution as it writes, so stats read no document", async () => {
    const store = new SqliteDocumentStore(openDatabase(":memory:"));
    await store.upsert("a", "p", "id", [
      { id: "1", title: "one", price: 1 },
      { id: "2", title: "two" },
      { id: "3", tags: ["x"] },
    ]);
    // A replacement with other fields, a deletion by id, another index and another account.
    await store.upsert("a", "p", "id", [{ id: "2", price: 2, tags: [] }]);
    await store.deleteMany("a", "p", ["3", "9"]);
    await store.upsert("a", "q", "id", [{ id: "1", title: "elsewhere" }]);
    await store.upsert("b", "p", "id", [{ id: "1", colour: "red" }]);
    const list = vi.spyOn(store, "list");
    expect(await documentStats(store, "a", "p", 1000)).toEqual({
      numberOfDocuments: 2,
      fieldDistribution: { id: 2, price: 2, tags: 1, title: 1 },
    });
    expect(list).not.toHaveBeenCalled();
    list.mockRestore();
    // The same as counting every document.
    const scanned = await documentStats({ list: store.list.bind(store) }, "a", "p", 1);
    expect(await store.stats("a", "p")).toEqual(scanned);
    expect(await store.count("a", "p")).toBe(2);
    await store.deleteIndex("a", "p");
    expect(await store.stats("a", "p")).toEqual({ numberOfDocuments: 0, fieldDistribution: {} });
    expect(await store.stats("a", "q")).toEqual({
      numberOfDocuments: 1,
      fieldDistribution: { id: 1, title: 1 },
    });
    expect(await store.stats("b", "p")).toEqual({
      numberOfDocuments: 1,
      fieldDistribution: { id: 1, colour: 1 },
    });
    // Written again after the deletion: counted from zero.
    await store.upsert("a", "p", "id", [{ id: "1", title: "again" }]);
    expect(await store.stats("a", "p")).toEqual({
      numberOfDocuments: 1,
      fieldDistribution: { id: 1, title: 1 },
    });
  });

  it("counts the stats of a database written before it kept them, once, when it opens it", async () => {
    const db = openDatabase(":memory:");
    await new SqliteDocumentStore(db).upsert("a", "p", "id", [{ id: "1", title: "one" }, { id: "2" }]);
    // What an older version left: documents without the stats tables and their triggers.
    db.exec("DROP TABLE document_counts; DROP TABLE document_fields;");
    db.exec(
      "INSERT INTO documents (account, index_name, doc_id, body) VALUES ('a', 'p', '3', '{\"id\":\"3\",\"x\":1}')",
    );
    const reopened = new SqliteDocumentStore(db);
    expect(await reopened.stats("a", "p")).toEqual({
      numberOfDocuments: 3,
      fieldDistribution: { id: 3, title: 1, x: 1 },
    });
    await reopened.upsert("a", "p", "id", [{ id: "4", title: "four" }]);
    expect(await reopened.stats("a", "p")).toEqual({
      numberOfDocuments: 4,
      fieldDistribution: { id: 4, title: 2, x: 1 },
    });
  });

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

  it("reads and deletes documents by id, bumping the revision only when something was deleted", async () => {
    const store = new SqliteDocumentStore(openDatabase(":memory:"));
    await store.upsert("a", "p", "id", [{ id: "1", t: "one" }, { id: 2, t: "two" }, { id: "3" }]);
    await store.upsert("b", "p", "id", [{ id: "1", t: "other account" }]);
    expect(await store.getMany("a", "p", ["2", "1", "9"])).toEqual(
      new Map<string, unknown>([
        ["2", { id: 2, t: "two" }],
        ["1", { id: "1", t: "one" }],
      ]),
    );
    const before = await store.revision("a", "p");
    expect(await store.deleteMany("a", "p", ["9"])).toBe(0);
    expect(await store.revision("a", "p")).toBe(before);
    expect(await store.deleteMany("a", "p", ["1", "2", "1"])).toBe(2);
    expect(await store.revision("a", "p")).toBe(before + 1);
    expect(await store.list("a", "p", 0, 10)).toEqual([{ id: "3" }]);
    expect(await store.count("b", "p")).toBe(1);
  });

  it("writes all documents of a batch or none", async () => {
    const store = new SqliteDocumentStore(openDatabase(":memory:"));
    await expect(store.upsert("a", "p", "id", [{ id: "1" }, { title: "no id" }])).rejects.toThrow(TypeError);
    expect(await store.count("a", "p")).toBe(0);
  });

  it("keeps a per-index revision that every write increments in its own transaction", async () => {
    const store = new SqliteDocumentStore(openDatabase(":memory:"));
    expect(await store.revision("a", "p")).toBe(0);

    await store.upsert("a", "p", "id", [{ id: "1" }, { id: "2" }]);
    expect(await store.revision("a", "p")).toBe(1);
    await store.upsert("a", "p", "id", [{ id: "1", title: "changed" }]);
    expect(await store.revision("a", "p")).toBe(2);

    // Other indexes and accounts have their own revisions.
    await store.upsert("a", "q", "id", [{ id: "1" }]);
    expect(await store.revision("a", "q")).toBe(1);
    expect(await store.revision("b", "p")).toBe(0);
    expect(await store.revision("a", "p")).toBe(2);

    // An empty batch changes nothing, so it does not count.
    await store.upsert("a", "p", "id", []);
    expect(await store.revision("a", "p")).toBe(2);

    // A failed batch rolls its increment back with its documents.
    await expect(store.upsert("a", "p", "id", [{ id: "3" }, { title: "no id" }])).rejects.toThrow(TypeError);
    expect(await store.revision("a", "p")).toBe(2);

    // Deleting counts; the revision survives the delete and keeps growing afterwards.
    await store.deleteIndex("a", "p");
    expect(await store.revision("a", "p")).toBe(3);
    await store.deleteIndex("a", "p");
    expect(await store.revision("a", "p")).toBe(3);
    await store.deleteIndex("a", "never-written");
    expect(await store.revision("a", "never-written")).toBe(0);
    await store.upsert("a", "p", "id", [{ id: "1" }]);
    expect(await store.revision("a", "p")).toBe(4);
  });

  it("shares revisions between stores on the same database file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "documents-"));
    try {
      const file = join(dir, "docs.db");
      const [writerDb, readerDb] = [openDatabase(file), openDatabase(file)];
      const writer = new SqliteDocumentStore(writerDb);
      const reader = new SqliteDocumentStore(readerDb);
      await writer.upsert("a", "p", "id", [{ id: "1" }]);
      expect(await reader.revision("a", "p")).toBe(1);
      writerDb.close();
      readerDb.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
