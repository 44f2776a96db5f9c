// The customer API's Meilisearch-shaped management routes in-process: on the store alone (writes
// at once, no tasks) and with the embedded index manager (tasks), through aliases, with their
// bounds and the one settings write behind the per-setting routes.
import { EmbeddedIndexManager } from "@relevance/search-embedded";
import { SqliteDocumentStore } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import { createCustomerApp } from "./customer-routes.ts";
import { MAX_DELETE_IDS, MAX_TASK_FILTER_ITEMS } from "./management-limits.ts";
import { makeHarness } from "./test-support/harness.ts";

async function storeSetup() {
  const h = makeHarness();
  const { apiKey, systemAccountId } = await h.account();
  await h.index(apiKey, "products", "sku");
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    h.call(method, `/api/v1${path}`, body, { "x-api-key": apiKey, ...headers });
  await call("POST", "/indexes/products/documents", [
    { sku: "a", title: "Oak table", price: 10 },
    { sku: "b", title: "Pine shelf", price: 20 },
    { sku: "c", title: "Walnut sofa", price: 30 },
  ]);
  return { h, call, account: systemAccountId, apiKey };
}

async function managerSetup() {
  const h = makeHarness();
  const { systemAccountId: account, apiKey } = await h.account();
  const documents = new SqliteDocumentStore(h.db);
  const manager = new EmbeddedIndexManager({ db: h.db, documents });
  const app = createCustomerApp({
    ...h.deps,
    documents,
    indexManager: manager,
    awaitTasks: { timeoutMs: 5000 },
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(`/api/v1${path}`, {
      method,
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON replies loosely
    return { status: res.status, body: (await res.json()) as any, headers: res.headers };
  };
  return { h, call, account, manager };
}

describe("documents one at a time (store only: writes at once)", () => {
  it("reads one document, cut to fields, through an alias too; an unknown id is 404 document_not_found", async () => {
    const { call } = await storeSetup();
    await call("PUT", "/aliases/shop", { index: "products" });
    expect((await call("GET", "/indexes/products/documents/a")).body).toEqual({
      sku: "a",
      title: "Oak table",
      price: 10,
    });
    expect((await call("GET", "/indexes/shop/documents/b?fields=title,price")).body).toEqual({
      title: "Pine shelf",
      price: 20,
    });
    const missing = await call("GET", "/indexes/products/documents/zzz");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("document_not_found");
    const bad = await call("GET", "/indexes/products/documents/a%20b");
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].path).toBe("id");
  });

  it("answers fields on a documents page and on documents/fetch, and refuses a filter with 422 naming it", async () => {
    const { call } = await storeSetup();
    expect((await call("GET", "/indexes/products/documents?fields=sku&limit=2")).body).toEqual({
      results: [{ sku: "a" }, { sku: "b" }],
      offset: 0,
      limit: 2,
      total: 3,
    });
    expect((await call("GET", "/indexes/products/documents?fields=*&limit=1")).body.results).toEqual([
      { sku: "a", title: "Oak table", price: 10 },
    ]);
    const fetched = await call("POST", "/indexes/products/documents/fetch", { fields: ["title"], offset: 2 });
    expect(fetched.body).toEqual({ results: [{ title: "Walnut sofa" }], offset: 2, limit: 20, total: 3 });
    for (const refused of [
      await call("GET", "/indexes/products/documents?filter=price%20%3E%201"),
      await call("POST", "/indexes/products/documents/fetch", { filter: "price > 1" }),
      await call("POST", "/indexes/products/documents/delete", { filter: "price > 1" }),
    ]) {
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: "not_supported", details: [{ path: "filter" }] });
    }
    expect((await call("GET", "/indexes/products/documents")).body.total).toBe(3);
  });

  it("merges a partial update into the stored documents, and deletes by id, by ids and all", async () => {
    const { call } = await storeSetup();
    const merged = await call("PUT", "/indexes/products/documents", [
      { sku: "a", price: 12 },
      { sku: "d", title: "New" },
    ]);
    expect(merged.status).toBe(202);
    expect(merged.body).toMatchObject({ received: 2, accepted: 2 });
    expect((await call("GET", "/indexes/products/documents/a")).body).toEqual({
      sku: "a",
      title: "Oak table",
      price: 12,
    });
    expect((await call("GET", "/indexes/products/documents/d")).body).toEqual({ sku: "d", title: "New" });

    expect((await call("DELETE", "/indexes/products/documents/d")).status).toBe(202);
    expect((await call("POST", "/indexes/products/documents/delete-batch", ["b", "nope"])).status).toBe(202);
    const left = await call("GET", "/indexes/products/documents");
    expect(left.body.results.map((d: { sku: string }) => d.sku)).toEqual(["a", "c"]);
    expect((await call("DELETE", "/indexes/products/documents")).status).toBe(202);
    expect((await call("GET", "/indexes/products/documents")).body.total).toBe(0);
    expect((await call("GET", "/indexes/products")).status).toBe(200);
  });

  it("refuses a delete-batch over its bound or with an invalid id, deleting nothing", async () => {
    const { h, call } = await storeSetup();
    const before = h.dump();
    const tooMany = await call(
      "POST",
      "/indexes/products/documents/delete-batch",
      Array.from({ length: MAX_DELETE_IDS + 1 }, (_, i) => `id${i}`),
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.details[0].message).toContain(String(MAX_DELETE_IDS));
    const invalidId = await call("POST", "/indexes/products/documents/delete-batch", ["a", "not valid"]);
    expect(invalidId.status).toBe(422);
    expect(invalidId.body.error.details[0].path).toBe("[1]");
    expect(h.dump()).toEqual(before);
  });
});

describe("per-setting routes (one settings write)", () => {
  it("sets, reads and resets one setting, each a new version of the record, and keeps the PATCH's problems and If-Match", async () => {
    const { call } = await storeSetup();
    const before = await call("GET", "/indexes/products/settings");
    const version = Number(JSON.parse(before.headers.get("etag") as string));
    const put = await call("PUT", "/indexes/products/settings/filterable-attributes", ["price"]);
    expect(put.status).toBe(202);
    expect(put.headers.get("etag")).toBe(`"${version + 1}"`);
    expect((await call("GET", "/indexes/products/settings/filterable-attributes")).body).toEqual(["price"]);
    expect((await call("GET", "/indexes/products/settings")).body.filterableAttributes).toEqual(["price"]);

    const typo = await call("PATCH", "/indexes/products/settings/typo-tolerance", { enabled: false });
    expect(typo.status).toBe(202);
    expect((await call("GET", "/indexes/products/settings/typo-tolerance")).body.enabled).toBe(false);

    const wrong = await call("PUT", "/indexes/products/settings/filterable-attributes", [""]);
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details[0].path).toBe("filterableAttributes[0]");
    const stale = await call("PUT", "/indexes/products/settings/stop-words", ["the"], {
      "if-match": `"${version}"`,
    });
    expect(stale.status).toBe(409);

    expect((await call("DELETE", "/indexes/products/settings/filterable-attributes")).status).toBe(202);
    expect((await call("GET", "/indexes/products/settings/filterable-attributes")).body).toEqual([]);
    expect((await call("DELETE", "/indexes/products/settings")).status).toBe(202);
    expect((await call("GET", "/indexes/products/settings/typo-tolerance")).body.enabled).toBe(true);
  });

  it("answers 422 naming a Meilisearch setting this API does not support, and 404 for no such setting", async () => {
    const { call } = await storeSetup();
    for (const [method, setting] of [
      ["GET", "pagination"],
      ["PUT", "distinct-attribute"],
      ["PATCH", "faceting"],
      ["DELETE", "embedders"],
    ] as const) {
      const res = await call(
        method,
        `/indexes/products/settings/${setting}`,
        method === "GET" || method === "DELETE" ? undefined : {},
      );
      expect(res.status, setting).toBe(422);
      expect(res.body.error).toMatchObject({ code: "not_supported", details: [{ path: setting }] });
    }
    expect((await call("GET", "/indexes/products/settings/nonsense")).status).toBe(404);
  });
});

describe("per-setting routes with an index manager", () => {
  it("hand the index's whole settings on to the manager, one task per write, as the PATCH does", async () => {
    const { call, account, manager } = await managerSetup();
    await call("POST", "/indexes", { name: "products", primaryKey: "sku" });
    await call("PATCH", "/indexes/products/settings", { stopWords: ["the"] });
    const put = await call("PUT", "/indexes/products/settings/filterable-attributes", ["price"]);
    expect(put.status).toBe(202);
    expect(put.body).toMatchObject({ type: "settingsUpdate", status: "succeeded", indexUid: "products" });
    const engine = await manager.getSettings(`${account}-products`);
    expect(engine).toMatchObject({ filterableAttributes: ["price"], stopWords: ["the"] });
    expect((await manager.getTask(put.body.taskUid, { accountId: account }))?.details).toMatchObject({
      filterableAttributes: ["price"],
      stopWords: ["the"],
    });
    const reset = await call("DELETE", "/indexes/products/settings");
    expect(reset.body).toMatchObject({ type: "settingsUpdate", status: "succeeded" });
    expect(await manager.getSettings(`${account}-products`)).toMatchObject({
      filterableAttributes: [],
      stopWords: [],
    });
  });
});

describe("GET /tasks and GET /stats", () => {
  it("lists the account's tasks with index names, filtered, newest first; another account sees none of them", async () => {
    const { h, call, account } = await managerSetup();
    await call("POST", "/indexes", { name: "products", primaryKey: "sku" });
    await call("POST", "/indexes/products/documents", [{ sku: "a" }]);
    await call("PUT", "/indexes/products/settings/stop-words", ["the"]);
    const all = await call("GET", "/tasks");
    expect(all.status).toBe(200);
    expect(all.body.results.map((t: { type: string }) => t.type)).toEqual([
      "settingsUpdate",
      "documentAdditionOrUpdate",
      "indexCreation",
    ]);
    expect(all.body.results.every((t: { indexUid: string }) => t.indexUid === "products")).toBe(true);
    expect(all.body).toMatchObject({ total: 3, limit: 20, next: null });
    const paged = await call("GET", "/tasks?limit=1&types=indexCreation,settingsUpdate&indexUids=products");
    expect(paged.body).toMatchObject({ total: 2, limit: 1, next: expect.any(Number) });
    expect((await call("GET", "/tasks?statuses=failed")).body.total).toBe(0);
    // The backend's uid of the index is not one of the account's index names: nothing.
    expect((await call("GET", `/tasks?indexUids=${account}-products`)).body.total).toBe(0);
    expect((await call("GET", "/tasks?unknown=1")).status).toBe(422);
    const tooMany = await call(
      "GET",
      `/tasks?uids=${Array.from({ length: MAX_TASK_FILTER_ITEMS + 1 }, (_, i) => i).join(",")}`,
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.details[0].path).toBe("uids");

    const other = await h.account("Other");
    const theirs = await h.call("GET", "/api/v1/tasks", undefined, { "x-api-key": other.apiKey });
    expect(theirs.body).toEqual({ results: [], total: 0, limit: 20, from: null, next: null });
  });

  it("answers the account's statistics per index, aliases left out", async () => {
    const { call } = await storeSetup();
    await call("PUT", "/aliases/shop", { index: "products" });
    const stats = await call("GET", "/stats");
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      databaseSize: 0,
      lastUpdate: expect.any(String),
      indexes: {
        products: { numberOfDocuments: 3, isIndexing: false, fieldDistribution: { sku: 3, price: 3 } },
      },
    });
    expect(Object.keys(stats.body.indexes)).toEqual(["products"]);
  });
});
