// Token interning for feature computation: ids without building token strings.
import { NOT_SIMPLE, SEPARATOR, simpleLower, tokenizeReference } from "./tokenize.ts";

/** c lower-cased if it is a letter of the simple ranges, else c itself. See TokenIds. */
function fold(c: number): number {
  const lc = simpleLower(c);
  return lc > 0 ? lc : c;
}

// FNV-1a over UTF-16 code units. TokenIds hashes tokens with it, incrementally while scanning.
const FNV_PRIME = 0x01000193;

/**
 * murmur3's finalizer: the slot is taken from the low bits of the hash, and FNV's low bits depend
 * only on the low bits of the code units (so "a" and U+4E61 agree in them). Without mixing, text
 * could be written whose tokens all land in a few slots, and interning would turn quadratic.
 */
function mix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/**
 * Interns tokens as small integer ids 0, 1, 2, … in order of first appearance.
 *
 * Why not a Map<string, number>: it needs every token as a fresh lower-cased string, and V8 then
 * spends more time building, hashing and storing those strings than tokenizing. Here, simple text
 * is hashed while it is scanned, and a token is kept as a range of the text it came from, so no
 * string is built at all. Ranges are compared through fold(): it lower-cases the letters of raw
 * simple text and leaves a string from tokenize unchanged (tokens are already lower-cased, and
 * fold only changes upper-case letters below U+0100), so both kinds compare as their tokens.
 * Equal hashes are always confirmed by comparing characters, so ids are exact.
 */
export class TokenIds {
  private count = 0;
  // Token `id` is fold(texts[id][starts[id] .. starts[id] + lengths[id])), and hashes[id] its hash.
  private readonly texts: string[];
  private readonly starts: number[];
  private readonly lengths: number[];
  private readonly hashes: number[];
  /** Open addressing with linear probing: an id, or -1 for an empty slot. At most half full. */
  private slots: number[];
  /**
   * FNV's starting value, random per instance: ids do not depend on it (they are given in order of
   * first appearance), but colliding tokens cannot be prepared in advance for an unknown seed.
   */
  private readonly seed = (Math.random() * 0x100000000) | 0;
  /** Slots looked at beyond the first, over all lookups: tests check that it stays linear. */
  private probeCount = 0;

  /**
   * `expected`: about how many distinct tokens will be added. The arrays start at that size
   * (growing a plain array by push costs more than the interning itself).
   */
  constructor(expected = 16) {
    let capacity = 64;
    while (capacity < 2 * expected) capacity *= 2;
    this.slots = new Array<number>(capacity).fill(-1);
    this.texts = new Array<string>(expected);
    this.starts = new Array<number>(expected);
    this.lengths = new Array<number>(expected);
    this.hashes = new Array<number>(expected);
  }

  /** The number of distinct tokens added so far, which is also the next id. */
  get size(): number {
    return this.count;
  }

  /** Collisions resolved so far (slots probed beyond the first one of each lookup). */
  get probes(): number {
    return this.probeCount;
  }

  /** The id of `token` (as tokenize returns it), added if new. */
  add(token: string): number {
    let h = this.seed;
    for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), FNV_PRIME);
    return this.addRange(token, 0, token.length, h);
  }

  /**
   * Whether some token of `text` has an id below `limit` (tokens added first get the smallest ids):
   * `tokenize(text).some((t) => this.add(t) < limit)`, in one pass over `text`, whatever the number
   * of tokens below `limit`. Tokens of `text` are added. `ids` is scratch space as for addTokensOf.
   */
  hasTokenBelow(text: string, limit: number, ids: number[]): boolean {
    if (limit === 0) return false;
    const n = this.addTokensOf(text, ids);
    for (let i = 0; i < n; i++) if ((ids[i] as number) < limit) return true;
    return false;
  }

  /**
   * Writes the id of every token of `text` to ids[0 .. n), in order and with repeats, adding new
   * tokens, and returns n: the same as `tokenize(text).map((t) => this.add(t))`. `ids` is
   * caller-owned scratch space, overwritten and grown as needed, so no array is allocated per text.
   */
  addTokensOf(text: string, ids: number[]): number {
    let n = 0;
    // Each pass reads one run of letters and digits, then the code unit that ends it. (A tight
    // inner loop per run is measurably faster than one loop with a state variable.)
    for (let i = 0; i < text.length; i++) {
      const start = i;
      let hash = this.seed;
      let lc = SEPARATOR;
      for (; i < text.length; i++) {
        lc = simpleLower(text.charCodeAt(i));
        if (lc <= 0) break;
        hash = Math.imul(hash ^ lc, FNV_PRIME);
      }
      if (lc === NOT_SIMPLE) {
        // Not simple text: start again on the exact path. Tokens already added by the partial
        // scan keep their ids; ids are only labels, so an unused one changes nothing.
        n = 0;
        for (const token of tokenizeReference(text)) ids[n++] = this.add(token);
        return n;
      }
      if (start < i) ids[n++] = this.addRange(text, start, i - start, hash);
    }
    return n;
  }

  /** The id of the token fold(text[start .. start + length)), whose hash is given; added if new. */
  private addRange(text: string, start: number, length: number, hash: number): number {
    const mask = this.slots.length - 1;
    let slot = mix(hash) & mask;
    for (let id = this.slots[slot] as number; id >= 0; id = this.slots[slot] as number) {
      if (this.hashes[id] === hash && this.sameToken(id, text, start, length)) return id;
      slot = (slot + 1) & mask;
      this.probeCount++;
    }
    const id = this.count++;
    this.texts[id] = text;
    this.starts[id] = start;
    this.lengths[id] = length;
    this.hashes[id] = hash;
    this.slots[slot] = id;
    if (2 * this.count > this.slots.length) this.rehash(2 * this.slots.length);
    return id;
  }

  /** Whether token `id` equals fold(text[start .. start + length)). */
  private sameToken(id: number, text: string, start: number, length: number): boolean {
    if (this.lengths[id] !== length) return false;
    const other = this.texts[id] as string;
    const otherStart = this.starts[id] as number;
    for (let i = 0; i < length; i++) {
      if (fold(text.charCodeAt(start + i)) !== fold(other.charCodeAt(otherStart + i))) return false;
    }
    return true;
  }

  private rehash(capacity: number): void {
    this.slots = new Array<number>(capacity).fill(-1);
    const mask = capacity - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = mix(this.hashes[id] as number) & mask;
      while ((this.slots[slot] as number) >= 0) slot = (slot + 1) & mask;
      this.slots[slot] = id;
    }
  }
}
