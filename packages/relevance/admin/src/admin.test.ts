import { modelKey } from "@relevance/core";
import { API_KEY_SK, apiKeyPk, type SettingsTable } from "@relevance/settings";
import { describe, expect, it } from "vitest";
import { createAdminApp } from "./admin-routes.ts";
import { sha256Hex } from "./crypto.ts";
import { makeHarness } from "./test-support/harness.ts";

describe("admin accounts", () => {
  it("creates an account and a key that is shown once and stored only as its SHA-256", async () => {
    const h = makeHarness();
    const res = await h.admin("POST", "/api/v1/admin/accounts", { name: "Shop" });
    expect(res.status).toBe(201);
    expect(res.body.systemAccountId).toMatch(/^acct_[0-9a-f]{12}$/);
    expect(res.body.apiKey).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    const account = await h.table.get(res.body.systemAccountId, "ACCOUNT");
    expect(account?.attributes).toEqual({ name: "Shop", created_at: "2026-11-21T12:00:00.000Z" });
    const key = await h.table.get(apiKeyPk(await sha256Hex(res.body.apiKey)), API_KEY_SK);
    expect(key?.attributes.system_account_id).toBe(res.body.systemAccountId);
    const dump = JSON.stringify(h.db.prepare("SELECT * FROM items").all());
    expect(dump).not.toContain(res.body.apiKey);
    expect((await h.customer(res.body.apiKey, "GET", "/api/v1/indexes")).status).toBe(200);
  });

  it("validates the account body", async () => {
    const h = makeHarness();
    for (const body of [{}, { name: "" }, { name: 3 }, { name: "a", extra: 1 }, []]) {
      const res = await h.admin("POST", "/api/v1/admin/accounts", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
    }
    expect((await h.admin("POST", "/api/v1/admin/accounts", "{nope")).status).toBe(422);
  });

  it("refuses to start with a short admin token, or one a bearer header cannot carry", () => {
    const h = makeHarness();
    expect(() => createAdminApp({ ...h.deps, adminToken: "short" })).toThrow(/at least 16/);
    // Hono's bearerAuth reads only RFC 6750 token characters from the header: another token could never match.
    expect(() => createAdminApp({ ...h.deps, adminToken: "admin token with spaces" })).toThrow(
      /must be letters, digits and - \. _ ~ \+ \//,
    );
  });
});

describe("admin relevance-trigger-config", () => {
  async function setup() {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    return { h, account, apiKey };
  }

  it("GET answers the config and version with an ETag", async () => {
    const { h, account } = await setup();
    const empty = await h.getConfig(account, "products");
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ relevanceTriggerConfig: null, version: 1 });
    expect(empty.headers.get("etag")).toBe('"1"');
    const config = { modelId: `${account}:products:v1`, titleField: "title", tagsField: null };
    const put = await h.putConfig(account, "products", config);
    expect(put.headers.get("etag")).toBe('"2"');
    expect((await h.getConfig(account, "products")).body).toEqual({
      relevanceTriggerConfig: config,
      version: 2,
    });
  });

  it("404 for a missing account or index, for both methods", async () => {
    const { h, account } = await setup();
    const config = { modelId: "m", titleField: null, tagsField: null };
    for (const [acct, index] of [
      ["acct_000000000000", "products"],
      [account, "missing"],
      [account, "bad%20name"],
    ] as const) {
      const get = await h.getConfig(acct, index);
      const put = await h.putConfig(acct, index, config);
      expect([get.status, put.status]).toEqual([404, 404]);
      expect(get.body.error.code).toBe("not_found");
    }
  });

  it("a body of many unknown keys answers the first 100 problems, each path at most 200 characters", async () => {
    const { h, account } = await setup();
    const keys = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [`k${i}${"x".repeat(i === 0 ? 300 : 0)}`, 1]),
    );
    const res = await h.admin("PUT", h.configPath(account, "products"), keys);
    expect(res.status).toBe(422);
    expect(res.body.error.details).toHaveLength(100);
    expect(res.body.error.details[0].path).toHaveLength(201);
  });

  it("body not JSON answers 422", async () => {
    const { h, account } = await setup();
    const res = await h.admin("PUT", h.configPath(account, "products"), "{ not json");
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: { code: "invalid_json", message: "the request body is not valid JSON" },
    });
  });

  it("If-Match: a stale version answers 409, quoted, weak and bare current versions are accepted", async () => {
    const { h, account } = await setup();
    const config = { modelId: `${account}:products:v1`, titleField: null, tagsField: null };
    expect((await h.putConfig(account, "products", config, { "if-match": '"1"' })).status).toBe(200);
    const stale = await h.putConfig(account, "products", config, { "if-match": '"1"' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("conflict");
    expect((await h.putConfig(account, "products", config, { "if-match": "2" })).status).toBe(200);
    expect((await h.putConfig(account, "products", config, { "if-match": 'W/"3"' })).status).toBe(200);
    expect((await h.putConfig(account, "products", config, { "if-match": "*" })).status).toBe(200);
    const bad = await h.putConfig(account, "products", config, { "if-match": "yesterday" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([{ path: "If-Match", message: expect.any(String) }]);
    expect((await h.getConfig(account, "products")).body.version).toBe(5);
  });

  it("a write that lost the race between its read and its write answers 409 (never a blind write)", async () => {
    const h = makeHarness();
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    // A table whose put is preceded by another writer's direct edit.
    const racing: SettingsTable = Object.create(h.table);
    racing.put = async (pk, sk, attributes, condition) => {
      if (sk === "INDEX#products") await h.table.setAttribute(pk, sk, "shop_id", undefined);
      return h.table.put(pk, sk, attributes, condition);
    };
    const app = createAdminApp({ ...h.deps, table: racing });
    const res = await app.request(h.configPath(account, "products"), {
      method: "PUT",
      headers: { authorization: `Bearer ${h.deps.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ relevanceTriggerConfig: { modelId: "m", titleField: null, tagsField: null } }),
    });
    expect(res.status).toBe(409);
    const item = await h.table.get(account, "INDEX#products");
    expect(item?.version).toBe(2);
    expect(item?.attributes).not.toHaveProperty("relevance_trigger_config");
  });

  it("warns about the model id convention, a malformed artifact and trained-on field names", async () => {
    const { h, account } = await setup();
    const odd = await h.putConfig(account, "products", {
      modelId: "products-latest",
      titleField: null,
      tagsField: null,
    });
    expect(odd.status).toBe(200);
    expect(odd.body.warnings).toEqual([
      expect.stringContaining("does not follow <system_account_id>:<index_name>:v<n>"),
      expect.stringContaining("no model artifact under relevance_model:products-latest"),
    ]);

    await h.kv.put(modelKey(`${account}:products:v9`), "not an artifact");
    const broken = await h.putConfig(account, "products", {
      modelId: `${account}:products:v9`,
      titleField: null,
      tagsField: null,
    });
    expect(broken.body.warnings).toEqual([expect.stringContaining("is not a valid model artifact")]);

    const modelId = `${account}:products:v1`;
    await h.upload(modelId, "title", "tags");
    const mismatch = await h.putConfig(account, "products", { modelId, titleField: "name", tagsField: null });
    expect(mismatch.status).toBe(200);
    expect(mismatch.body.warnings).toEqual([
      expect.stringContaining('trained with titleField "title", not "name"'),
      expect.stringContaining('trained with tagsField "tags", not null'),
    ]);
    const match = await h.putConfig(account, "products", { modelId, titleField: "title", tagsField: "tags" });
    expect(match.body.warnings).toEqual([]);
  });

  it("GET shows a malformed stored config (direct table edit) as is, with its problems", async () => {
    const { h, account } = await setup();
    const malformed = { model_id: "m", title_field: "title", tagsField: null };
    await h.table.setAttribute(account, "INDEX#products", "relevance_trigger_config", malformed);
    const res = await h.getConfig(account, "products");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      relevanceTriggerConfig: malformed,
      version: 2,
      storedConfigProblems: [
        { path: "relevance_trigger_config.tagsField", message: "is not a known field" },
        { path: "relevance_trigger_config.tags_field", message: expect.stringContaining("is required") },
      ],
    });
    // A valid direct edit (snake_case, NULL) reads back in the admin form.
    await h.table.setAttribute(account, "INDEX#products", "relevance_trigger_config", {
      model_id: "m",
      title_field: null,
      tags_field: null,
    });
    expect((await h.getConfig(account, "products")).body).toEqual({
      relevanceTriggerConfig: { modelId: "m", titleField: null, tagsField: null },
      version: 3,
    });
    // The admin PUT repairs it.
    expect((await h.putConfig(account, "products", null)).body.version).toBe(4);
  });

  it("refuses a modelId of another account (422 naming relevanceTriggerConfig.modelId, nothing written)", async () => {
    const { h, account } = await setup();
    const { systemAccountId: other } = await h.account();
    const res = await h.putConfig(account, "products", {
      modelId: `${other}:products:v1`,
      titleField: null,
      tagsField: null,
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      {
        path: "relevanceTriggerConfig.modelId",
        message: expect.stringContaining(`names a model of account ${other}`),
      },
    ]);
    expect((await h.getConfig(account, "products")).body).toEqual({
      relevanceTriggerConfig: null,
      version: 1,
    });
    // Its own account's model, and an id off the convention (a warning only), are taken.
    const own = { modelId: `${account}:products:v1`, titleField: null, tagsField: null };
    expect((await h.putConfig(account, "products", own)).status).toBe(200);
    const odd = { modelId: "products-latest", titleField: null, tagsField: null };
    expect((await h.putConfig(account, "products", odd)).status).toBe(200);
  });

  it("GET lists another account's model named by a direct table edit as a stored-config problem", async () => {
    const { h, account } = await setup();
    const stored = { model_id: "acct_other:products:v3", title_field: null, tags_field: null };
    await h.table.setAttribute(account, "INDEX#products", "relevance_trigger_config", stored);
    expect((await h.getConfig(account, "products")).body).toEqual({
      relevanceTriggerConfig: stored,
      version: 2,
      storedConfigProblems: [
        {
          path: "relevance_trigger_config.model_id",
          message: expect.stringContaining("names a model of account acct_other"),
        },
      ],
    });
  });

  it("records in the same write when a record stops naming a model (relevance_model_history)", async () => {
    let clock = new Date("2026-11-21T12:00:00.000Z");
    const h = makeHarness({ now: () => clock });
    const { systemAccountId: account, apiKey } = await h.account();
    await h.index(apiKey, "products");
    const config = (v: number) => ({
      modelId: `${account}:products:v${v}`,
      titleField: null,
      tagsField: null,
    });
    const history = async () => {
      const item = await h.table.get(account, "INDEX#products");
      return { version: item?.version, history: item?.attributes.relevance_model_history };
    };
    await h.putConfig(account, "products", config(1));
    expect(await history()).toEqual({ version: 2, history: undefined });
    clock = new Date("2026-11-21T13:00:00.000Z");
    await h.putConfig(account, "products", config(1)); // same model: nothing stops being named
    await h.putConfig(account, "products", config(2));
    expect(await history()).toEqual({
      version: 4,
      history: { [`${account}:products:v1`]: "2026-11-21T13:00:00.000Z" },
    });
    clock = new Date("2026-11-21T14:00:00.000Z");
    await h.putConfig(account, "products", null);
    clock = new Date("2026-11-21T15:00:00.000Z");
    await h.putConfig(account, "products", config(1)); // named again: it leaves the history
    expect(await history()).toEqual({
      version: 6,
      history: { [`${account}:products:v2`]: "2026-11-21T14:00:00.000Z" },
    });
    // A malformed stored config (direct edit) still named a model that may have been served.
    await h.table.setAttribute(account, "INDEX#products", "relevance_trigger_config", { model_id: "odd" });
    await h.putConfig(account, "products", config(3));
    expect((await history()).history).toEqual({
      [`${account}:products:v2`]: "2026-11-21T14:00:00.000Z",
      odd: "2026-11-21T15:00:00.000Z",
    });
    // The exporter copies it with the rest of the record; the customer never sees it.
    await h.drain();
    expect((await h.copy(account, "products"))?.relevance_model_history).toBeDefined();
    const settings = await h.customer(apiKey, "GET", "/api/v1/indexes/products/settings");
    expect(settings.body).not.toHaveProperty("relevance_model_history");
  });

  it("logs each change with its warnings", async () => {
    const { h, account } = await setup();
    const modelId = `${account}:products:v1`;
    await h.putConfig(account, "products", { modelId, titleField: null, tagsField: null });
    expect(h.lines).toContainEqual({
      level: "info",
      message: "relevance trigger config set",
      fields: expect.objectContaining({
        systemAccountId: account,
        index: "products",
        modelId,
      }),
    });
  });
});
