// The observable outcomes that concern configuration, observed through the KV copy
// `<system_account_id>-<index_name>` that the settings exporter writes.
import { modelKey } from "@relevance/core";
import { beforeEach, describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "./test-support/harness.ts";

describe("seed section 3: configuration effects through the KV copy", () => {
  let h: Harness;
  let account: string;
  let key: string;
  beforeEach(async () => {
    h = makeHarness();
    ({ systemAccountId: account, apiKey: key } = await h.account());
    await h.index(key, "products");
    await h.drain();
  });

  it("an artifact upload alone changes no index's settings copy", async () => {
    const before = await h.copy(account, "products");
    expect(before).toMatchObject({ type: "index", system_account_id: account, index_name: "products" });
    await h.upload(`${account}:products:v1`, "title", "tags");
    expect(await h.drain()).toBe(0);
    expect(await h.copy(account, "products")).toEqual(before);
    expect(before).not.toHaveProperty("relevance_trigger_config");
  });

  it("config set with the artifact present: the copy has the snake_case config, no warning", async () => {
    const modelId = `${account}:products:v1`;
    await h.upload(modelId, "title", null);
    const res = await h.putConfig(account, "products", { modelId, titleField: "title", tagsField: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      relevanceTriggerConfig: { modelId, titleField: "title", tagsField: null },
      version: 2,
      warnings: [],
    });
    await h.drain();
    const copy = await h.copy(account, "products");
    expect(copy?.relevance_trigger_config).toEqual({
      model_id: modelId,
      title_field: "title",
      tags_field: null,
    });
    expect(copy?.version).toBe(2);
  });

  it("config set without the artifact: a warning in the response, the copy has the config", async () => {
    const modelId = `${account}:products:v1`;
    const res = await h.putConfig(account, "products", { modelId, titleField: "title", tagsField: "tags" });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      expect.stringContaining(`no model artifact under ${modelKey(modelId)}`),
    ]);
    await h.drain();
    expect((await h.copy(account, "products"))?.relevance_trigger_config).toEqual({
      model_id: modelId,
      title_field: "title",
      tags_field: "tags",
    });
    // Upload afterwards (the two parts are independent): the copy is unchanged and complete.
    await h.upload(modelId, "title", "tags");
    expect((await h.getConfig(account, "products")).body.relevanceTriggerConfig.modelId).toBe(modelId);
  });

  it("PUT null: the copy has no relevance_trigger_config and the artifact stays in KV", async () => {
    const modelId = `${account}:products:v1`;
    await h.upload(modelId, "title", "tags");
    await h.putConfig(account, "products", { modelId, titleField: "title", tagsField: "tags" });
    const res = await h.putConfig(account, "products", null);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ relevanceTriggerConfig: null, version: 3, warnings: [] });
    await h.drain();
    const copy = await h.copy(account, "products");
    expect(copy).not.toHaveProperty("relevance_trigger_config");
    expect(copy?.version).toBe(3);
    expect(await h.kv.get(modelKey(modelId))).not.toBeNull();
    expect((await h.getConfig(account, "products")).body).toEqual({
      relevanceTriggerConfig: null,
      version: 3,
    });
  });

  it("removal of the attribute by a direct table edit: the copy loses it, the artifact stays", async () => {
    const modelId = `${account}:products:v1`;
    await h.upload(modelId, "title", "tags");
    await h.putConfig(account, "products", { modelId, titleField: "title", tagsField: "tags" });
    await h.table.setAttribute(account, "INDEX#products", "relevance_trigger_config", undefined);
    await h.drain();
    expect(await h.copy(account, "products")).not.toHaveProperty("relevance_trigger_config");
    expect(await h.kv.get(modelKey(modelId))).not.toBeNull();
  });

  it("switch to a new modelId: the copy names the new one, the old artifact remains", async () => {
    const v1 = `${account}:products:v1`;
    const v2 = `${account}:products:v2`;
    await h.upload(v1, "title", "tags");
    await h.putConfig(account, "products", { modelId: v1, titleField: "title", tagsField: "tags" });
    await h.upload(v2, "title", "tags");
    const res = await h.putConfig(account, "products", {
      modelId: v2,
      titleField: "title",
      tagsField: "tags",
    });
    expect(res.body.warnings).toEqual([]);
    await h.drain();
    expect((await h.copy(account, "products"))?.relevance_trigger_config).toMatchObject({ model_id: v2 });
    expect(await h.kv.get(modelKey(v1))).not.toBeNull();
  });

  it("alias: the config is set on both records and both copies carry it; one upload serves both", async () => {
    const modelId = `${account}:products:v1`;
    await h.upload(modelId, "title", "tags");
    const alias = await h.customer(key, "PUT", "/api/v1/aliases/shop", { index: "products" });
    expect(alias.status).toBe(200);
    const config = { modelId, titleField: "title", tagsField: "tags" };
    expect((await h.putConfig(account, "products", config)).body.warnings).toEqual([]);
    expect((await h.putConfig(account, "shop", config)).body.warnings).toEqual([]);
    await h.drain();
    const stored = { model_id: modelId, title_field: "title", tags_field: "tags" };
    expect(await h.copy(account, "products")).toMatchObject({
      type: "index",
      relevance_trigger_config: stored,
    });
    expect(await h.copy(account, "shop")).toMatchObject({
      type: "alias",
      alias_of: "products",
      relevance_trigger_config: stored,
    });

    // Re-pointing the alias keeps its own config.
    await h.index(key, "products2");
    expect((await h.customer(key, "PUT", "/api/v1/aliases/shop", { index: "products2" })).status).toBe(200);
    await h.drain();
    expect(await h.copy(account, "shop")).toMatchObject({
      alias_of: "products2",
      relevance_trigger_config: stored,
    });
  });

  it("deleting an index removes its KV copy", async () => {
    expect((await h.customer(key, "DELETE", "/api/v1/indexes/products")).status).toBe(200);
    await h.drain();
    expect(await h.copy(account, "products")).toBeNull();
  });
});
