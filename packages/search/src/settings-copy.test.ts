import { describe, expect, it } from "vitest";
import { parseApiKeyCopy, parseSettingsCopy } from "./settings-copy.ts";

describe("settings copies", () => {
  it("reads an index copy with defaults and passes the relevance config through untouched", () => {
    const view = parseSettingsCopy(JSON.stringify({ type: "index", relevance_trigger_config: { odd: 1 } }));
    expect(view).toEqual({
      ok: true,
      value: {
        type: "index",
        aliasOf: undefined,
        primaryKey: "id",
        searchableAttributes: [],
        filterableAttributes: [],
        relevanceTriggerConfig: { odd: 1 },
      },
    });
  });

  it("refuses an alias without alias_of, an unknown type and bad attribute lists", () => {
    const view = parseSettingsCopy(JSON.stringify({ type: "alias", filterable_attributes: "tags" }));
    expect(view.ok === false && view.errors.map((e) => e.path)).toEqual([
      "alias_of",
      "filterable_attributes",
    ]);
    expect(parseSettingsCopy('{"type":"view"}').ok).toBe(false);
    expect(parseSettingsCopy("[]").ok).toBe(false);
    expect(parseSettingsCopy("{").ok).toBe(false);
  });

  it("reads the account of an API key copy", () => {
    expect(parseApiKeyCopy('{"system_account_id":"acct_1","version":2}')).toEqual({
      ok: true,
      value: { account: "acct_1" },
    });
    expect(parseApiKeyCopy('{"version":2}').ok).toBe(false);
  });
});
