import type { SettingsTable } from "@relevance/settings";
import { beforeEach, describe, expect, it } from "vitest";
import { createCustomerApp } from "./customer-routes.ts";
import { type Harness, makeHarness } from "./test-support/harness.ts";

describe("customer API", () => {
  let h: Harness;
  let account: string;
  let key: string;
  beforeEach(async () => {
    h = makeHarness();
    ({ systemAccountId: account, apiKey: key } = await h.account());
  });

  it("creates, lists, reads and refuses duplicate or invalid indexes", async () => {
    const created = await h.customer(key, "POST", "/api/v1/indexes", { name: "products" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      uid: "products",
      name: "products",
      type: "index",
      primaryKey: "id",
      createdAt: "2026-11-21T12:00:00.000Z",
      updatedAt: "2026-11-21T12:00:00.000Z",
    });
    expect((await h.customer(key, "POST", "/api/v1/indexes", { name: "products" })).status).toBe(409);
    expect(
      (await h.customer(key, "POST", "/api/v1/indexes", { name: "books", primaryKey: "isbn" })).status,
    ).toBe(201);
    const list = await h.customer(key, "GET", "/api/v1/indexes");
    expect(list.body.results.map((r: { name: string }) => r.name)).toEqual(["books", "products"]);
    expect(list.body).toMatchObject({ offset: 0, limit: 20, total: 2 });
    expect(list.body.results[0]).toMatchObject({ uid: "books", primaryKey: "isbn" });
    const second = await h.customer(key, "GET", "/api/v1/indexes?offset=1&limit=1");
    expect(second.body).toEqual({ results: [created.body], offset: 1, limit: 1, total: 2 });
    expect((await h.customer(key, "GET", "/api/v1/indexes?limit=0")).status).toBe(422);
    const one = await h.customer(key, "GET", "/api/v1/indexes/books");
    expect(one.body).toMatchObject({ name: "books", primaryKey: "isbn", numberOfDocuments: 0 });

    for (const body of [
      { name: "" },
      { name: "a b" },
      { name: "x".repeat(65) },
      { name: "ok", extra: 1 },
      {},
    ]) {
      const res = await h.customer(key, "POST", "/api/v1/indexes", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details.length).toBeGreaterThan(0);
    }
    const notJson = await h.customer(key, "POST", "/api/v1/indexes", "{name:");
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe("invalid_json");
  });

  it("stores documents by primary key and names the bad ones", async () => {
    await h.index(key, "products");
    const docs = [
      { id: "a", title: "A" },
      { id: 2, title: "B" },
    ];
    const res = await h.customer(key, "POST", "/api/v1/indexes/products/documents", docs);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ received: 2, accepted: 2, rejected: [] });
    expect(await h.documents.count(account, "products")).toBe(2);
    const page = await h.customer(key, "GET", "/api/v1/indexes/products/documents?limit=1&offset=1");
    expect(page.body).toEqual({ results: [{ id: "a", title: "A" }], offset: 1, limit: 1, total: 2 });
    expect((await h.customer(key, "GET", "/api/v1/indexes/products/documents?limit=0")).status).toBe(422);

    const bad = await h.customer(key, "POST", "/api/v1/indexes/products/documents", [
      { id: "ok" },
      { title: "no id" },
      "not an object",
      { id: 1.5 },
      { id: "has space" },
      { id: true },
    ]);
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      "[1].id",
      "[2]",
      "[3].id",
      "[4].id",
      "[5].id",
    ]);
    expect(await h.documents.count(account, "products")).toBe(2);
    expect((await h.customer(key, "POST", "/api/v1/indexes/products/documents", { id: "x" })).status).toBe(
      422,
    );
    expect((await h.customer(key, "POST", "/api/v1/indexes/products/documents", "[{")).status).toBe(400);
  });

  it("uses the index's own primary key", async () => {
    await h.index(key, "books", "isbn");
    const missing = await h.customer(key, "POST", "/api/v1/indexes/books/documents", [{ id: "1" }]);
    expect(missing.body.error.details).toEqual([
      { path: "[0].isbn", message: expect.stringContaining("required") },
    ]);
    expect((await h.customer(key, "POST", "/api/v1/indexes/books/documents", [{ isbn: "1" }])).status).toBe(
      202,
    );
  });

  it("GET and PATCH settings; PATCH with the relevance config in either spelling changes nothing", async () => {
    await h.index(key, "products");
    const initial = await h.customer(key, "GET", "/api/v1/indexes/products/settings");
    expect(initial.body).toEqual({
      searchableAttributes: ["*"],
      displayedAttributes: ["*"],
      filterableAttributes: [],
      sortableAttributes: [],
      synonyms: {},
      stopWords: [],
      typoTolerance: {
        enabled: true,
        minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
        disableOnWords: [],
        disableOnAttributes: [],
      },
      rankingRules: ["words", "typo", "proximity", "attribute", "sort", "exactness"],
    });
    const patched = await h.customer(key, "PATCH", "/api/v1/indexes/products/settings", {
      searchableAttributes: ["title", "tags"],
      synonyms: { tv: ["television"] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      searchableAttributes: ["title", "tags"],
      synonyms: { tv: ["television"] },
    });
    expect(patched.headers.get("etag")).toBe('"2"');
    await h.drain();
    expect(await h.copy(account, "products")).toMatchObject({
      searchable_attributes: ["title", "tags"],
      synonyms: { tv: ["television"] },
    });

    // An admin sets the config; the customer never sees it.
    await h.putConfig(account, "products", {
      modelId: `${account}:products:v1`,
      titleField: "title",
      tagsField: null,
    });
    const before = await h.table.get(account, "INDEX#products");
    for (const body of [
      { relevanceTriggerConfig: null },
      { relevance_trigger_config: { model_id: "x", title_field: null, tags_field: null } },
      {
        searchableAttributes: ["x"],
        relevanceTriggerConfig: { modelId: "x", titleField: null, tagsField: null },
      },
    ]) {
      const res = await h.customer(key, "PATCH", "/api/v1/indexes/products/settings", body);
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].path).toMatch(/^relevance(TriggerConfig|_trigger_config)$/);
    }
    expect(await h.table.get(account, "INDEX#products")).toEqual(before);
    const shown = await h.customer(key, "GET", "/api/v1/indexes/products/settings");
    expect(shown.text).not.toMatch(/relevance/i);
    expect(shown.body.searchableAttributes).toEqual(["title", "tags"]);
    expect((await h.customer(key, "GET", "/api/v1/indexes/products")).text).not.toMatch(/relevance/i);
    expect((await h.customer(key, "GET", "/api/v1/indexes")).text).not.toMatch(/relevance/i);

    // Unknown keys and invalid values: 422, nothing changes. null resets to the default.
    for (const body of [{ rankingRules: [] }, { stopWords: "the" }, { searchableAttributes: [""] }, []]) {
      expect((await h.customer(key, "PATCH", "/api/v1/indexes/products/settings", body)).status).toBe(422);
    }
    expect(await h.table.get(account, "INDEX#products")).toEqual(before);
    const reset = await h.customer(key, "PATCH", "/api/v1/indexes/products/settings", {
      searchableAttributes: null,
    });
    expect(reset.body.searchableAttributes).toEqual(["*"]);
    // The admin's config survived the customer's write.
    expect((await h.table.get(account, "INDEX#products"))?.attributes.relevance_trigger_config).toEqual({
      model_id: `${account}:products:v1`,
      title_field: "title",
      tags_field: null,
    });
  });

  it("PATCH retries a read-modify-write that lost a race, and honours a stale If-Match with 409", async () => {
    await h.index(key, "products");
    let raced = 0;
    const racing: SettingsTable = Object.create(h.table);
    racing.put = async (pk, sk, attributes, condition) => {
      // The first two writes each lose against an admin edit made just before them.
      if (raced < 2) {
        raced++;
        await h.table.setAttribute(pk, sk, "relevance_trigger_config", {
          model_id: `m${raced}`,
          title_field: null,
          tags_field: null,
        });
      }
      return h.table.put(pk, sk, attributes, condition);
    };
    const app = createCustomerApp({ ...h.deps, table: racing });
    const res = await app.request("/api/v1/indexes/products/settings", {
      method: "PATCH",
      headers: { "x-api-key": key },
      body: JSON.stringify({ stopWords: ["the"] }),
    });
    expect(res.status).toBe(200);
    const item = await h.table.get(account, "INDEX#products");
    expect(item?.version).toBe(4);
    expect(item?.attributes).toMatchObject({
      stop_words: ["the"],
      relevance_trigger_config: { model_id: "m2" },
    });

    const stale = await h.call(
      "PATCH",
      "/api/v1/indexes/products/settings",
      { stopWords: [] },
      {
        "x-api-key": key,
        "if-match": '"1"',
      },
    );
    expect(stale.status).toBe(409);
    expect((await h.table.get(account, "INDEX#products"))?.version).toBe(4);
  });

  it("answers an index's stats (an alias its index's), 404 for a missing index or another account's", async () => {
    await h.customer(key, "POST", "/api/v1/indexes", { name: "products" });
    const empty = await h.customer(key, "GET", "/api/v1/indexes/products/stats");
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ numberOfDocuments: 0, isIndexing: false, fieldDistribution: {} });
    await h.customer(key, "POST", "/api/v1/indexes/products/documents", [
      { id: "1", title: "Shoes", tags: ["red"] },
      { id: "2", title: "Hat" },
      { id: "3", color: "blue" },
    ]);
    await h.customer(key, "PUT", "/api/v1/aliases/shop", { index: "products" });
    const expected = {
      numberOfDocuments: 3,
      isIndexing: false,
      fieldDistribution: { id: 3, title: 2, tags: 1, color: 1 },
    };
    expect((await h.customer(key, "GET", "/api/v1/indexes/products/stats")).body).toEqual(expected);
    expect((await h.customer(key, "GET", "/api/v1/indexes/shop/stats")).body).toEqual(expected);
    expect((await h.customer(key, "GET", "/api/v1/indexes/missing/stats")).status).toBe(404);
    const other = await h.account();
    expect((await h.customer(other.apiKey, "GET", "/api/v1/indexes/products/stats")).status).toBe(404);
  });

  it("aliases with If-None-Match: * are created only when the name is free; an existing one is left as it is", async () => {
    await h.index(key, "products");
    await h.index(key, "archive");
    const createOnly = (index: string, value = "*") =>
      h.call("PUT", "/api/v1/aliases/shop", { index }, { "x-api-key": key, "if-none-match": value });
    const created = await createOnly("products");
    expect(created.status).toBe(200);
    expect(created.headers.get("etag")).toBe('"1"');
    expect(created.body).toMatchObject({ name: "shop", type: "alias", index: "products" });

    const before = h.dump();
    const again = await createOnly("archive");
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(
      "the alias shop already exists (If-None-Match: *); nothing was written",
    );
    expect(h.dump()).toBe(before);
    expect((await createOnly("archive", '"1"')).status).toBe(422);
    // Without the header, a PUT re-points the alias as before.
    expect((await h.customer(key, "PUT", "/api/v1/aliases/shop", { index: "archive" })).body.index).toBe(
      "archive",
    );
  });

  it("aliases: own record pointing at an index, 404 for a missing target, 409 for an index's name", async () => {
    await h.index(key, "products");
    const res = await h.customer(key, "PUT", "/api/v1/aliases/shop", { index: "products" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "shop", type: "alias", index: "products" });
    expect(await h.table.get(account, "INDEX#shop")).toMatchObject({
      version: 1,
      attributes: { type: "alias", alias_of: "products" },
    });
    expect((await h.customer(key, "PUT", "/api/v1/aliases/shop2", { index: "missing" })).status).toBe(404);
    expect((await h.customer(key, "PUT", "/api/v1/aliases/products", { index: "products" })).status).toBe(
      409,
    );
    expect((await h.customer(key, "PUT", "/api/v1/aliases/x", { index: "shop" })).status).toBe(422);
    expect((await h.customer(key, "PUT", "/api/v1/aliases/x", {})).status).toBe(422);
    expect((await h.customer(key, "PUT", "/api/v1/aliases/x", "nope")).status).toBe(400);
    expect((await h.customer(key, "PUT", "/api/v1/aliases/bad%20name", { index: "products" })).status).toBe(
      422,
    );

    // Documents through the alias go to its index; the alias has its own settings.
    await h.customer(key, "POST", "/api/v1/indexes/shop/documents", [{ id: "1" }]);
    expect(await h.documents.count(account, "products")).toBe(1);
    await h.customer(key, "PATCH", "/api/v1/indexes/shop/settings", { stopWords: ["a"] });
    expect((await h.customer(key, "GET", "/api/v1/indexes/products/settings")).body.stopWords).toEqual([]);

    // An index with an alias cannot be deleted; the alias can.
    expect((await h.customer(key, "DELETE", "/api/v1/indexes/products")).status).toBe(409);
    expect((await h.customer(key, "DELETE", "/api/v1/indexes/shop")).status).toBe(200);
    expect(await h.documents.count(account, "products")).toBe(1);
  });

  it("DELETE removes the record and the documents", async () => {
    await h.index(key, "products");
    await h.customer(key, "POST", "/api/v1/indexes/products/documents", [{ id: "1" }, { id: "2" }]);
    const res = await h.customer(key, "DELETE", "/api/v1/indexes/products");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: "products" });
    expect(await h.table.get(account, "INDEX#products")).toBeNull();
    expect(await h.documents.count(account, "products")).toBe(0);
    expect((await h.customer(key, "GET", "/api/v1/indexes/products")).status).toBe(404);
  });
});
