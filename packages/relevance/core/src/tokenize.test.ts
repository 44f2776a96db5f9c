import { describe, expect, it } from "vitest";
import { tokenize } from "./tokenize.ts";

describe("tokenize (feature set v1 tokens)", () => {
  it("lower-cases and splits on everything that is not a letter or digit", () => {
    expect(tokenize("Don't stop—NOW! 42cm, 3.5")).toEqual(["don", "t", "stop", "now", "42cm", "3", "5"]);
  });

  it("applies NFKC before lower-casing: full-width forms, ligatures, superscripts, circled digits", () => {
    expect(tokenize("ＡＢＣ ｆｕｌｌ")).toEqual(["abc", "full"]);
    expect(tokenize("ﬁle")).toEqual(["file"]);
    expect(tokenize("x² ①")).toEqual(["x2", "1"]);
  });

  it("keeps non-Latin letters and decimal digits together", () => {
    expect(tokenize("Größe Café 日本語テキスト ٣٤")).toEqual(["größe", "café", "日本語テキスト", "٣٤"]);
  });

  it("composes decomposed accents, so both spellings give one token", () => {
    expect(tokenize("Cafe\u0301")).toEqual(tokenize("Café"));
  });

  it("returns no tokens for empty or separator-only text", () => {
    expect(tokenize("")).toEqual([]);
    expect(tokenize(" -- !! ")).toEqual([]);
  });
});
