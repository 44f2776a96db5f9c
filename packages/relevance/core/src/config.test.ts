import { describe, expect, it } from "vitest";
import {
  parseModelId,
  toStoredConfig,
  validateRelevanceTriggerConfig,
  validateStoredRelevanceTriggerConfig,
} from "./config.ts";

describe("validateRelevanceTriggerConfig (admin form)", () => {
  it("accepts all three fields, null field names, and null to disable", () => {
    expect(
      validateRelevanceTriggerConfig({ modelId: "a:b:v1", titleField: "title", tagsField: null }),
    ).toEqual({
      ok: true,
      value: { modelId: "a:b:v1", titleField: "title", tagsField: null },
    });
    expect(validateRelevanceTriggerConfig(null)).toEqual({ ok: true, value: null });
  });

  it("requires titleField and tagsField: there is no implicit fallback", () => {
    const r = validateRelevanceTriggerConfig({ modelId: "a:b:v1" });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.map((e) => e.path)).toEqual([
        "relevanceTriggerConfig.titleField",
        "relevanceTriggerConfig.tagsField",
      ]);
      expect(r.errors[0]?.message).toMatch(/required/);
    }
  });

  it("rejects unknown sub-fields, wrong types, empty, over-long and control-character values, all at once", () => {
    const r = validateRelevanceTriggerConfig({
      modelId: 3,
      titleField: "",
      tagsField: "a\u0007",
      extra: true,
      model_id: "x",
    });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      const byPath = Object.fromEntries(r.errors.map((e) => [e.path, e.message]));
      expect(Object.keys(byPath).sort()).toEqual(
        ["extra", "model_id", "modelId", "tagsField", "titleField"]
          .map((k) => `relevanceTriggerConfig.${k}`)
          .sort(),
      );
      expect(byPath["relevanceTriggerConfig.modelId"]).toMatch(/string/);
      expect(byPath["relevanceTriggerConfig.titleField"]).toMatch(/empty/);
      expect(byPath["relevanceTriggerConfig.tagsField"]).toMatch(/control/);
      expect(byPath["relevanceTriggerConfig.extra"]).toMatch(/not a known field/);
    }
    const long = validateRelevanceTriggerConfig({
      modelId: "m".repeat(257),
      titleField: null,
      tagsField: null,
    });
    expect(long.ok).toBe(false);
    expect(validateRelevanceTriggerConfig({ modelId: null, titleField: null, tagsField: null }).ok).toBe(
      false,
    );
  });

  it("rejects a non-object", () => {
    const r = validateRelevanceTriggerConfig(["a"]);
    expect(r.ok ? null : r.errors[0]).toEqual({
      path: "relevanceTriggerConfig",
      message: "must be an object or null, got an array",
    });
  });
});

describe("validateStoredRelevanceTriggerConfig (snake_case, as in the settings table)", () => {
  it("accepts NULL field names and converts to the camelCase form", () => {
    expect(
      validateStoredRelevanceTriggerConfig({ model_id: "a:b:v2", title_field: null, tags_field: "tags" }),
    ).toEqual({
      ok: true,
      value: { modelId: "a:b:v2", titleField: null, tagsField: "tags" },
    });
  });

  it("names snake_case paths in its errors, e.g. for a camelCase key written by hand", () => {
    const r = validateStoredRelevanceTriggerConfig({ modelId: "a:b:v2", title_field: null });
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual([
      "relevance_trigger_config.modelId",
      "relevance_trigger_config.model_id",
      "relevance_trigger_config.tags_field",
    ]);
  });

  it("round-trips through toStoredConfig", () => {
    const config = { modelId: "a:b:v3", titleField: "name", tagsField: null };
    expect(validateStoredRelevanceTriggerConfig(toStoredConfig(config))).toEqual({ ok: true, value: config });
  });
});

describe("parseModelId", () => {
  it("parses <account>:<index>:v<n> and returns null otherwise", () => {
    expect(parseModelId("acct-1:products:v12")).toEqual({
      account: "acct-1",
      index: "products",
      version: 12,
    });
    expect(parseModelId("products-v1")).toBeNull();
    expect(parseModelId("a:b:c:v1")).toBeNull();
    expect(parseModelId("a:b:vx")).toBeNull();
  });
  it("with the index's account, refuses a model id of another account (and only that)", () => {
    const other = validateRelevanceTriggerConfig(
      { modelId: "acct_b:products:v1", titleField: null, tagsField: null },
      "relevanceTriggerConfig",
      "acct_a",
    );
    expect(other.ok).toBe(false);
    expect(!other.ok && other.errors).toEqual([
      {
        path: "relevanceTriggerConfig.modelId",
        message:
          "names a model of account acct_b; an index of account acct_a may only use its own models (acct_a:<index_name>:v<n>)",
      },
    ]);
    const stored = validateStoredRelevanceTriggerConfig(
      { model_id: "acct_b:products:v1", title_field: null, tags_field: null },
      undefined,
      "acct_a",
    );
    expect(!stored.ok && stored.errors.map((e) => e.path)).toEqual(["relevance_trigger_config.model_id"]);
    for (const modelId of ["acct_a:products:v1", "products-latest", "acct_a:catalog:v3"]) {
      const own = validateRelevanceTriggerConfig(
        { modelId, titleField: null, tagsField: null },
        "c",
        "acct_a",
      );
      expect(own.ok, modelId).toBe(true);
    }
  });
});
