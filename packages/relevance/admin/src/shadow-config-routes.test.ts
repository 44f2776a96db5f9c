import { shadowConfigOf } from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./test-support/harness.ts";

const path = (account: string, index: string) =>
  `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-shadow-config`;

async function setup() {
  const h = makeHarness();
  const { systemAccountId: account, apiKey } = await h.account();
  await h.index(apiKey, "products");
  const put = (config: unknown, headers: Record<string, string> = {}) =>
    h.admin("PUT", path(account, "products"), { relevanceShadowConfig: config }, headers);
  const get = () => h.admin("GET", path(account, "products"));
  return { h, account, apiKey, put, get };
}

describe("admin relevance-shadow-config", () => {
  it("reads null by default, stores {model_id, sample_rate}, and reaches the KV copy the search reads", async () => {
    const { h, account, put, get } = await setup();
    const empty = await get();
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ relevanceShadowConfig: null, version: 1 });

    const modelId = `${account}:products:v2`;
    await h.upload(modelId, "title", null);
    const written = await put({ modelId, sampleRate: 0.25 });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({
      relevanceShadowConfig: { modelId, sampleRate: 0.25 },
      version: 2,
      warnings: [],
    });
    expect(written.headers.get("etag")).toBe('"2"');
    expect((await get()).body).toEqual({ relevanceShadowConfig: { modelId, sampleRate: 0.25 }, version: 2 });
    expect((await h.table.get(account, "INDEX#products"))?.attributes.relevance_shadow_config).toEqual({
      model_id: modelId,
      sample_rate: 0.25,
    });

    await h.drain();
    const copy = await h.copy(account, "products");
    expect(copy?.relevance_shadow_config).toEqual({ model_id: modelId, sample_rate: 0.25 });
    expect(shadowConfigOf(copy?.relevance_shadow_config)).toEqual({
      config: { model_id: modelId, sample_rate: 0.25 },
      valid: true,
    });

    const removed = await put(null);
    expect(removed.body).toEqual({ relevanceShadowConfig: null, version: 3, warnings: [] });
    await h.drain();
    expect(await h.copy(account, "products")).not.toHaveProperty("relevance_shadow_config");
  });

  it("writes a config whose artifact is not uploaded yet, with a warning", async () => {
    const { account, put } = await setup();
    const res = await put({ modelId: `${account}:products:v9`, sampleRate: 1 });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      `no model artifact under relevance_model:${account}:products:v9 yet; searches are recorded without shadow scores until it is uploaded`,
    ]);
  });

  it("leaves the relevance trigger config exactly as it was (its three fields)", async () => {
    const { h, account, put } = await setup();
    const trigger = { modelId: `${account}:products:v1`, titleField: "title", tagsField: null };
    expect((await h.putConfig(account, "products", trigger)).status).toBe(200);
    expect((await put({ modelId: `${account}:products:v2`, sampleRate: 0.5 })).status).toBe(200);
    expect((await h.table.get(account, "INDEX#products"))?.attributes.relevance_trigger_config).toEqual({
      model_id: `${account}:products:v1`,
      title_field: "title",
      tags_field: null,
    });
    expect((await h.getConfig(account, "products")).body.relevanceTriggerConfig).toEqual(trigger);
    // The trigger config still refuses a shadow sub-field.
    const extra = await h.putConfig(account, "products", { ...trigger, shadowModelId: "x" });
    expect(extra.status).toBe(422);
  });

  it("refuses a bad model, rate or body with a 422 naming the field, and writes nothing", async () => {
    const { h, account, put } = await setup();
    const own = `${account}:products:v2`;
    const cases: [unknown, string][] = [
      [{ modelId: own, sampleRate: 1.5 }, "relevanceShadowConfig.sampleRate"],
      [{ modelId: own, sampleRate: -0.01 }, "relevanceShadowConfig.sampleRate"],
      [{ modelId: own, sampleRate: "0.5" }, "relevanceShadowConfig.sampleRate"],
      [{ modelId: own }, "relevanceShadowConfig.sampleRate"],
      [{ sampleRate: 0.5 }, "relevanceShadowConfig.modelId"],
      [{ modelId: "", sampleRate: 0.5 }, "relevanceShadowConfig.modelId"],
      [{ modelId: "x".repeat(257), sampleRate: 0.5 }, "relevanceShadowConfig.modelId"],
      [{ modelId: "a\nb", sampleRate: 0.5 }, "relevanceShadowConfig.modelId"],
      [{ modelId: "acct_ffffffffffff:products:v1", sampleRate: 0.5 }, "relevanceShadowConfig.modelId"],
      [{ modelId: own, sampleRate: 0.5, extra: 1 }, "relevanceShadowConfig.extra"],
      [{ model_id: own, sample_rate: 0.5 }, "relevanceShadowConfig.model_id"],
      [0.5, "relevanceShadowConfig"],
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
    expect(missingKey.body.error.details[0].path).toBe("relevanceShadowConfig");
    expect(h.dump()).toBe(before);
  });

  it("404 for a missing account or index; 409 for a stale If-Match", async () => {
    const { h, account, put } = await setup();
    for (const [acct, index] of [
      ["acct_000000000000", "products"],
      [account, "missing"],
    ] as const) {
      expect((await h.admin("GET", path(acct, index))).status).toBe(404);
      expect((await h.admin("PUT", path(acct, index), { relevanceShadowConfig: null })).status).toBe(404);
    }
    expect((await put(null, { "if-match": '"1"' })).status).toBe(200);
    expect((await put(null, { "if-match": '"1"' })).status).toBe(409);
  });

  it("shows a malformed or other account's stored value as is, with its problems", async () => {
    const { h, account, get } = await setup();
    // direct table edits
    await h.table.setAttribute(account, "INDEX#products", "relevance_shadow_config", {
      model_id: "m",
      sample_rate: 7,
    });
    const bad = await get();
    expect(bad.body.relevanceShadowConfig).toEqual({ model_id: "m", sample_rate: 7 });
    expect(bad.body.storedConfigProblems[0].path).toBe("relevance_shadow_config.sample_rate");
    const other = { model_id: "acct_ffffffffffff:products:v1", sample_rate: 1 };
    await h.table.setAttribute(account, "INDEX#products", "relevance_shadow_config", other);
    const res = await get();
    expect(res.body.relevanceShadowConfig).toEqual(other);
    expect(res.body.storedConfigProblems[0].path).toBe("relevance_shadow_config.model_id");
  });
});
