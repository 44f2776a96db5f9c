import {
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTES,
  MAX_SETTINGS_BYTES,
  MAX_STOP_WORDS,
  MAX_SYNONYM_KEYS,
  MAX_SYNONYM_WORDS,
  MAX_WORD_CHARS,
  validateSettingsPatch,
} from "@relevance/settings";
import { jsonBytes } from "@shared/kernel";
import { describe, expect, it } from "vitest";
import { DEFAULT_BODY_LIMITS } from "./limits.ts";
import { type Harness, makeHarness } from "./test-support/harness.ts";

const SETTINGS = "/api/v1/indexes/products/settings";
// biome-ignore lint/suspicious/noExplicitAny: a detail's path may be a matcher
type Case = [string, unknown, unknown, any, string];
const list = (n: number, make: (i: number) => string = (i) => `w${i}`) =>
  Array.from({ length: n }, (_, i) => make(i));

async function setup(): Promise<{ h: Harness; patch: (body: unknown) => ReturnType<Harness["call"]> }> {
  const h = makeHarness();
  const { apiKey } = await h.account();
  await h.index(apiKey, "products");
  return { h, patch: (body) => h.customer(apiKey, "PATCH", SETTINGS, body) };
}

describe("customer settings limits", () => {
  it("each bound: at the limit accepted, one over it a 422 naming the field and the limit, nothing written", async () => {
    const { h, patch } = await setup();
    const cases: Case[] = [
      [
        "attribute count",
        { filterableAttributes: list(MAX_ATTRIBUTES) },
        { filterableAttributes: list(MAX_ATTRIBUTES + 1) },
        "filterableAttributes",
        `has ${MAX_ATTRIBUTES + 1} items, more than the limit of ${MAX_ATTRIBUTES}`,
      ],
      [
        "attribute name",
        { searchableAttributes: ["a".repeat(MAX_ATTRIBUTE_CHARS)] },
        { searchableAttributes: ["ok", "a".repeat(MAX_ATTRIBUTE_CHARS + 1)] },
        "searchableAttributes[1]",
        `is ${MAX_ATTRIBUTE_CHARS + 1} characters, more than the limit of ${MAX_ATTRIBUTE_CHARS}`,
      ],
      [
        "synonym keys",
        { synonyms: Object.fromEntries(list(MAX_SYNONYM_KEYS).map((w) => [w, ["x"]])) },
        { synonyms: Object.fromEntries(list(MAX_SYNONYM_KEYS + 1).map((w) => [w, ["x"]])) },
        "synonyms",
        `has ${MAX_SYNONYM_KEYS + 1} words, more than the limit of ${MAX_SYNONYM_KEYS}`,
      ],
      [
        "words per synonym list",
        { synonyms: { foo: list(MAX_SYNONYM_WORDS) } },
        { synonyms: { foo: list(MAX_SYNONYM_WORDS + 1) } },
        "synonyms.foo",
        `has ${MAX_SYNONYM_WORDS + 1} synonyms, more than the limit of ${MAX_SYNONYM_WORDS}`,
      ],
      [
        "synonym length",
        { synonyms: { foo: ["a", "b", "c", "s".repeat(MAX_WORD_CHARS)] } },
        { synonyms: { foo: ["a", "b", "c", "s".repeat(MAX_WORD_CHARS + 1)] } },
        "synonyms.foo[3]",
        `is ${MAX_WORD_CHARS + 1} characters, more than the limit of ${MAX_WORD_CHARS}`,
      ],
      [
        "synonym key length",
        { synonyms: { ["k".repeat(MAX_WORD_CHARS)]: ["x"] } },
        { synonyms: { ["k".repeat(MAX_WORD_CHARS + 1)]: ["x"] } },
        expect.stringMatching(/^synonyms\.k+…k+$/),
        `is ${MAX_WORD_CHARS + 1} characters, more than the limit of ${MAX_WORD_CHARS}`,
      ],
      [
        "stop words",
        { stopWords: list(MAX_STOP_WORDS) },
        { stopWords: list(MAX_STOP_WORDS + 1) },
        "stopWords",
        `has ${MAX_STOP_WORDS + 1} words, more than the limit of ${MAX_STOP_WORDS}`,
      ],
      [
        "stop word length",
        { stopWords: ["s".repeat(MAX_WORD_CHARS)] },
        { stopWords: ["s".repeat(MAX_WORD_CHARS + 1)] },
        "stopWords[0]",
        `is ${MAX_WORD_CHARS + 1} characters, more than the limit of ${MAX_WORD_CHARS}`,
      ],
    ];
    for (const [name, atLimit, over, path, message] of cases) {
      expect((await patch(atLimit)).status, name).toBe(200);
      const before = h.dump();
      const res = await patch(over);
      expect(res.status, name).toBe(422);
      expect(res.body.error.details, name).toEqual([{ path, message }]);
      expect(h.dump(), name).toEqual(before);
      await patch({
        searchableAttributes: null,
        filterableAttributes: null,
        synonyms: null,
        stopWords: null,
      });
    }
  });

  it("the six settings together may not exceed 256 KiB, also when the patch alone is small", async () => {
    const { h, patch } = await setup();
    // Each list alone fits; the second pushes the whole past the limit.
    const words = (prefix: string) => list(MAX_STOP_WORDS, (i) => `${prefix}${String(i).padStart(10, "0")}`);
    expect((await patch({ stopWords: words("a") })).status).toBe(200);
    const before = h.dump();
    const res = await patch({ synonyms: Object.fromEntries(words("b").map((w) => [w, ["x"]])) });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: "settings", message: expect.stringContaining("more than the limit of 256 KiB") },
    ]);
    expect(h.dump()).toEqual(before);
    // A single patch over the total is refused before the record is read.
    const alone = validateSettingsPatch({
      stopWords: words("a"),
      filterableAttributes: list(MAX_ATTRIBUTES, (i) => `${"f".repeat(200)}${i}`),
    });
    expect(alone).toEqual({ ok: false, errors: [{ path: "settings", message: expect.any(String) }] });
  });

  it("the largest allowed settings fit in the default JSON body limit", async () => {
    const { patch } = await setup();
    // Fill the total with synonyms of ten words each: 256 KiB of settings (less a few bytes), one body.
    const synonyms: Record<string, string[]> = {};
    const words = list(10, (i) => `s${i}`);
    const perEntry = JSON.stringify({ w000000: words }).length - 1;
    const room = MAX_SETTINGS_BYTES - JSON.stringify({ ...defaults, synonyms: {} }).length;
    for (let i = 0; i < Math.floor(room / perEntry); i++) synonyms[`w${String(i).padStart(6, "0")}`] = words;
    const size = jsonBytes({ ...defaults, synonyms });
    expect(size).toBeLessThanOrEqual(MAX_SETTINGS_BYTES);
    expect(size).toBeGreaterThan(MAX_SETTINGS_BYTES - perEntry);
    const body = JSON.stringify({ synonyms });
    expect(body.length).toBeLessThan(DEFAULT_BODY_LIMITS.jsonBodyBytes);
    expect((await patch(body)).status).toBe(200);
  });

  it("lists at most 100 problems however many there are", () => {
    const result = validateSettingsPatch({ stopWords: list(MAX_STOP_WORDS, () => "") });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toHaveLength(100);
      expect(result.errors[0]).toEqual({ path: "stopWords[0]", message: "must not be empty" });
    }
  });

  it("names wrong types, empty strings, control characters and unknown keys", () => {
    expect(
      validateSettingsPatch({
        pagination: {},
        searchableAttributes: "title",
        synonyms: { tv: "television", "": ["x"] },
        stopWords: ["a\u0000b", 3],
      }),
    ).toEqual({
      ok: false,
      errors: [
        { path: "pagination", message: "is not a known field" },
        { path: "searchableAttributes", message: "must be an array of strings or null, got a string" },
        { path: "synonyms.tv", message: "must be an array of strings or null, got a string" },
        { path: "synonyms.", message: "must not be empty" },
        { path: "stopWords[0]", message: "must not contain control characters" },
        { path: "stopWords[1]", message: "must be a string, got a number" },
      ],
    });
  });
});

const defaults = {
  searchableAttributes: ["*"],
  displayedAttributes: ["*"],
  filterableAttributes: [],
  sortableAttributes: [],
  stopWords: [],
  typoTolerance: {
    enabled: true,
    minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
    disableOnWords: [],
    disableOnAttributes: [],
  },
  rankingRules: ["words", "typo", "proximity", "attribute", "sort", "exactness"],
};
