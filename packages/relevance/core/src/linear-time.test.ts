// Every text path of feature computation costs time linear in its input, on adversarial text too:
// long words, many words, repeated words, text that NFKC expands, long runs of combining marks,
// tokens written to collide in a hash table. Two sizes are compared in one run (n and 100n), never
// against a wall clock. Quadratic work grows 10,000-fold. Linear work grows 100-fold while both texts
// fit the CPU's caches, and up to about 800-fold measured here (three runs at once on two CPUs): the
// small text stays in the caches, the large one does not. The bound, 2,000, is far from both; ten
// times the input (the bound was 30 of 100) could not tell the cache from quadratic work.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeFeaturesV1 } from "./features.ts";
import { growth } from "./test-support/growth.ts";
import { TokenIds } from "./token-ids.ts";
import { hasAnyToken, nfkc, tokenize, tokenizeReference } from "./tokenize.ts";

/** Adversarial text families, each as a function of its size n (about n code units or more). */
const FAMILIES: Array<[string, (n: number) => string]> = [
  ["one long word", (n) => "x".repeat(n)],
  ["many distinct words", (n) => Array.from({ length: n / 8 }, (_, i) => `w${i.toString(36)}`).join(" ")],
  ["one word repeated", (n) => "shoe ".repeat(n / 5)],
  ["text that NFKC expands 18-fold (U+FDFA)", (n) => "\ufdfa".repeat(n / 4)],
  ["a long run of combining marks out of order", (n) => `a${"\u0301\u0316".repeat(n / 2)} b`],
  ["simple text with one non-simple unit at the end", (n) => `${"ab ".repeat(n / 3)}é`],
  ["full-width and ligature forms", (n) => "ｆｕｌｌ ﬁ ".repeat(n / 6)],
];

/** The bound on how much 100 times the input may cost: linear is 100-800, quadratic 10,000. */
const LINEAR = 2000;

describe("text paths grow linearly with their input", () => {
  it.each(FAMILIES)("tokenize: %s", (_name, make) => {
    expect(growth(tokenize, make(2000), make(200_000), LINEAR)).toBeLessThan(LINEAR);
  });

  it.each(FAMILIES)("tokenizeReference: %s", (_name, make) => {
    expect(growth(tokenizeReference, make(2000), make(200_000), LINEAR)).toBeLessThan(LINEAR);
  });

  it.each(FAMILIES)("interning the tokens of a text (TokenIds): %s", (_name, make) => {
    const intern = (text: string) => new TokenIds().addTokensOf(text, []);
    expect(growth(intern, make(2000), make(200_000), LINEAR)).toBeLessThan(LINEAR);
  });

  it.each(FAMILIES)("computeFeaturesV1 over a query of %s", (_name, make) => {
    const hits = Array.from({ length: 20 }, (_, i) => ({
      title: `red running shoes model ${i}`,
      tags: ["shoes", "running", `tag${i}`, "sale", "new"],
    }));
    const features = (query: string) =>
      computeFeaturesV1({ query, hits, estimatedTotalHits: 1000, titleField: "title", tagsField: "tags" });
    expect(growth(features, make(2000), make(200_000), LINEAR)).toBeLessThan(LINEAR);
  });

  it("hasAnyToken over a tag, whatever the number of query tokens", () => {
    const tag = "red running shoes ".repeat(50);
    const tokens = (n: number) => Array.from({ length: n }, (_, i) => `q${i}`);
    expect(growth((t: string[]) => hasAnyToken(tag, t), tokens(2000), tokens(200_000), LINEAR)).toBeLessThan(
      LINEAR,
    );
  });

  it("nfkc on random text with long mark runs", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "\u0301", "\u0316", "\u0327", " "), minLength: 50 }),
        (s) => {
          const text = s.repeat(Math.ceil(2000 / s.length));
          expect(growth(nfkc, text, text.repeat(100), LINEAR)).toBeLessThan(LINEAR);
        },
      ),
      { numRuns: 5 },
    );
  });
});

describe("TokenIds resists tokens written to collide", () => {
  // FNV's low bits depend only on the low bits of the code units: CJK ideographs that agree in their
  // low 12 bits give tokens whose unmixed hashes agree in their low 12 bits, i.e. one slot of 4096.
  const UNITS = [0x5061, 0x6061, 0x7061, 0x8061, 0x9061].map((c) => String.fromCharCode(c));
  function colliding(length: number): string[] {
    let tokens = [""];
    for (let i = 0; i < length; i++) tokens = tokens.flatMap((t) => UNITS.map((u) => t + u));
    return tokens;
  }

  it("looks at few slots per token on average (counted, not timed)", () => {
    for (const tokens of [colliding(5), colliding(6)]) {
      const ids = new TokenIds();
      for (const token of tokens) ids.add(token);
      expect(ids.size).toBe(tokens.length);
      expect(ids.probes / tokens.length).toBeLessThan(4);
    }
  });

  it("interns text of such tokens in linear time", () => {
    const text = (tokens: string[]) => tokens.join(" ");
    const intern = (t: string) => new TokenIds().addTokensOf(t, []);
    expect(
      growth(intern, text(colliding(5).slice(0, 150)), text(colliding(6).slice(0, 15_000)), LINEAR),
    ).toBeLessThan(LINEAR);
  });
});

describe("nfkc", () => {
  it("is NFKC for text whose mark runs are at most 30 long", () => {
    const units = [
      "a",
      "c",
      "e",
      "\u0301",
      "\u0316",
      "\u0327",
      "\u0344",
      "ｆ",
      "ﬁ",
      "\ufdfa",
      "Å",
      "\u1100",
      "\u1161",
      " ",
    ];
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...units), maxLength: 60 }), (s) => {
        if (/\p{M}{31}/u.test(s)) return;
        expect(nfkc(s)).toBe(s.normalize("NFKC"));
      }),
      { numRuns: 2000 },
    );
  });

  it("gives the same tokens as plain NFKC would for mark runs up to 30, and stays linear beyond", () => {
    const text = `café${"\u0301".repeat(30)} naïve`;
    expect(tokenizeReference(text)).toEqual(["café", "naïve"]);
    // "x" has no precomposed form with an accent: the marks are separators, as in plain NFKC.
    expect(tokenizeReference(`x${"\u0301\u0316".repeat(50_000)} y`)).toEqual(["x", "y"]);
  });
});
