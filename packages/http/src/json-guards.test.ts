import { describe, expect, it } from "vitest";
import { checkJsonShape } from "./json-guards.ts";

describe("checkJsonShape", () => {
  it("names every forbidden key with its path, wherever it is", () => {
    const value = JSON.parse(
      '{"a": {"__proto__": {"x": 1}}, "b": [{"constructor": 1}], "synonyms": {"prototype": ["x"]}}',
    );
    expect(checkJsonShape(value)).toEqual(
      expect.arrayContaining([
        { path: "a.__proto__", message: 'the key "__proto__" is not allowed' },
        { path: "b[0].constructor", message: 'the key "constructor" is not allowed' },
        { path: "synonyms.prototype", message: 'the key "prototype" is not allowed' },
      ]),
    );
  });

  it("accepts ordinary values", () => {
    expect(checkJsonShape({ q: "chair", tags: ["a", { b: [1, 2, null] }] })).toEqual([]);
  });

  it("refuses nesting beyond the limit without recursion, even a million levels deep", () => {
    const deep = JSON.parse(`${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`);
    const issues = checkJsonShape(deep, { maxDepth: 32 });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toBe("nests deeper than the limit of 32 levels");
    expect(checkJsonShape(JSON.parse(`${"[".repeat(32)}${"]".repeat(32)}`), { maxDepth: 32 })).toEqual([]);
  });

  it("names where the nesting goes too deep, through keys and indexes", () => {
    const value = { a: [1, { b: [[{ c: { d: [] } }]] }] };
    expect(checkJsonShape(value, { maxDepth: 5 })).toEqual([
      { path: "a[1].b[0][0]", message: "nests deeper than the limit of 5 levels" },
    ]);
    expect(checkJsonShape([{ "0": { __proto__: null, prototype: 1 } }])).toEqual([
      { path: "[0].0.prototype", message: 'the key "prototype" is not allowed' },
    ]);
  });
});
