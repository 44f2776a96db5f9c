import { describe, expect, it } from "vitest";
import { parseApiKeyCopy, parseSettingsCopy, settingsView } from "./settings-copy.ts";

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
        displayedAttributes: ["*"],
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
        relevanceTriggerConfig: { odd: 1 },
      },
    });
  });

  it("carries every customer setting of the copy, with defaults for the parts left out", () => {
    const view = parseSettingsCopy(
      JSON.stringify({
        type: "index",
        searchable_attributes: ["title", "description"],
        displayed_attributes: ["title"],
        sortable_attributes: ["price"],
        synonyms: { phone: ["iphone"] },
        stop_words: ["the"],
        typo_tolerance: { enabled: false, minWordSizeForTypos: { twoTypos: 7 }, disableOnWords: ["nike"] },
        ranking_rules: ["words", "typo", "proximity", "attribute", "sort", "exactness"],
      }),
    );
    expect(view.ok && view.value).toMatchObject({
      searchableAttributes: ["title", "description"],
      displayedAttributes: ["title"],
      sortableAttributes: ["price"],
      synonyms: { phone: ["iphone"] },
      stopWords: ["the"],
      typoTolerance: {
        enabled: false,
        minWordSizeForTypos: { oneTypo: 5, twoTypos: 7 },
        disableOnWords: ["nike"],
        disableOnAttributes: [],
      },
    });
  });

  it("refuses malformed settings rather than searching without them", () => {
    const bad = {
      synonyms: { phone: "iphone" },
      stop_words: [1],
      typo_tolerance: { enabled: "yes", minWordSizeForTypos: { oneTypo: -1 } },
      ranking_rules: "words",
      displayed_attributes: {},
    };
    const view = parseSettingsCopy(JSON.stringify(bad));
    expect(view.ok === false && view.errors.map((e) => e.path).sort()).toEqual([
      "displayed_attributes",
      "ranking_rules",
      "stop_words",
      "synonyms.phone",
      "typo_tolerance.enabled",
      "typo_tolerance.minWordSizeForTypos.oneTypo",
    ]);
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

  it("reads the account of an API key copy, and what the key may do (a copy without actions: everything)", () => {
    expect(parseApiKeyCopy('{"system_account_id":"acct_1","version":2}')).toEqual({
      ok: true,
      value: { account: "acct_1", grant: { uid: null, actions: ["*"], indexes: ["*"], expiresAt: null } },
    });
    expect(
      parseApiKeyCopy(
        '{"system_account_id":"acct_1","uid":"u","actions":["search"],"indexes":["p*"],"expires_at":"2027-01-01T00:00:00.000Z","version":1}',
      ),
    ).toEqual({
      ok: true,
      value: {
        account: "acct_1",
        grant: { uid: "u", actions: ["search"], indexes: ["p*"], expiresAt: "2027-01-01T00:00:00.000Z" },
      },
    });
    expect(parseApiKeyCopy('{"version":2}').ok).toBe(false);
  });
});

describe("settingsView", () => {
  it("reads a copy in memory exactly as parseSettingsCopy reads its JSON text", () => {
    const copies: unknown[] = [
      {
        type: "index",
        primary_key: "sku",
        searchable_attributes: ["title"],
        synonyms: { tv: ["television"] },
      },
      { type: "alias", alias_of: "products" },
      { type: "alias" },
      { searchable_attributes: "title" },
      [],
    ];
    for (const copy of copies) expect(settingsView(copy)).toEqual(parseSettingsCopy(JSON.stringify(copy)));
  });
});
