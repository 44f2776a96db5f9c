import type { TableItem } from "@relevance/settings";
import { describe, expect, it } from "vitest";
import { modelUse, switchedAttributes, versionKeys, versionsSeen } from "./records.ts";

const item = (name: string, attributes: Record<string, unknown>): TableItem => ({
  pk: "a",
  sk: `INDEX#${name}`,
  version: 3,
  attributes: { type: "index", ...attributes },
});
const config = (modelId: string) => ({ model_id: modelId, title_field: null, tags_field: null });
const at = new Date("2026-11-21T12:00:00.000Z");

describe("grace-period bookkeeping on settings records", () => {
  it("records the model a record stops naming and drops the one it names again", () => {
    const before = item("p", {
      relevance_trigger_config: config("a:p:v2"),
      relevance_model_history: { "a:p:v1": "2026-11-20T00:00:00.000Z", "a:p:v3": "2026-11-19T00:00:00.000Z" },
    });
    const next = switchedAttributes(before, { modelId: "a:p:v3", titleField: "t", tagsField: null }, at);
    expect(next.relevance_trigger_config).toEqual({ model_id: "a:p:v3", title_field: "t", tags_field: null });
    expect(next.relevance_model_history).toEqual({
      "a:p:v1": "2026-11-20T00:00:00.000Z",
      "a:p:v2": "2026-11-21T12:00:00.000Z",
    });
    const disabled = switchedAttributes(item("p", { relevance_trigger_config: config("a:p:v1") }), null, at);
    expect(disabled).not.toHaveProperty("relevance_trigger_config");
    expect(disabled.relevance_model_history).toEqual({ "a:p:v1": at.toISOString() });
    // The same model again: nothing stops being named.
    const same = switchedAttributes(
      item("p", { relevance_trigger_config: config("a:p:v1") }),
      {
        modelId: "a:p:v1",
        titleField: null,
        tagsField: null,
      },
      at,
    );
    expect(same).not.toHaveProperty("relevance_model_history");
  });

  it("counts a record as using a model while it names it and for 24 h after; an unreadable time keeps it", () => {
    const records = [
      item("catalog", { type: "alias", relevance_trigger_config: config("a:p:v2") }),
      item("p", {
        relevance_trigger_config: { model_id: "a:p:v2" }, // malformed, but it names v2
        relevance_model_history: { "a:p:v1": "2026-11-20T12:00:00.001Z", "a:p:v0": "garbage" },
      }),
    ];
    expect(modelUse(records, "a:p:v2", at).namedBy).toEqual(["catalog", "p"]);
    expect(modelUse(records, "a:p:v1", at).recentlyBy).toEqual([
      { record: "p", since: "2026-11-20T12:00:00.001Z", until: "2026-11-21T12:00:00.001Z" },
    ]);
    expect(modelUse(records, "a:p:v1", new Date("2026-11-21T12:00:00.001Z")).recentlyBy).toEqual([]);
    expect(modelUse(records, "a:p:v0", at).recentlyBy).toHaveLength(1);
    expect(versionsSeen(records, "a", "p").sort()).toEqual([0, 1, 2, 2]);
  });

  it("reads versions only from keys of the account and index", () => {
    const keys = [
      "relevance_model:a:p:v10",
      "relevance_model:a:p:v9",
      "relevance_model:a:px:v1",
      "relevance_model:a:p:latest",
    ];
    expect(versionKeys(keys, "a", "p").map((k) => k.version)).toEqual([9, 10]);
  });
});
