// The admin and customer APIs on a full disk, as the embedded stack runs them (the SQLite settings
// table and document store, the embedded index manager, each write's task waited for): a write that
// cannot be stored answers 507 no_space_left_on_device and stores nothing, reads keep working, and
// writes are taken again once there is room. Task numbers count per account.
import { MeilisearchIndexManager } from "@relevance/search/meilisearch";
import { MASTER_KEY, startMeilisearchDouble } from "@relevance/search/meilisearch/test-support";
import { EmbeddedIndexManager } from "@relevance/search-embedded";
import { SqliteDocumentStore } from "@relevance/settings/sqlite";
import { fillDisk, freeDisk } from "@relevance/settings/test-support/disk-full";
import { describe, expect, it } from "vitest";
import { createApiApp } from "./app.ts";
import { createCustomerApp } from "./customer-routes.ts";
import { makeHarness, type Reply } from "./test-support/harness.ts";

const FULL = {
  error: {
    code: "no_space_left_on_device",
    message: expect.stringMatching(
      /^there is no space left on the device: .*; free disk space and send it again/,
    ),
  },
};

function setup(options: { documents?: (real: SqliteDocumentStore) => SqliteDocumentStore } = {}) {
  const h = makeHarness();
  const real = new SqliteDocumentStore(h.db);
  const documents = options.documents?.(real) ?? real;
  const manager = new EmbeddedIndexManager({ db: h.db, documents });
  const app = createApiApp({
    ...h.deps,
    documents,
    indexManager: manager,
    awaitTasks: { timeoutMs: 10_000 },
  });
  const call = async (key: string, method: string, path: string, body?: unknown): Promise<Reply> => {
    const res = await app.request(path, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text), text, headers: res.headers };
  };
  return { h, manager, call };
}

/** 40 documents of 8 KB: storing them needs pages a full disk does not have. */
const bulky = (from: number) =>
  Array.from({ length: 40 }, (_, i) => ({ id: `d${from + i}`, body: "x".repeat(8000) }));

describe("the customer API on a full disk", () => {
  it("refuses a documents batch with 507, stores none of it, keeps reads working, and takes it once space returns", async () => {
    const { h, call } = setup();
    const { apiKey } = await h.account();
    expect((await call(apiKey, "POST", "/api/v1/indexes", { name: "products" })).status).toBe(201);
    const first = await call(apiKey, "POST", "/api/v1/indexes/products/documents", [{ id: "a" }]);
    expect(first).toMatchObject({ status: 202, body: { status: "succeeded" } });
    const before = h.dump();
    fillDisk(h.db);

    const refused = await call(apiKey, "POST", "/api/v1/indexes/products/documents", bulky(0));
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual(FULL);
    expect(refused.body.error.message).toContain("the documents were not stored");
    expect(h.dump()).toBe(before);
    // Reads do not need room.
    expect((await call(apiKey, "GET", "/api/v1/indexes/products/documents")).body).toMatchObject({
      total: 1,
    });
    expect((await call(apiKey, "GET", "/api/v1/indexes/products/settings")).status).toBe(200);
    expect((await call(apiKey, "GET", `/api/v1/tasks/${first.body.taskUid}`)).body.status).toBe("succeeded");

    freeDisk(h.db);
    const taken = await call(apiKey, "POST", "/api/v1/indexes/products/documents", bulky(0));
    expect(taken).toMatchObject({ status: 202, body: { accepted: 40, status: "succeeded" } });
    expect(taken.body.taskUid).toBeGreaterThan(first.body.taskUid);
    expect((await call(apiKey, "GET", "/api/v1/indexes/products/documents")).body).toMatchObject({
      total: 41,
    });
  });

  it("answers 507 naming the failed task when the task was stored but its documents could not be", async () => {
    let full = false;
    const { h, call } = setup({
      documents: (real) =>
        Object.assign(Object.create(real) as SqliteDocumentStore, {
          upsert: async (...args: Parameters<SqliteDocumentStore["upsert"]>) => {
            // What the store throws when SQLite cannot add a page.
            if (full)
              throw Object.assign(new Error("database or disk is full"), {
                code: "ERR_SQLITE_ERROR",
                errcode: 13,
              });
            return real.upsert(...args);
          },
        }),
    });
    const { apiKey } = await h.account();
    await call(apiKey, "POST", "/api/v1/indexes", { name: "products" });
    full = true;
    const refused = await call(apiKey, "POST", "/api/v1/indexes/products/documents", [{ id: "a" }]);
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual(FULL);
    const uid = /task (\d+) failed/.exec(refused.body.error.message)?.[1];
    const task = await call(apiKey, "GET", `/api/v1/tasks/${uid}`);
    expect(task.body).toMatchObject({
      status: "failed",
      indexUid: "products",
      error: { code: "no_space_left_on_device", type: "system" },
      details: { receivedDocuments: 1, indexedDocuments: 0 },
    });
    expect((await call(apiKey, "GET", "/api/v1/indexes/products/documents")).body).toMatchObject({
      total: 0,
    });
    full = false;
    expect((await call(apiKey, "POST", "/api/v1/indexes/products/documents", [{ id: "a" }])).status).toBe(
      202,
    );
  });

  it("refuses index creations, a settings PATCH, an account and a relevance config with 507, changing nothing, and takes them once space returns", async () => {
    const { h, call } = setup();
    const { systemAccountId, apiKey } = await h.account();
    await call(apiKey, "POST", "/api/v1/indexes", { name: "products" });
    const etag = (await call(apiKey, "GET", "/api/v1/indexes/products/settings")).headers.get("etag");
    fillDisk(h.db);
    // Small records still fit in the pages the database has: index creations take them until one
    // does not fit any more.
    let created = 0;
    let refused: Reply | null = null;
    while (refused === null && created < 1000) {
      const res = await call(apiKey, "POST", "/api/v1/indexes", { name: `filler${created}` });
      if (res.status === 201) created++;
      else refused = res;
    }
    expect(refused).toMatchObject({ status: 507, body: FULL });
    expect((await call(apiKey, "GET", `/api/v1/indexes/filler${created}`)).status).toBe(404);
    const before = h.dump();

    const words = Array.from({ length: 5000 }, (_, i) => `word${i}`);
    const patched = await call(apiKey, "PATCH", "/api/v1/indexes/products/settings", { stopWords: words });
    expect(patched).toMatchObject({ status: 507, body: FULL });
    const account = await h.admin("POST", "/api/v1/admin/accounts", { name: "Acme" });
    expect(account).toMatchObject({ status: 507, body: FULL });
    const config = { modelId: `${systemAccountId}:products:v1`, titleField: "title", tagsField: null };
    expect(await h.putConfig(systemAccountId, "products", config)).toMatchObject({ status: 507, body: FULL });
    expect(h.dump()).toBe(before);
    // Reads keep working.
    const settings = await call(apiKey, "GET", "/api/v1/indexes/products/settings");
    expect(settings.body.stopWords).toEqual([]);
    expect(settings.headers.get("etag")).toBe(etag);
    expect((await h.getConfig(systemAccountId, "products")).status).toBe(200);
    expect((await call(apiKey, "GET", "/api/v1/indexes")).body.total).toBe(created + 1);

    freeDisk(h.db);
    const again = await call(apiKey, "PATCH", "/api/v1/indexes/products/settings", { stopWords: words });
    expect(again).toMatchObject({ status: 200, body: { status: "succeeded" } });
    expect(again.body.stopWords).toHaveLength(5000);
    expect((await call(apiKey, "POST", "/api/v1/indexes", { name: `filler${created}` })).status).toBe(201);
    expect((await h.admin("POST", "/api/v1/admin/accounts", { name: "Acme" })).status).toBe(201);
    expect((await h.putConfig(systemAccountId, "products", config)).status).toBe(200);
  });
});

describe("the customer API over Meilisearch on a full disk", () => {
  it("answers 507 when Meilisearch refuses a write with no_space_left_on_device, not 502", async () => {
    const meili = await startMeilisearchDouble();
    try {
      const h = makeHarness();
      const { apiKey } = await h.account();
      // As on Lambda: no document store, writes handed on to Meilisearch, tasks not waited for.
      const { documents: _none, ...deps } = h.deps;
      const app = createCustomerApp({
        ...deps,
        indexManager: new MeilisearchIndexManager({ url: meili.url, apiKey: MASTER_KEY }),
      });
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await app.request(path, {
          method,
          headers: { "x-api-key": apiKey, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, body: (await res.json()) as Reply["body"] };
      };
      // The double answers every write to an index uid ending -full as Meilisearch on a full disk.
      const created = await call("POST", "/api/v1/indexes", { name: "full" });
      expect(created).toMatchObject({ status: 507, body: FULL });
      expect(created.body.error.message).toContain("the index was not created");
      expect((await call("GET", "/api/v1/indexes/full")).status).toBe(404);
    } finally {
      await meili.close();
    }
  });
});

describe("task numbers in the customer API", () => {
  it("count per account, and an account's GET /tasks/{uid} shows its own task of that number", async () => {
    const { h, call } = setup();
    const a = await h.account("A");
    const b = await h.account("B");
    const writes: number[] = [];
    for (const name of ["one", "two", "three"]) {
      writes.push((await call(a.apiKey, "POST", "/api/v1/indexes", { name })).body.taskUid);
    }
    const other = await call(b.apiKey, "POST", "/api/v1/indexes", { name: "mine" });
    expect(writes).toEqual([1, 2, 3]);
    // B's first task is 1: its numbers say nothing of how much A wrote.
    expect(other.body.taskUid).toBe(1);
    expect((await call(b.apiKey, "GET", "/api/v1/tasks/1")).body).toMatchObject({ uid: 1, indexUid: "mine" });
    expect((await call(a.apiKey, "GET", "/api/v1/tasks/1")).body).toMatchObject({ uid: 1, indexUid: "one" });
    expect((await call(b.apiKey, "GET", "/api/v1/tasks/3")).status).toBe(404);
  });
});
