// The customer app with an index manager: every index, document and settings write is handed on
// after the settings table, and the answers carry the manager's task summary.

import { EmbeddedIndexManager } from "@relevance/search-embedded";
import { SqliteDocumentStore } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import { createCustomerApp } from "./customer-routes.ts";
import type { IndexBackend } from "./ports.ts";
import { makeHarness } from "./test-support/harness.ts";

async function setup(
  indexManager?: (h: ReturnType<typeof makeHarness>) => IndexBackend,
  options: { maxResponseBytes?: number } = {},
) {
  const h = makeHarness();
  const { systemAccountId, apiKey } = await h.account();
  const documents = new SqliteDocumentStore(h.db);
  const manager = new EmbeddedIndexManager({ db: h.db, documents });
  // As in the Lambda deployment: no document store of its own, every document read from the backend.
  const { documents: _unused, ...deps } = h.deps;
  const app = createCustomerApp({ ...deps, indexManager: indexManager?.(h) ?? manager, ...options });
  const call = async (method: string, path: string, body?: unknown, key = apiKey) => {
    const res = await app.request(path, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON replies loosely
    return { status: res.status, body: (await res.json()) as any };
  };
  return { h, manager, call, account: systemAccountId, app };
}

const summary = (indexUid: string, type: string) => ({
  taskUid: expect.any(Number),
  indexUid,
  status: "enqueued",
  type,
  enqueuedAt: expect.any(String),
});

describe("customer API with an index manager", () => {
  it("creates the index in the manager, sends it the documents and the whole settings, and deletes it", async () => {
    const { manager, call, account } = await setup();
    const uid = `${account}-products`;
    const created = await call("POST", "/api/v1/indexes", { name: "products", primaryKey: "sku" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "products",
      primaryKey: "sku",
      task: summary("products", "indexCreation"),
    });
    const createTask = await manager.waitForTask((created.body.task as { taskUid: number }).taskUid, {
      accountId: account,
    });
    expect(createTask).toMatchObject({ status: "succeeded", details: { primaryKey: "sku" } });

    const added = await call("POST", "/api/v1/indexes/products/documents", [
      { sku: "a", title: "Shoes" },
      { sku: "b", title: "Hat" },
    ]);
    expect(added.status).toBe(202);
    expect(added.body).toMatchObject({
      received: 2,
      accepted: 2,
      task: summary("products", "documentAdditionOrUpdate"),
    });
    await manager.waitForTask((added.body.task as { taskUid: number }).taskUid, { accountId: account });
    expect(await manager.getStats(uid)).toMatchObject({ numberOfDocuments: 2 });
    // The documents are where the customer reads them (the embedded manager's store).
    expect((await call("GET", "/api/v1/indexes/products")).body.numberOfDocuments).toBe(2);

    const patched = await call("PATCH", "/api/v1/indexes/products/settings", { stopWords: ["the"] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ stopWords: ["the"], task: summary("products", "settingsUpdate") });
    await manager.waitForTask((patched.body.task as { taskUid: number }).taskUid, { accountId: account });
    expect(await manager.getSettings(uid)).toEqual({
      searchableAttributes: ["*"],
      displayedAttributes: ["*"],
      filterableAttributes: [],
      sortableAttributes: [],
      synonyms: {},
      stopWords: ["the"],
      typoTolerance: {
        enabled: true,
        minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
        disableOnWords: [],
        disableOnAttributes: [],
      },
      rankingRules: ["words", "typo", "proximity", "attribute", "sort", "exactness"],
    });

    const deleted = await call("DELETE", "/api/v1/indexes/products");
    expect(deleted.body).toMatchObject({ deleted: "products", task: summary("products", "indexDeletion") });
    await manager.waitForTask((deleted.body.task as { taskUid: number }).taskUid, { accountId: account });
    expect(await manager.getIndex(uid)).toBeNull();
    expect((await call("GET", "/api/v1/indexes/products")).status).toBe(404);
  });

  it("sends an alias's documents to its index, and keeps an alias's settings out of the manager", async () => {
    const { manager, call, account } = await setup();
    await call("POST", "/api/v1/indexes", { name: "products" });
    await call("PUT", "/api/v1/aliases/shop", { index: "products" });
    const added = await call("POST", "/api/v1/indexes/shop/documents", [{ id: "1" }]);
    expect(added.body.task).toMatchObject({ indexUid: "products" });
    const patched = await call("PATCH", "/api/v1/indexes/shop/settings", { stopWords: ["a"] });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty("task");
    expect(await manager.getIndex(`${account}-shop`)).toBeNull();
  });

  it("answers 502 when the manager refuses a creation, and leaves no record behind", async () => {
    const refusing: IndexBackend = {
      createIndex: async () => {
        throw new Error("Meilisearch could not be reached: ECONNREFUSED");
      },
      deleteIndex: async () => {
        throw new Error("unreachable");
      },
      addDocuments: async () => {
        throw new Error("unreachable");
      },
      updateSettings: async () => {
        throw new Error("unreachable");
      },
      getStats: async () => {
        throw new Error("unreachable");
      },
      getDocuments: async () => {
        throw new Error("unreachable");
      },
      getTask: async () => null,
      waitForTask: async () => {
        throw new Error("unreachable");
      },
      updateDocuments: async () => {
        throw new Error("unreachable");
      },
      deleteDocuments: async () => {
        throw new Error("unreachable");
      },
      deleteAllDocuments: async () => {
        throw new Error("unreachable");
      },
      getDocument: async () => {
        throw new Error("unreachable");
      },
      listTasks: async () => {
        throw new Error("unreachable");
      },
    };
    const { h, call } = await setup(() => refusing);
    const res = await call("POST", "/api/v1/indexes", { name: "products" });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({
      error: {
        code: "backend_unavailable",
        message: "the search backend did not take the index creation; retry",
      },
    });
    expect((await call("GET", "/api/v1/indexes")).body.total).toBe(0);
    expect(h.lines.some((l) => l.level === "error" && l.message === "index manager refused a write")).toBe(
      true,
    );
  });

  it("reads documents, counts and stats from the manager, with nothing stored by the customer app itself", async () => {
    const { manager, call, account } = await setup();
    const created = await call("POST", "/api/v1/indexes", { name: "products" });
    await manager.waitForTask(created.body.taskUid as number, { accountId: account });
    const docs = Array.from({ length: 120 }, (_, i) => ({ id: `p${String(i).padStart(3, "0")}`, n: i }));
    const added = await call("POST", "/api/v1/indexes/products/documents", docs);
    await manager.waitForTask(added.body.taskUid as number, { accountId: account });
    const page = await call("GET", "/api/v1/indexes/products/documents?offset=10&limit=70");
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ offset: 10, limit: 70, total: 120 });
    // Read from the backend 50 at a time, in its order (the embedded one: by primary key).
    expect(page.body.results).toEqual(docs.slice(10, 80));
    expect((await call("GET", "/api/v1/indexes/products")).body.numberOfDocuments).toBe(120);
    expect((await call("GET", "/api/v1/indexes/products/stats")).body).toEqual({
      numberOfDocuments: 120,
      isIndexing: false,
      fieldDistribution: { id: 120, n: 120 },
    });
  });

  it("answers an index whose creation task has not run yet as empty", async () => {
    const { call } = await setup((h) => {
      const idle = new EmbeddedIndexManager({
        db: h.db,
        documents: new SqliteDocumentStore(h.db),
        start: false,
      });
      return idle;
    });
    await call("POST", "/api/v1/indexes", { name: "products" });
    expect((await call("GET", "/api/v1/indexes/products/stats")).body).toEqual({
      numberOfDocuments: 0,
      isIndexing: false,
      fieldDistribution: {},
    });
    expect((await call("GET", "/api/v1/indexes/products/documents")).body).toEqual({
      results: [],
      offset: 0,
      limit: 20,
      total: 0,
    });
  });

  it("answers writes with Meilisearch's task fields at the top level and serves the caller's tasks", async () => {
    const { h, manager, call, account } = await setup();
    // `uid`, as Meilisearch's clients send it, names the index.
    const created = await call("POST", "/api/v1/indexes", { uid: "products", primaryKey: "sku" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      taskUid: expect.any(Number),
      indexUid: "products",
      status: "enqueued",
      enqueuedAt: expect.any(String),
      name: "products",
      type: "index",
    });
    await manager.waitForTask(created.body.taskUid as number, { accountId: account });
    const task = await call("GET", `/api/v1/tasks/${created.body.taskUid}`);
    expect(task.status).toBe(200);
    expect(task.body).toMatchObject({
      uid: created.body.taskUid,
      indexUid: "products",
      status: "succeeded",
      type: "indexCreation",
      error: null,
    });
    // Another account's task is missing, as is a task that does not exist.
    const other = await h.account();
    for (const [path, key] of [
      [`/api/v1/tasks/${created.body.taskUid}`, other.apiKey],
      ["/api/v1/tasks/999999", undefined],
      ["/api/v1/tasks/abc", undefined],
    ] as const) {
      const missing = await call("GET", path, undefined, key);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe("task_not_found");
    }
  });

  it("refuses a documents page over the response limit with 422 naming limit and a limit that fits", async () => {
    const { manager, call, account } = await setup(undefined, { maxResponseBytes: 4096 });
    await manager.waitForTask(
      (await call("POST", "/api/v1/indexes", { name: "products" })).body.taskUid as number,
      { accountId: account },
    );
    const docs = Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, text: "x".repeat(200) }));
    await manager.waitForTask(
      (await call("POST", "/api/v1/indexes/products/documents", docs)).body.taskUid as number,
      { accountId: account },
    );
    const tooBig = await call("GET", "/api/v1/indexes/products/documents?limit=40");
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.error.code).toBe("response_too_large");
    const detail = tooBig.body.error.details[0] as { path: string; message: string };
    expect(detail.path).toBe("limit");
    const fits = Number(/limit=(\d+)/.exec(detail.message)?.[1]);
    expect(fits).toBeGreaterThan(5);
    expect(fits).toBeLessThan(40);
    const page = await call("GET", `/api/v1/indexes/products/documents?limit=${fits}`);
    expect(page.status).toBe(200);
    expect((page.body.results as unknown[]).length).toBe(fits);
  });
});
