import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonBytes, jsonStringBytes } from "./json-size.ts";

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

describe("jsonBytes", () => {
  it("equals the UTF-8 length of JSON.stringify for any JSON value, escapes and surrogates included", () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
        expect(jsonBytes(value)).toBe(utf8Length(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });

  it("counts control characters, quotes, backslashes, non-ASCII and lone surrogates as JSON.stringify writes them", () => {
    for (const s of [
      "",
      "plain",
      '"\\',
      "\b\t\n\f\r",
      "\u0000\u001f\u007f",
      "é€𝄞",
      "\ud800",
      "a\udc00b",
      "\ud83d\ude00",
    ]) {
      expect(jsonStringBytes(s), JSON.stringify(s)).toBe(utf8Length(JSON.stringify(s)));
    }
  });
});
