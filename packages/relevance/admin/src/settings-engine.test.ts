// The settings the search engines honour (docs/search.md, "Compatibility: index settings"): the new
// ones are stored and answered with Meilisearch's defaults; what the embedded engine cannot honour
// is refused with 422 naming it, never stored and silently ignored.
import { beforeEach, describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "./test-support/harness.ts";

const SETTINGS = "/api/v1/indexes/products/settings";
const DEFAULT_RULES = ["words", "typo", "proximity", "attribute", "sort", "exactness"];

describe("customer settings: typoTolerance, rankingRules, one-word synonyms and stop words", () => {
  let h: Harness;
  let account: string;
  let key: string;
  beforeEach(async () => {
    h = makeHarness();
    ({ systemAccountId: account, apiKey: key } = await h.account());
    await h.index(key, "products");
  });

  const patch = (body: unknown) => h.customer(key, "PATCH", SETTINGS, body);
  const paths = (res: { body: { error: { details: { path: string }[] } } }) =>
    res.body.error.details.map((d) => d.path);

  it("stores typoTolerance merged field by field, answers it with the defaults, copies it to KV", async () => {
    const first = await patch({ typoTolerance: { minWordSizeForTypos: { oneTypo: 4 } } });
    expect(first.status).toBe(200);
    expect(first.body.typoTolerance).toEqual({
      enabled: true,
      minWordSizeForTypos: { oneTypo: 4, twoTypos: 9 },
      disableOnWords: [],
      disableOnAttributes: [],
    });
    const second = await patch({ typoTolerance: { enabled: false, disableOnWords: ["Nike"] } });
    expect(second.body.typoTolerance).toEqual({
      enabled: false,
      minWordSizeForTypos: { oneTypo: 4, twoTypos: 9 },
      disableOnWords: ["Nike"],
      disableOnAttributes: [],
    });
    expect((await h.customer(key, "GET", SETTINGS)).body.typoTolerance).toEqual(second.body.typoTolerance);
    await h.drain();
    expect(await h.copy(account, "products")).toMatchObject({
      typo_tolerance: { enabled: false, minWordSizeForTypos: { oneTypo: 4 }, disableOnWords: ["Nike"] },
    });
    const reset = await patch({ typoTolerance: null });
    expect(reset.body.typoTolerance.minWordSizeForTypos).toEqual({ oneTypo: 5, twoTypos: 9 });
  });

  it("accepts the default rankingRules, with sort at any position, and refuses any other list naming rankingRules", async () => {
    const ok = await patch({ rankingRules: DEFAULT_RULES });
    expect(ok.status).toBe(200);
    expect(ok.body.rankingRules).toEqual(DEFAULT_RULES);
    const sortFirst = ["sort", ...DEFAULT_RULES.filter((r) => r !== "sort")];
    const moved = await patch({ rankingRules: sortFirst });
    expect(moved.status).toBe(200);
    expect(moved.body.rankingRules).toEqual(sortFirst);
    for (const rules of [
      ["words", "typo"],
      [...DEFAULT_RULES, "price:desc"],
      [...DEFAULT_RULES].reverse(),
      ["typo", "words", "proximity", "attribute", "sort", "exactness"],
    ]) {
      const res = await patch({ rankingRules: rules });
      expect(res.status, JSON.stringify(rules)).toBe(422);
      expect(paths(res)).toEqual(["rankingRules"]);
    }
    const long = await patch({ rankingRules: Array.from({ length: 21 }, () => "words") });
    expect(long.body.error.details[0].message).toMatch(/more than the limit of 20/);
  });

  it("refuses what the embedded engine cannot honour, naming each setting", async () => {
    const res = await patch({
      synonyms: { phone: ["smart phone"], "new york": ["ny"] },
      stopWords: ["of the", "--"],
      typoTolerance: {
        disableOnAttributes: ["title"],
        disableOnNumbers: true,
        minWordSizeForTypos: { oneTypo: 256, threeTypos: 12 },
        enabled: "yes",
      },
    });
    expect(res.status).toBe(422);
    expect(paths(res).sort()).toEqual(
      [
        "synonyms.phone[0]",
        "synonyms.new york",
        "stopWords[0]",
        "stopWords[1]",
        "typoTolerance.disableOnAttributes",
        "typoTolerance.disableOnNumbers",
        "typoTolerance.minWordSizeForTypos.oneTypo",
        "typoTolerance.minWordSizeForTypos.threeTypos",
        "typoTolerance.enabled",
      ].sort(),
    );
    // Nothing was stored.
    expect((await h.customer(key, "GET", SETTINGS)).body.synonyms).toEqual({});
  });

  it("refuses oneTypo greater than twoTypos, also when only the merge makes it so", async () => {
    expect(
      (await patch({ typoTolerance: { minWordSizeForTypos: { oneTypo: 6, twoTypos: 5 } } })).status,
    ).toBe(422);
    const merged = await patch({ typoTolerance: { minWordSizeForTypos: { oneTypo: 10 } } });
    expect(merged.status).toBe(422);
    expect(paths(merged)).toEqual(["typoTolerance.minWordSizeForTypos"]);
  });

  it("still refuses the relevance trigger config (422) and accepts one-word synonyms and stop words", async () => {
    expect((await patch({ relevanceTriggerConfig: null })).status).toBe(422);
    const ok = await patch({ synonyms: { Phone: ["iPhone", "mobile"] }, stopWords: ["the", "l'"] });
    expect(ok.status).toBe(200);
  });
});
