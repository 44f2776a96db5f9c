// API keys with scopes on the customer and admin APIs (in-process, over SQLite): the default keys,
// /keys, what each key may do, expiry on the injected clock, revocation, the KV copy, the bounds.
import {
  API_KEY_SK,
  apiKeyCopyKey,
  apiKeyHash,
  apiKeyPk,
  neededGrant,
  ROUTE_ACTIONS,
} from "@relevance/settings";
import { describe, expect, it } from "vitest";
import { MAX_KEY_DESCRIPTION_CHARS, MAX_KEY_NAME_CHARS, MAX_KEYS_PER_ACCOUNT } from "./key-limits.ts";
import { type Harness, makeHarness } from "./test-support/harness.ts";

const T0 = Date.parse("2026-11-21T12:00:00.000Z");

function clocked() {
  const clock = { ms: T0 };
  const h = makeHarness({ now: () => new Date(clock.ms) });
  return { h, clock };
}

async function account(h: Harness) {
  const res = await h.admin("POST", "/api/v1/admin/accounts", { name: "Shop" });
  expect(res.status).toBe(201);
  return res.body as { systemAccountId: string; apiKey: string; searchApiKey: string };
}

const newKey = (h: Harness, adminKey: string, body: Record<string, unknown>) =>
  h.customer(adminKey, "POST", "/api/v1/keys", { expiresAt: null, ...body });

/** A concrete path of a table row: every parameter filled in. */
const concrete = (path: string) =>
  `/api/v1${path
    .replace(":index", "products")
    .replace(":alias", "shop")
    .replace(/:[a-z]+/g, "x")}`;

describe("default keys", () => {
  it("a new account has a Default Admin API Key (apiKey, every action) and a Default Search API Key, listed without the key", async () => {
    const h = makeHarness();
    const { apiKey, searchApiKey } = await account(h);
    const list = await h.customer(apiKey, "GET", "/api/v1/keys");
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ offset: 0, limit: 20, total: 2 });
    const byName = Object.fromEntries(list.body.results.map((k: { name: string }) => [k.name, k]));
    expect(byName["Default Admin API Key"]).toMatchObject({
      actions: ["*"],
      indexes: ["*"],
      expiresAt: null,
      keyPrefix: apiKey.slice(0, 8),
    });
    expect(byName["Default Search API Key"]).toMatchObject({
      actions: ["search"],
      indexes: ["*"],
      keyPrefix: searchApiKey.slice(0, 8),
    });
    expect(list.body.results[0].uid).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    // The keys themselves are never shown again, nor stored.
    expect(list.text).not.toContain(apiKey);
    expect(list.text).not.toContain(searchApiKey);
    expect(h.dump()).not.toContain(apiKey);
    expect(list.body.results[0]).not.toHaveProperty("key");
  });

  it("a key made before scopes (an APIKEY item without actions) keeps every action", async () => {
    const h = makeHarness();
    const { systemAccountId } = await account(h);
    const legacy = "rk_legacy-key-made-before-scopes-000000000000000";
    await h.table.put(
      apiKeyPk(await apiKeyHash(legacy)),
      API_KEY_SK,
      { system_account_id: systemAccountId, created_at: "2026-01-01T00:00:00.000Z" },
      { mustNotExist: true },
    );
    expect((await h.customer(legacy, "POST", "/api/v1/indexes", { name: "products" })).status).toBe(201);
    expect((await h.customer(legacy, "GET", "/api/v1/keys")).status).toBe(200);
    expect((await newKey(h, legacy, { actions: ["search"], indexes: ["*"] })).status).toBe(201);
  });
});

describe("what a key may do", () => {
  it("the search key gets 403 invalid_api_key on every write route of the table, and nothing is written", async () => {
    const h = makeHarness();
    const { apiKey, searchApiKey } = await account(h);
    await h.index(apiKey, "products");
    const before = h.dump();
    const writes = ROUTE_ACTIONS.filter((r) => r.method !== "GET" && r.action !== "search");
    expect(writes.length).toBeGreaterThan(15);
    for (const row of writes) {
      const res = await h.call(row.method, concrete(row.path), { name: "x" }, { "x-api-key": searchApiKey });
      expect(res.status, `${row.method} ${row.path}`).toBe(403);
      expect(res.body.error.code).toBe("invalid_api_key");
    }
    expect(h.dump()).toEqual(before);
  });

  it("every customer route the OpenAPI document lists has a row in the route-action table", async () => {
    const h = makeHarness();
    const doc = (await h.call("GET", "/api/v1/openapi.json")).body;
    const customerRoutes = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => !path.startsWith("/api/v1/admin/") && path !== "/api/v1/openapi.json")
      .flatMap(([path, item]) => Object.keys(item).map((m) => [m.toUpperCase(), path] as const));
    expect(customerRoutes.length).toBeGreaterThan(15);
    for (const [method, path] of customerRoutes) {
      expect(neededGrant(method, path.replace(/\{[^}]+\}/g, "x")), `${method} ${path}`).not.toBeNull();
    }
  });

  it("a key scoped to documents.get on prod* reads products' documents and nothing else", async () => {
    const h = makeHarness();
    const { apiKey } = await account(h);
    await h.index(apiKey, "products");
    await h.index(apiKey, "blog");
    const created = await newKey(h, apiKey, {
      name: "reader",
      actions: ["documents.get"],
      indexes: ["prod*"],
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    const reader = created.body.key;
    expect((await h.customer(reader, "GET", "/api/v1/indexes/products/documents")).status).toBe(200);
    const other = await h.customer(reader, "GET", "/api/v1/indexes/blog/documents");
    expect(other.status).toBe(403);
    expect(other.body.error.message).toContain("index `blog`");
    expect(
      (await h.customer(reader, "POST", "/api/v1/indexes/products/documents", [{ id: "1" }])).status,
    ).toBe(403);
    expect((await h.customer(reader, "GET", "/api/v1/keys")).status).toBe(403);
  });

  it("an expired key answers 401 from its expiresAt on the injected clock", async () => {
    const { h, clock } = clocked();
    const { apiKey } = await account(h);
    const soon = new Date(T0 + 60_000).toISOString();
    const created = await newKey(h, apiKey, { actions: ["indexes.get"], indexes: ["*"], expiresAt: soon });
    expect(created.status).toBe(201);
    expect(created.body.expiresAt).toBe(soon);
    expect((await h.customer(created.body.key, "GET", "/api/v1/indexes")).status).toBe(200);
    clock.ms = T0 + 60_000;
    expect((await h.customer(created.body.key, "GET", "/api/v1/indexes")).status).toBe(401);
    // An expiry in the past is refused at creation, nothing written.
    const before = h.dump();
    const past = await newKey(h, apiKey, {
      actions: ["*"],
      indexes: ["*"],
      expiresAt: "2020-01-01T00:00:00Z",
    });
    expect(past.status).toBe(422);
    expect(h.dump()).toEqual(before);
  });
});

describe("/keys", () => {
  it("gets a key by uid or by the key, patches only name and description, and a deleted key fails at once and loses its KV copy", async () => {
    const h = makeHarness();
    const { apiKey } = await account(h);
    const created = await newKey(h, apiKey, {
      name: "front",
      description: "the shop's pages",
      actions: ["search"],
      indexes: ["products"],
    });
    const { uid, key } = created.body;
    expect((await h.customer(apiKey, "GET", `/api/v1/keys/${uid}`)).body).toMatchObject({
      uid,
      name: "front",
    });
    expect((await h.customer(apiKey, "GET", `/api/v1/keys/${key}`)).body).toMatchObject({ uid });
    const patched = await h.customer(apiKey, "PATCH", `/api/v1/keys/${uid}`, { name: "renamed" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: "renamed",
      description: "the shop's pages",
      actions: ["search"],
    });
    const immutable = await h.customer(apiKey, "PATCH", `/api/v1/keys/${uid}`, { actions: ["*"] });
    expect(immutable.status).toBe(422);
    expect(immutable.body.error.details).toEqual([{ path: "actions", message: "is not a known field" }]);

    await h.drain();
    const copy = JSON.parse((await h.kv.get(apiKeyCopyKey(await apiKeyHash(key)))) as string);
    expect(copy).toMatchObject({ uid, actions: ["search"], indexes: ["products"], expires_at: null });

    expect((await h.customer(apiKey, "DELETE", `/api/v1/keys/${uid}`)).status).toBe(204);
    expect((await h.customer(key, "GET", "/api/v1/indexes")).status).toBe(401);
    expect((await h.customer(apiKey, "GET", `/api/v1/keys/${uid}`)).body.error.code).toBe(
      "api_key_not_found",
    );
    await h.drain();
    expect(await h.kv.get(apiKeyCopyKey(await apiKeyHash(key)))).toBeNull();
  });

  it("another account's key is not found", async () => {
    const h = makeHarness();
    const a = await account(h);
    const b = await account(h);
    const list = await h.customer(b.apiKey, "GET", "/api/v1/keys");
    const uid = list.body.results[0].uid;
    expect((await h.customer(a.apiKey, "GET", `/api/v1/keys/${uid}`)).status).toBe(404);
    expect((await h.customer(a.apiKey, "DELETE", `/api/v1/keys/${b.searchApiKey}`)).status).toBe(404);
    expect((await h.customer(b.searchApiKey, "GET", "/api/v1/indexes/x/search")).status).not.toBe(401);
  });

  it("bounds: name, description, index patterns, actions and the key count answer 422 naming the field, nothing written", async () => {
    const h = makeHarness();
    const { apiKey } = await account(h);
    const base = { actions: ["search"], indexes: ["*"] };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, name: "n".repeat(MAX_KEY_NAME_CHARS + 1) }, "name"],
      [{ ...base, description: "d".repeat(MAX_KEY_DESCRIPTION_CHARS + 1) }, "description"],
      [{ ...base, indexes: Array.from({ length: 101 }, (_, i) => `i${i}`) }, "indexes"],
      [{ ...base, indexes: [`${"a".repeat(65)}*`] }, "indexes[0]"],
      [{ ...base, indexes: ["a*b"] }, "indexes[0]"],
      [{ ...base, actions: ["documents.burn"] }, "actions[0]"],
      [{ ...base, actions: Array.from({ length: 26 }, () => "search") }, "actions"],
      [{ ...base, actions: [] }, "actions"],
      [{ ...base, expiresAt: "tomorrow" }, "expiresAt"],
      [{ ...base, uid: "not-a-uuid" }, "uid"],
    ];
    const before = h.dump();
    for (const [body, field] of cases) {
      const res = await newKey(h, apiKey, body);
      expect(res.status, field).toBe(422);
      expect(res.body.error.details[0]?.path, field).toBe(field);
    }
    expect(h.dump()).toEqual(before);
    for (let i = 2; i < MAX_KEYS_PER_ACCOUNT; i++) expect((await newKey(h, apiKey, base)).status).toBe(201);
    const full = h.dump();
    const over = await newKey(h, apiKey, base);
    expect(over.status).toBe(422);
    expect(over.body.error.details[0]?.path).toBe("keys");
    expect(h.dump()).toEqual(full);
  });
});

describe("the admin API's keys routes", () => {
  it("an operator lists, creates and revokes an account's keys; an unknown account is 404", async () => {
    const h = makeHarness();
    const { systemAccountId } = await account(h);
    const base = `/api/v1/admin/accounts/${systemAccountId}`;
    expect((await h.admin("GET", `${base}/keys`)).body.total).toBe(2);
    const created = await h.admin("POST", `${base}/keys`, {
      actions: ["documents.*"],
      indexes: ["products"],
      expiresAt: null,
    });
    expect(created.status).toBe(201);
    expect((await h.customer(created.body.key, "GET", "/api/v1/indexes/products/documents")).status).not.toBe(
      403,
    );
    expect((await h.admin("DELETE", `${base}/keys/${created.body.uid}`)).status).toBe(204);
    expect((await h.customer(created.body.key, "GET", "/api/v1/indexes/products/documents")).status).toBe(
      401,
    );
    expect((await h.admin("GET", "/api/v1/admin/accounts/acct_000000000000/keys")).status).toBe(404);
    expect((await h.call("GET", `${base}/keys`)).status).toBe(401);
  });
});

describe("indexes named in the body or listed", () => {
  it("a key scoped to prod* lists only the indexes it covers, creates only such names, and points an alias only at them", async () => {
    const h = makeHarness();
    const { apiKey } = await account(h);
    await h.index(apiKey, "products");
    await h.index(apiKey, "blog");
    const scoped = (await newKey(h, apiKey, { actions: ["indexes.*"], indexes: ["prod*", "shop"] })).body
      .key as string;
    const listed = await h.customer(scoped, "GET", "/api/v1/indexes");
    expect(listed.body.results.map((r: { name: string }) => r.name)).toEqual(["products"]);
    expect(listed.body.total).toBe(1);
    const before = h.dump();
    const outside = await h.customer(scoped, "POST", "/api/v1/indexes", { name: "news" });
    expect(outside.status).toBe(403);
    expect(outside.body.code).toBe("invalid_api_key");
    expect((await h.customer(scoped, "PUT", "/api/v1/aliases/shop", { index: "blog" })).status).toBe(403);
    expect(h.dump()).toEqual(before);
    expect((await h.customer(scoped, "POST", "/api/v1/indexes", { name: "products2" })).status).toBe(201);
    expect((await h.customer(scoped, "PUT", "/api/v1/aliases/shop", { index: "products" })).status).toBe(200);
  });
});
