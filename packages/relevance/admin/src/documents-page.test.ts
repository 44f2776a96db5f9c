import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import type { DocumentStore } from "./ports.ts";
import { makeHarness } from "./test-support/harness.ts";

describe("GET /api/v1/indexes/{name}/documents", () => {
  it("answers the page as before: results in primary-key order, offset, limit, total", async () => {
    const h = makeHarness();
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    const docs = Array.from({ length: 40 }, (_, i) => ({ id: `p${String(i).padStart(3, "0")}`, n: i }));
    expect((await h.customer(apiKey, "POST", "/api/v1/indexes/products/documents", docs)).status).toBe(202);
    const page = await h.customer(apiKey, "GET", "/api/v1/indexes/products/documents?offset=5&limit=30");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^application\/json/);
    expect(page.body).toEqual({ results: docs.slice(5, 35), offset: 5, limit: 30, total: 40 });
    const empty = await h.customer(apiKey, "GET", "/api/v1/indexes/products/documents?offset=100");
    expect(empty.body).toEqual({ results: [], offset: 100, limit: 20, total: 40 });
  });

  it("streams a page instead of holding it whole: the first bytes leave before the last document is read", async () => {
    const db = openDatabase(":memory:");
    const real = new SqliteDocumentStore(db);
    let read = 0;
    const big = "x".repeat(100 * 1024);
    // A store whose page is a thousand 100 KiB documents, made as they are read.
    const documents: DocumentStore = {
      upsert: (...args) => real.upsert(...args),
      count: async () => 1000,
      list: () => Promise.reject(new Error("a page must not be read whole")),
      listJson: async function* () {
        for (let i = 0; i < 1000; i++) {
          read++;
          yield JSON.stringify({ id: `p${i}`, big });
        }
      },
      deleteIndex: (...args) => real.deleteIndex(...args),
      revision: (...args) => real.revision(...args),
    };
    const h = makeHarness({ documents });
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    const res = await h.app.request("/api/v1/indexes/products/documents?limit=1000", {
      headers: { "x-api-key": apiKey },
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value).startsWith('{"results":[')).toBe(true);
    expect(read).toBeLessThan(1000);
    let bytes = first.value?.length ?? 0;
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      bytes += next.value.length;
    }
    expect(read).toBe(1000);
    expect(bytes).toBeGreaterThan(1000 * 100 * 1024);
  });
});

describe("SqliteDocumentStore.listJson", () => {
  it("reads the same page as list, across its batches, for any offset and limit", async () => {
    const store = new SqliteDocumentStore(openDatabase(":memory:"));
    const docs = Array.from({ length: 70 }, (_, i) => ({ id: `d${String(i).padStart(2, "0")}`, v: i }));
    await store.upsert("a", "i", "id", docs);
    for (const [offset, limit] of [
      [0, 1000],
      [0, 16],
      [0, 17],
      [3, 33],
      [15, 16],
      [60, 20],
      [70, 5],
      [90, 5],
    ] as const) {
      const streamed: unknown[] = [];
      for await (const json of store.listJson("a", "i", offset, limit)) streamed.push(JSON.parse(json));
      expect(streamed, `offset ${offset}, limit ${limit}`).toEqual(await store.list("a", "i", offset, limit));
    }
  });
});
