import { MAX_DOCUMENTS_PER_INDEX } from "@relevance/settings";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import { batchSizeProblem } from "./document-batch.ts";
import { MAX_DOCUMENTS_PER_BATCH } from "./limits.ts";
import type { DocumentStore } from "./ports.ts";
import { makeHarness } from "./test-support/harness.ts";

const docs = (n: number, prefix = "d") => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}` }));

describe("documents per batch", () => {
  it("counts the top-level items of the text, strings, arrays and nested commas included", () => {
    expect(batchSizeProblem("[]", 2)).toBeNull();
    expect(batchSizeProblem('[{"a":[1,2,3],"b":"x,y"},{"c":{"d":1,"e":2}}]', 2)).toBeNull();
    expect(batchSizeProblem('["a,b", "c", 3]', 2)?.message).toMatch(/more than the limit of 2 documents/);
    expect(batchSizeProblem(' [ {"s":"\\"],"}, [1,2], {} ]', 3)).toBeNull();
    expect(batchSizeProblem(' [ {"s":"\\"],"}, [1,2], {}, 4 ]', 3)).not.toBeNull();
    // Not an array: the parser and the validator say what is wrong.
    expect(batchSizeProblem('{"a":1}', 0)).toBeNull();
  });

  it("answers 422 naming the limit for one document over it and stores nothing; the limit itself is stored", async () => {
    const h = makeHarness();
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    const over = await h.customer(
      apiKey,
      "POST",
      "/api/v1/indexes/products/documents",
      docs(MAX_DOCUMENTS_PER_BATCH + 1),
    );
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe("validation_failed");
    expect(over.body.error.details).toEqual([
      { path: "", message: expect.stringContaining(`limit of ${MAX_DOCUMENTS_PER_BATCH} documents`) },
    ]);
    const stats = await h.customer(apiKey, "GET", "/api/v1/indexes/products/stats");
    expect(stats.body.numberOfDocuments).toBe(0);
    const at = await h.customer(
      apiKey,
      "POST",
      "/api/v1/indexes/products/documents",
      docs(MAX_DOCUMENTS_PER_BATCH),
    );
    expect(at.status).toBe(202);
    expect(at.body.accepted).toBe(MAX_DOCUMENTS_PER_BATCH);
  });
  it("stops reading a batch once it is over the limit: the rest of the body is never read", async () => {
    const h = makeHarness();
    const { apiKey } = await h.account();
    await h.index(apiKey, "products");
    // 1.4 million tiny documents (about 20 MB), made as they are read, 64 KiB at a time.
    const total = 1_400_000;
    let made = 0;
    let chunks = 0;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        chunks++;
        const parts: string[] = [];
        while (made < total && parts.length < 5000) parts.push(`${made === 0 ? "[" : ","}{"id":${made++}}`);
        controller.enqueue(encoder.encode(parts.join("") + (made === total ? "]" : "")));
        if (made === total) controller.close();
      },
    });
    const res = await h.app.request("/api/v1/indexes/products/documents", {
      method: "POST",
      headers: {
        "x-api-key": apiKey,
        "content-type": "application/json",
        "content-length": String(20_000_000),
      },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(422);
    const answer = (await res.json()) as { error: { details: { path: string; message: string }[] } };
    expect(answer.error.details[0]?.message).toMatch(/more than the limit of 1000 documents/);
    expect(chunks).toBeLessThan(5);
    expect((await h.customer(apiKey, "GET", "/api/v1/indexes/products/stats")).body.numberOfDocuments).toBe(
      0,
    );
  });
});

describe("documents per index", () => {
  /** The real store, reporting an index as holding `held` documents more than it does. */
  function nearlyFull(held: number): DocumentStore & { real: SqliteDocumentStore } {
    const real = new SqliteDocumentStore(openDatabase(":memory:"));
    return {
      real,
      upsert: (...args) => real.upsert(...args),
      count: async (a, i) => held + (await real.count(a, i)),
      countIds: (a, i, ids) => real.countIds(a, i, ids),
      list: (...args) => real.list(...args),
      listJson: (...args) => real.listJson(...args),
      deleteIndex: (...args) => real.deleteIndex(...args),
      revision: (...args) => real.revision(...args),
    };
  }

  it("refuses a batch that would take the index past its bound, whole, with a 422 naming the limit", async () => {
    const documents = nearlyFull(MAX_DOCUMENTS_PER_INDEX - 2);
    const h = makeHarness({ documents });
    const { apiKey, systemAccountId } = await h.account();
    await h.index(apiKey, "products");
    expect((await h.customer(apiKey, "POST", "/api/v1/indexes/products/documents", docs(2))).status).toBe(
      202,
    );
    const over = await h.customer(apiKey, "POST", "/api/v1/indexes/products/documents", docs(2, "new"));
    expect(over.status).toBe(422);
    expect(over.body.error.details[0].message).toMatch(
      new RegExp(
        `from ${MAX_DOCUMENTS_PER_INDEX} to ${MAX_DOCUMENTS_PER_INDEX + 2} documents, more than the limit of ${MAX_DOCUMENTS_PER_INDEX}`,
      ),
    );
    expect(await documents.real.count(systemAccountId, "products")).toBe(2);
    // Replacing documents it holds takes no room.
    const replaced = await h.customer(apiKey, "POST", "/api/v1/indexes/products/documents", [
      { id: "d0", title: "again" },
      { id: "d1", title: "again" },
    ]);
    expect(replaced.status).toBe(202);
  });
});
