import { describe, expect, it } from "vitest";
import { checkJsonShape, maxJsonObjectKeys } from "./json-guards.ts";

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

describe("maxJsonObjectKeys", () => {
  it("counts the keys of the largest object in the text, at any depth, skipping strings and arrays", () => {
    expect(maxJsonObjectKeys("[]")).toBe(0);
    expect(maxJsonObjectKeys('{"a":1,"b":{"c":2,"d":3,"e":[{"f":1}]}}')).toBe(3);
    expect(maxJsonObjectKeys('{"a":"x:y:z","b\\":":"{\\"c\\":1}","d":[1,2,3,4]}')).toBe(3);
    expect(maxJsonObjectKeys('[{"a":1},{"b":2},{"c":3}]')).toBe(1);
    const many = `{"q":"x",${Array.from({ length: 90_000 }, (_, i) => `"k${i}":0`).join(",")}}`;
    expect(maxJsonObjectKeys(many)).toBe(90_001);
  });
});
