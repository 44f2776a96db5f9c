// The customer app with an index manager: every index, document and settings write is handed on
// after the settings table, and the answers carry the manager's task summary.
import { describe, expect, it } from "vitest";
import { EmbeddedIndexManager } from "../../search/src/embedded/index-manager.ts";
import { SqliteDocumentStore } from "../../settings/src/sqlite/documents.ts";
import { createCustomerApp } from "./customer-routes.ts";
import type { IndexWrites } from "./ports.ts";
import { makeHarness } from "./test-support/harness.ts";

async function setup(indexManager?: (h: ReturnType<typeof makeHarness>) => IndexWrites) {
  const h = makeHarness();
  const { systemAccountId, apiKey } = await h.account();
  const documents = new SqliteDocumentStore(h.db);
  const manager = new EmbeddedIndexManager({ db: h.db, documents });
  const app = createCustomerApp({ ...h.deps, indexManager: indexManager?.(h) ?? manager });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { h, manager, call, account: systemAccountId };
}

const summary = (uid: string, type: string) => ({
  taskUid: expect.any(Number),
  indexUid: uid,
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
      task: summary(uid, "indexCreation"),
    });
    const createTask = await manager.waitForTask((created.body.task as { taskUid: number }).taskUid);
    expect(createTask).toMatchObject({ status: "succeeded", details: { primaryKey: "sku" } });

    const added = await call("POST", "/api/v1/indexes/products/documents", [
      { sku: "a", title: "Shoes" },
      { sku: "b", title: "Hat" },
    ]);
    expect(added.status).toBe(202);
    expect(added.body).toMatchObject({
      received: 2,
      accepted: 2,
      task: summary(uid, "documentAdditionOrUpdate"),
    });
    await manager.waitForTask((added.body.task as { taskUid: number }).taskUid);
    expect(await manager.getStats(uid)).toMatchObject({ numberOfDocuments: 2 });
    // The documents are where the customer reads them (the embedded manager's store).
    expect((await call("GET", "/api/v1/indexes/products")).body.numberOfDocuments).toBe(2);

    const patched = await call("PATCH", "/api/v1/indexes/products/settings", { stopWords: ["the"] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ stopWords: ["the"], task: summary(uid, "settingsUpdate") });
    await manager.waitForTask((patched.body.task as { taskUid: number }).taskUid);
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
    expect(deleted.body).toMatchObject({ deleted: "products", task: summary(uid, "indexDeletion") });
    await manager.waitForTask((deleted.body.task as { taskUid: number }).taskUid);
    expect(await manager.getIndex(uid)).toBeNull();
    expect((await call("GET", "/api/v1/indexes/products")).status).toBe(404);
  });

  it("sends an alias's documents to its index, and keeps an alias's settings out of the manager", async () => {
    const { manager, call, account } = await setup();
    await call("POST", "/api/v1/indexes", { name: "products" });
    await call("PUT", "/api/v1/aliases/shop", { index: "products" });
    const added = await call("POST", "/api/v1/indexes/shop/documents", [{ id: "1" }]);
    expect(added.body.task).toMatchObject({ indexUid: `${account}-products` });
    const patched = await call("PATCH", "/api/v1/indexes/shop/settings", { stopWords: ["a"] });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty("task");
    expect(await manager.getIndex(`${account}-shop`)).toBeNull();
  });

  it("answers 502 when the manager refuses a creation, and leaves no record behind", async () => {
    const refusing: IndexWrites = {
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
});
