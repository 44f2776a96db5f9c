// The fast paths of tokenize.ts against the definition (tokenizeReference): exhaustive checks of
// the claims about the "simple" code units, then random strings from a deliberately nasty alphabet.
import { describe, expect, it } from "vitest";
import { mulberry32 as prng } from "./test-support/prng.ts";
import { TokenIds } from "./token-ids.ts";
import { hasAnyToken, simpleLower, tokenize, tokenizeReference } from "./tokenize.ts";

const NOT_SIMPLE = -1;
const LETTER_OR_DIGIT = /^[\p{L}\p{Nd}]$/u;

/** Code points that can compose with the character before them under NFC/NFKC. */
function backwardCombining(): Set<number> {
  // A character composes with a preceding one only if it follows the first position of some
  // canonical decomposition, or is a Hangul vowel or trailing-consonant jamo.
  const found = new Set<number>();
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const nfd = String.fromCodePoint(cp).normalize("NFD");
    if (nfd.length < 2) continue;
    const parts = Array.from(nfd);
    for (let i = 1; i < parts.length; i++) found.add(parts[i]?.codePointAt(0) as number);
  }
  for (let cp = 0x1161; cp <= 0x11c2; cp++) found.add(cp);
  return found;
}

describe("simple code units (the claims behind the fast path), over all of U+0000–U+FFFF", () => {
  const simple: number[] = [];
  for (let c = 0; c <= 0xffff; c++) if (simpleLower(c) !== NOT_SIMPLE) simple.push(c);

  it("covers ASCII, Latin-1 letters, kana, CJK ideographs and Hangul syllables, nothing else", () => {
    expect(simple.length).toBe(0x80 + 0x40 + (0x3096 - 0x3041 + 1) + (0x30fe - 0x30a1 + 1) + 0x5200 + 11172);
    for (let c = 0x80; c < 0xc0; c++) expect(simpleLower(c)).toBe(NOT_SIMPLE);
  });

  it("are NFKC-stable and never compose with the character before them", () => {
    const combining = backwardCombining();
    const unstable = simple.filter(
      (c) => String.fromCharCode(c).normalize("NFKC") !== String.fromCharCode(c),
    );
    expect(unstable).toEqual([]);
    expect(simple.filter((c) => combining.has(c))).toEqual([]);
  });

  it("lower-case to exactly one code unit, which simpleLower gives for letters and digits", () => {
    const wrong = simple.filter((c) => {
      const lower = String.fromCharCode(c).toLowerCase();
      const lc = simpleLower(c);
      return lower.length !== 1 || (lc > 0 ? lower.charCodeAt(0) !== lc : lower !== String.fromCharCode(c));
    });
    expect(wrong).toEqual([]);
  });

  it("are letters or decimal digits exactly when simpleLower says so", () => {
    const wrong = simple.filter((c) => LETTER_OR_DIGIT.test(String.fromCharCode(c)) !== simpleLower(c) > 0);
    expect(wrong).toEqual([]);
  });
});

// Weighted towards what breaks tokenizers: case pairs, NFKC compatibility forms, combining marks
// (which compose with the letter before them), characters that only look simple once lower-cased,
// and broken UTF-16.
const ALPHABET = [
  ..."aAbBzZ09Xx",
  ..." -_.,'/!?&\t\n",
  ..."éÉàÀçÇñÑöÖßÿþÞðÐåÅæÆøØ×÷",
  ..."ª º ² ³ ¹ µ ¼ ¿ ¡ «»",
  "\u00a0", // no-break space: NFKC gives a space
  "\u0301", // combining acute accent
  "\u0308", // combining diaeresis
  "\u0338", // combining long solidus overlay: = + U+0338 composes to ≠
  ..."日本語東京中文한국서울가힣",
  ..."ひらがなカタカナラーメンヴ・ヽヾゝゞゟヿ",
  "\u3099", // combining kana voiced sound mark: カ + U+3099 composes to ガ
  "\u309b", // spacing voiced sound mark: NFKC gives a space and U+3099
  ..."ｆｕｌｌＡＢＣ１２",
  ..."ﬁﬂﬀ",
  ..."İıŁłŸẞ",
  "\u212a", // Kelvin sign: lower-cases to k
  "\u212b", // Ångström sign: lower-cases to å
  ..."ΣσςΑΩ",
  ..."٣٤٥۱۲",
  ..."①Ⅻ㎏",
  "\u1100", // Hangul leading consonant jamo
  "\u1161", // Hangul vowel jamo: composes with a preceding leading consonant
  "\u11a8", // Hangul trailing consonant jamo: composes with a preceding LV syllable
  "🙂",
  "\ud83d", // lone high surrogate
  "\ude00", // lone low surrogate
];

function randomText(rand: () => number, maxLength: number): string {
  const length = Math.floor(rand() * (maxLength + 1));
  let text = "";
  for (let i = 0; i < length; i++) text += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return text;
}

/** Random text that is simple (ASCII and Latin-1 only) about half the time. */
function mostlySimpleText(rand: () => number, maxLength: number): string {
  if (rand() < 0.5) return randomText(rand, maxLength);
  const simpleAlphabet = ALPHABET.filter(
    (s) => s.length === 1 && simpleLower(s.charCodeAt(0)) !== NOT_SIMPLE,
  );
  let text = "";
  const length = Math.floor(rand() * (maxLength + 1));
  for (let i = 0; i < length; i++) text += simpleAlphabet[Math.floor(rand() * simpleAlphabet.length)];
  return text;
}

describe("fast paths against the definition, on random text", () => {
  it("tokenize equals tokenizeReference", () => {
    const rand = prng(1);
    for (let n = 0; n < 30_000; n++) {
      const text = mostlySimpleText(rand, 12);
      expect(tokenize(text), JSON.stringify(text)).toEqual(tokenizeReference(text));
    }
  });

  it("TokenIds gives one id per distinct token of tokenizeReference, and distinct ids to distinct tokens", () => {
    const rand = prng(2);
    for (let round = 0; round < 2_000; round++) {
      const vocab = new TokenIds(Math.floor(rand() * 8)); // small, so that the table regrows
      const idOf = new Map<string, number>();
      const tokenOf = new Map<number, string>();
      const scratch: number[] = [];
      for (let t = 0; t < 8; t++) {
        const text = mostlySimpleText(rand, 10);
        const tokens = tokenizeReference(text);
        const n = vocab.addTokensOf(text, scratch);
        expect(n, JSON.stringify(text)).toBe(tokens.length);
        tokens.forEach((token, i) => {
          const id = scratch[i] as number;
          expect(idOf.get(token) ?? id, JSON.stringify([text, token])).toBe(id);
          expect(tokenOf.get(id) ?? token, JSON.stringify([text, token])).toBe(token);
          idOf.set(token, id);
          tokenOf.set(id, token);
        });
      }
      for (const [token, id] of idOf) expect(vocab.add(token)).toBe(id);
    }
  });

  it("TokenIds numbers tokens added by add() 0, 1, 2, … in order", () => {
    const vocab = new TokenIds();
    expect(["red", "Shoes".toLowerCase(), "red", "日本"].map((t) => vocab.add(t))).toEqual([0, 1, 0, 2]);
    const scratch: number[] = [];
    expect(scratch.slice(0, vocab.addTokensOf("RED shoes, ＲＥＤ!", scratch))).toEqual([0, 1, 0]);
    expect(vocab.size).toBe(3);
  });

  it("TokenIds tells apart tokens with the same hash", () => {
    // "yaczf" and "glbpp" collide in 32-bit FNV-1a.
    const vocab = new TokenIds();
    expect(vocab.add("yaczf")).toBe(0);
    const scratch: number[] = [];
    expect(scratch.slice(0, vocab.addTokensOf("GLBPP Yaczf glbpp", scratch))).toEqual([1, 0, 1]);
    expect(vocab.add("glbpp")).toBe(1);
  });

  it("hasAnyToken equals matching tokenizeReference's tokens against the list", () => {
    const rand = prng(3);
    for (let n = 0; n < 30_000; n++) {
      const tokens = tokenizeReference(mostlySimpleText(rand, 8));
      const text = mostlySimpleText(rand, 8);
      const expected = tokenizeReference(text).some((t) => tokens.includes(t));
      expect(hasAnyToken(text, tokens), JSON.stringify([text, tokens])).toBe(expected);
    }
  });
});
