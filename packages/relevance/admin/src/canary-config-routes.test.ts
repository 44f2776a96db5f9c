import { canaryConfigOf } from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./test-support/harness.ts";

const path = (account: string, index: string) =>
  `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-canary-config`;

async function setup() {
  const h = makeHarness();
  const { systemAccountId: account, apiKey } = await h.account();
  await h.index(apiKey, "products");
  const put = (config: unknown, headers: Record<string, string> = {}) =>
    h.admin("PUT", path(account, "products"), { relevanceCanaryConfig: config }, headers);
  const get = () => h.admin("GET", path(account, "products"));
  return { h, account, apiKey, put, get };
}

describe("admin relevance-canary-config", () => {
  it("reads null by default, stores {model_id, percent}, and reaches the KV copy the search reads", async () => {
    const { h, account, put, get } = await setup();
    const empty = await get();
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ relevanceCanaryConfig: null, version: 1 });
    expect(empty.headers.get("etag")).toBe('"1"');

    const modelId = `${account}:products:v2`;
    await h.upload(modelId, "title", null);
    const written = await put({ modelId, percent: 10 }, { "if-match": '"1"' });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({
      relevanceCanaryConfig: { modelId, percent: 10 },
      version: 2,
      warnings: [],
    });
    expect(written.headers.get("etag")).toBe('"2"');
    expect((await get()).body).toEqual({ relevanceCanaryConfig: { modelId, percent: 10 }, version: 2 });
    expect((await h.table.get(account, "INDEX#products"))?.attributes.relevance_canary_config).toEqual({
      model_id: modelId,
      percent: 10,
    });

    await h.drain();
    const copy = await h.copy(account, "products");
    expect(copy?.relevance_canary_config).toEqual({ model_id: modelId, percent: 10 });
    expect(canaryConfigOf(copy?.relevance_canary_config)).toEqual({
      config: { model_id: modelId, percent: 10 },
      valid: true,
    });

    const removed = await put(null, { "if-match": '"2"' });
    expect(removed.body).toEqual({ relevanceCanaryConfig: null, version: 3, warnings: [] });
    await h.drain();
    expect(await h.copy(account, "products")).not.toHaveProperty("relevance_canary_config");
  });

  it("refuses a model whose artifact is not uploaded or does not load, and writes nothing", async () => {
    const { h, account, put } = await setup();
    const before = h.dump();
    const missing = await put({ modelId: `${account}:products:v9`, percent: 5 });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([
      {
        path: "relevanceCanaryConfig.modelId",
        message: `no model artifact under relevance_model:${account}:products:v9; upload it before a canary serves it`,
      },
    ]);
    await h.kv.put(`relevance_model:${account}:products:v8`, "{not an artifact");
    const broken = await put({ modelId: `${account}:products:v8`, percent: 5 });
    expect(broken.status).toBe(422);
    expect(broken.body.error.details[0].path).toBe("relevanceCanaryConfig.modelId");
    expect(h.dump()).toBe(before);
  });

  it("leaves the relevance trigger and shadow configs exactly as they were", async () => {
    const { h, account, put } = await setup();
    const trigger = { modelId: `${account}:products:v1`, titleField: "title", tagsField: null };
    expect((await h.putConfig(account, "products", trigger)).status).toBe(200);
    await h.upload(`${account}:products:v2`, "title", null);
    const shadowPath = `/api/v1/admin/accounts/${account}/indexes/products/relevance-shadow-config`;
    const shadow = { modelId: `${account}:products:v2`, sampleRate: 0.5 };
    expect((await h.admin("PUT", shadowPath, { relevanceShadowConfig: shadow })).status).toBe(200);
    expect((await put({ modelId: `${account}:products:v2`, percent: 50 })).status).toBe(200);
    const stored = (await h.table.get(account, "INDEX#products"))?.attributes;
    expect(stored?.relevance_trigger_config).toEqual({
      model_id: `${account}:products:v1`,
      title_field: "title",
      tags_field: null,
    });
    expect(stored?.relevance_shadow_config).toEqual({ model_id: `${account}:products:v2`, sample_rate: 0.5 });
    // The trigger config still refuses a canary sub-field.
    expect((await h.putConfig(account, "products", { ...trigger, canaryPercent: 5 })).status).toBe(422);
  });

  it("refuses a bad model, percent or body with a 422 naming the field, and writes nothing", async () => {
    const { h, account, put } = await setup();
    const own = `${account}:products:v2`;
    await h.upload(own, "title", null);
    const cases: [unknown, string][] = [
      [{ modelId: own, percent: 100.5 }, "relevanceCanaryConfig.percent"],
      [{ modelId: own, percent: -1 }, "relevanceCanaryConfig.percent"],
      [{ modelId: own, percent: "5" }, "relevanceCanaryConfig.percent"],
      [{ modelId: own, percent: null }, "relevanceCanaryConfig.percent"],
      [{ modelId: own }, "relevanceCanaryConfig.percent"],
      [{ percent: 5 }, "relevanceCanaryConfig.modelId"],
      [{ modelId: "", percent: 5 }, "relevanceCanaryConfig.modelId"],
      [{ modelId: "x".repeat(257), percent: 5 }, "relevanceCanaryConfig.modelId"],
      [{ modelId: "a\nb", percent: 5 }, "relevanceCanaryConfig.modelId"],
      [{ modelId: "acct_ffffffffffff:products:v1", percent: 5 }, "relevanceCanaryConfig.modelId"],
      [{ modelId: own, percent: 5, extra: 1 }, "relevanceCanaryConfig.extra"],
      [{ model_id: own, percent: 5 }, "relevanceCanaryConfig.model_id"],
      [5, "relevanceCanaryConfig"],
    ];
    const before = h.dump();
    for (const [config, field] of cases) {
      const res = await put(config);
      expect(res.status, JSON.stringify(config)).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    const missingKey = await h.admin("PUT", path(account, "products"), {});
    expect(missingKey.status).toBe(422);
    expect(missingKey.body.error.details[0].path).toBe("relevanceCanaryConfig");
    expect(h.dump()).toBe(before);
  });

  it("404 for a missing account or index; 409 for a stale If-Match; 422 for a malformed one", async () => {
    const { h, account, put } = await setup();
    for (const [acct, index] of [
      ["acct_000000000000", "products"],
      [account, "missing"],
    ] as const) {
      expect((await h.admin("GET", path(acct, index))).status).toBe(404);
      expect((await h.admin("PUT", path(acct, index), { relevanceCanaryConfig: null })).status).toBe(404);
    }
    expect((await put(null, { "if-match": '"1"' })).status).toBe(200);
    const stale = await put(null, { "if-match": '"1"' });
    expect(stale.status).toBe(409);
    expect((await put(null, { "if-match": "nope" })).status).toBe(422);
  });

  it("shows a malformed or other account's stored value as is, with its problems", async () => {
    const { h, account, get } = await setup();
    // direct table edits
    await h.table.setAttribute(account, "INDEX#products", "relevance_canary_config", {
      model_id: "m",
      percent: 700,
    });
    const bad = await get();
    expect(bad.body.relevanceCanaryConfig).toEqual({ model_id: "m", percent: 700 });
    expect(bad.body.storedConfigProblems[0].path).toBe("relevance_canary_config.percent");
    const other = { model_id: "acct_ffffffffffff:products:v1", percent: 1 };
    await h.table.setAttribute(account, "INDEX#products", "relevance_canary_config", other);
    const res = await get();
    expect(res.body.relevanceCanaryConfig).toEqual(other);
    expect(res.body.storedConfigProblems[0].path).toBe("relevance_canary_config.model_id");
  });
});
