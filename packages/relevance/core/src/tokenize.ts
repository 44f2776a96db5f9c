// Feature set v1 tokens: NFKC, lower case, split on every character that is not a
// Unicode letter or decimal digit. Training-data export and serving both call this function.

const SEPARATORS = /[^\p{L}\p{Nd}]+/u;

/** More combining marks in a row than Unicode's Stream-Safe Text Format allows (UAX #15, §13). */
const LONG_MARK_RUN = /\p{M}{31}/u;
const MARK_RUN_CHUNK = /\p{M}{30}(?=\p{M})/gu;

/**
 * NFKC in time linear in the text. Normalization sorts each run of combining marks by combining
 * class, and ICU does that by insertion: a run of n marks costs n² (100,000 marks take seconds).
 * Like Unicode's Stream-Safe Text Process, a COMBINING GRAPHEME JOINER (U+034F) goes after every 30
 * marks of a longer run, so no run sorted is longer than 30. Text without such a run (all real text:
 * the longest in Unicode's own test data is far shorter) is normalized exactly as before; with one,
 * only marks past the 30th are treated differently, and marks are separators for tokens anyway.
 */
export function nfkc(text: string): string {
  const safe = LONG_MARK_RUN.test(text) ? text.replace(MARK_RUN_CHUNK, "$&\u034f") : text;
  return safe.normalize("NFKC");
}

/**
 * The definition, written literally. It is the reference that the fast path is tested against
 * (tokenize.property.test.ts), and the fallback for text that the fast path does not cover.
 */
export function tokenizeReference(text: string): string[] {
  const tokens: string[] = [];
  for (const part of nfkc(text).toLowerCase().split(SEPARATORS)) {
    if (part !== "") tokens.push(part);
  }
  return tokens;
}

// NFKC and the Unicode-aware regex split dominate feature computation, yet nearly all shop text is
// made of a few "simple" ranges where the definition reduces to "lower-case, then split between
// letters/digits and the rest", which a scan over char codes does much faster:
//   ASCII; U+00C0–U+00FF (Latin-1 letters, × and ÷); Hiragana U+3041–U+3096; Katakana
//   U+30A1–U+30FE (with ・ U+30FB); CJK Unified Ideographs U+4E00–U+9FFF; Hangul syllables
//   U+AC00–U+D7A3.
// For text made only of these code units:
// - each of them is NFKC-stable, and none can compose with a character before it, so NFKC leaves
//   the whole text unchanged;
// - toLowerCase maps each of them to exactly one code unit, so indices in the text and in its
//   lower-cased copy line up: A-Z and U+00C0–U+00DE except × gain 0x20, the rest are unchanged;
// - the letters and decimal digits among them are all of them except the ASCII non-alphanumerics,
//   × (U+00D7), ÷ (U+00F7) and ・ (U+30FB).
// tokenize.property.test.ts checks these claims over every code point. Any other code unit
// (U+0080–U+00BF, combining marks, full-width forms, surrogates, ...) sends the text to
// tokenizeReference. The scans read the original text, not a lower-cased copy, on purpose: Ÿ, ẞ,
// the Kelvin sign and the Ångström sign lower-case into the simple ranges without being in them.

/** What simpleLower returns for a separator. */
export const SEPARATOR = 0;
/** What simpleLower returns outside the simple ranges. */
export const NOT_SIMPLE = -1;

/** simpleLower below U+0100, as a table: this is the hot loop of feature computation. */
const LATIN1_LOWER = new Int32Array(0x100);
for (let c = 0; c < 0x100; c++) {
  const upper = (c >= 0x41 && c <= 0x5a) || (c >= 0xc0 && c <= 0xde && c !== 0xd7);
  const lower = (c >= 0x61 && c <= 0x7a) || (c >= 0xdf && c !== 0xf7);
  const digit = c >= 0x30 && c <= 0x39;
  if (upper) LATIN1_LOWER[c] = c + 0x20;
  else if (lower || digit) LATIN1_LOWER[c] = c;
  else LATIN1_LOWER[c] = c >= 0x80 && c < 0xc0 ? NOT_SIMPLE : SEPARATOR;
}

/**
 * For a code unit of the simple ranges: its lower-case form (> 0) if it is a letter or digit,
 * else SEPARATOR. NOT_SIMPLE outside those ranges. Exported for the tests.
 */
export function simpleLower(c: number): number {
  if (c < 0x100) return LATIN1_LOWER[c] as number;
  if (c >= 0x4e00) return c <= 0x9fff || (c >= 0xac00 && c <= 0xd7a3) ? c : NOT_SIMPLE;
  if (c >= 0x3041 && c <= 0x3096) return c;
  if (c >= 0x30a1 && c <= 0x30fe) return c === 0x30fb ? SEPARATOR : c;
  return NOT_SIMPLE;
}

export function tokenize(text: string): string[] {
  // Lower-case the whole text once and slice the tokens out of it. One flat loop, on purpose: with
  // a tight inner loop per run (as in TokenIds), V8 optimized this function for the first text it
  // saw, and once that was one long word, text of many short words took quadratic time (200,000
  // characters: 5 s instead of 3 ms; linear-time.test.ts).
  const lowered = text.toLowerCase();
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const lc = simpleLower(text.charCodeAt(i));
    if (lc > 0) {
      if (start < 0) start = i;
    } else if (lc === NOT_SIMPLE) {
      return tokenizeReference(text);
    } else if (start >= 0) {
      tokens.push(lowered.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0) tokens.push(lowered.slice(start));
  return tokens;
}

/** Up to this many tokens, hasAnyToken compares in place; beyond, it looks tokens up in a Set. */
export const IN_PLACE_MAX_TOKENS = 8;

/**
 * Whether some token of `text` is in `tokens` (a list of tokens, as tokenize returns them): the
 * same as `tokenize(text).some((t) => tokens.includes(t))`, but simple text is compared in place,
 * without building lower-cased strings.
 */
export function hasAnyToken(text: string, tokens: readonly string[]): boolean {
  if (tokens.length === 0) return false; // e.g. an empty query: no need to scan
  // In-place comparison costs (runs of text) x tokens; past a few tokens a set lookup per token of
  // the text keeps the call linear in the text plus the tokens.
  if (tokens.length > IN_PLACE_MAX_TOKENS) {
    const wanted = new Set(tokens);
    return tokenize(text).some((t) => wanted.has(t));
  }
  // A match only counts once the whole text is known to be simple, so the scan goes on after one.
  let found = false;
  for (let i = 0; i < text.length; i++) {
    const start = i;
    let lc = SEPARATOR;
    for (; i < text.length; i++) {
      lc = simpleLower(text.charCodeAt(i));
      if (lc <= 0) break;
    }
    if (lc === NOT_SIMPLE) return tokenizeReference(text).some((t) => tokens.includes(t)); // at most 8 tokens
    if (start < i && !found) found = isAnyOf(tokens, text, start, i);
  }
  return found;
}

/** Whether the lower-cased simple text[start .. end) is one of tokens. */
function isAnyOf(tokens: readonly string[], text: string, start: number, end: number): boolean {
  for (const token of tokens) if (isRun(token, text, start, end)) return true;
  return false;
}

/** Whether the lower-cased simple text[start .. end) equals token. */
function isRun(token: string, text: string, start: number, end: number): boolean {
  if (token.length !== end - start) return false;
  for (let i = 0; i < token.length; i++) {
    if (token.charCodeAt(i) !== simpleLower(text.charCodeAt(start + i))) return false;
  }
  return true;
}

export function tokenSet(text: string): Set<string> {
  return new Set(tokenize(text));
}
