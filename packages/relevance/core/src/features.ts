import { TokenIds } from "./token-ids.ts";
import { hasAnyToken, IN_PLACE_MAX_TOKENS, tokenize } from "./tokenize.ts";

/** Feature set v1 in its canonical order. Models may use any subset in any order. */
export const FEATURE_SET_V1 = [
  "query_token_count",
  "hit_count",
  "log_total_hits",
  "jaccard",
  "title_coverage",
  "query_words_in_titles",
  "topic_coherence",
  "tag_match_fraction",
  "avg_tag_count",
] as const;

export type FeatureName = (typeof FEATURE_SET_V1)[number];
export type FeatureRecord = Record<FeatureName, number>;

const V1_INDEX = new Map<string, number>(FEATURE_SET_V1.map((name, i) => [name, i]));

export function isFeatureV1(name: string): name is FeatureName {
  return V1_INDEX.has(name);
}

/** Position of a feature in the canonical v1 vector, or -1. */
export function featureV1Index(name: string): number {
  return V1_INDEX.get(name) ?? -1;
}

export interface FeatureInput {
  query: string;
  hits: readonly unknown[];
  estimatedTotalHits: number;
  /** Hit field holding titles; null skips the four title features. */
  titleField: string | null;
  /** Hit field holding tags; null skips the two tag features. */
  tagsField: string | null;
}

function fieldOf(hit: unknown, field: string): unknown {
  return typeof hit === "object" && hit !== null ? (hit as Record<string, unknown>)[field] : undefined;
}

/** A title is a string, or an array whose strings are joined; anything else is empty. */
function titleText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string").join(" ");
  return "";
}

const ratio = (num: number, den: number): number => (den === 0 ? 0 : num / den);

/**
 * Feature set v1 over one result set, in canonical order. Identical code serves the search proxy
 * and the training-data export, so training and serving cannot drift.
 *
 * This runs on every search, so it avoids per-token strings, Sets and sorting: tokens become
 * small integer ids (TokenIds), and set operations become array lookups by id. Every sum is
 * accumulated in the definition's order (hits in order, pairs i<j in lexicographic order), so
 * the floating-point results do not depend on these optimisations.
 */
export function computeFeaturesV1(
  input: FeatureInput,
  out: Float64Array = new Float64Array(9),
): Float64Array {
  const { hits, titleField, tagsField } = input;
  const k = hits.length;

  // The query's distinct tokens are interned first, so they get ids 0 .. qSize-1 and
  // "token is in Q" becomes "id < qSize". (Sized for about 6 new tokens per title; it grows.)
  const vocab = new TokenIds(6 * k + 8);
  const queryTokens: string[] = [];
  for (const token of tokenize(input.query)) {
    if (vocab.add(token) === queryTokens.length) queryTokens.push(token);
  }
  const qSize = queryTokens.length;

  out[0] = qSize;
  out[1] = k;
  out[2] = Math.log1p(Math.max(0, input.estimatedTotalHits));

  let jaccardSum = 0;
  let titleCoverage = 0;
  let containingAll = 0;
  let coherence = 0;
  if (titleField !== null && k > 0) {
    const titles = new TitleSets(8 * k); // about 8 tokens per title; it grows
    const coveredQ = new Array<boolean>(qSize).fill(false);
    let coveredCount = 0;
    for (let i = 0; i < k; i++) {
      const begin = titles.count;
      titles.add(vocab, titleText(fieldOf(hits[i], titleField)));
      let inter = 0;
      for (let p = begin; p < titles.count; p++) {
        const id = titles.ids[p] as number;
        if (id >= qSize) continue;
        inter++;
        if (!coveredQ[id]) {
          coveredQ[id] = true;
          coveredCount++;
        }
      }
      const size = titles.count - begin;
      jaccardSum += ratio(inter, qSize + size - inter);
      if (inter === qSize) containingAll++;
    }
    titleCoverage = ratio(coveredCount, qSize);
    coherence = titles.meanPairJaccard();
  }
  out[3] = ratio(jaccardSum, k);
  out[4] = titleCoverage;
  out[5] = ratio(containingAll, k);
  out[6] = coherence;

  let matching = 0;
  let tagCount = 0;
  if (tagsField !== null) {
    // A few query tokens are compared in place (the common case, and the fastest); past that, "a tag
    // shares a token with the query" is "a token of the tag has an id below qSize": one hash lookup
    // per tag token, so this part never costs tags x query words.
    const scratch: number[] = [];
    const fewQueryTokens = qSize <= IN_PLACE_MAX_TOKENS;
    const sharesQueryToken = (tag: string) =>
      fewQueryTokens ? hasAnyToken(tag, queryTokens) : vocab.hasTokenBelow(tag, qSize, scratch);
    for (const hit of hits) {
      const value = fieldOf(hit, tagsField);
      // Tags are an array of strings (non-strings ignored), or a single string as one tag.
      if (typeof value === "string") {
        tagCount++;
        if (sharesQueryToken(value)) matching++;
      } else if (Array.isArray(value)) {
        let matched = false;
        for (const tag of value) {
          if (typeof tag !== "string") continue;
          tagCount++;
          if (!matched) matched = sharesQueryToken(tag);
        }
        if (matched) matching++;
      }
    }
  }
  out[7] = ratio(matching, k);
  out[8] = ratio(tagCount, k);
  return out;
}

/** The token sets of the non-empty titles of one result set, as token ids. */
class TitleSets {
  /**
   * The distinct token ids of each non-empty title, back to back in ids[0 .. count): title a is
   * ids[bounds[a] .. bounds[a + 1]).
   */
  readonly ids: number[];
  private length = 0;
  private readonly bounds: number[] = [0];
  /** titleOf[p]: the title (index among non-empty titles) that ids[p] belongs to. */
  private readonly titleOf: number[];
  /** nextSame[p]: the position of the same id in the next title that has it, or -1. */
  private readonly nextSame: number[];
  /** lastAt[id]: the position of id's latest occurrence in ids, or -1. */
  private readonly lastAt: number[];
  /** Scratch for one title's token ids, repeats included. */
  private readonly scratch: number[] = [];

  /**
   * `expected`: about how many token occurrences will be added. The arrays start at that size
   * and grow as needed: plain arrays, since creating a typed array costs about 0.7 µs on Node 22
   * whatever its length, and growing one by push costs more than filling it by index.
   */
  constructor(expected: number) {
    this.ids = new Array<number>(expected);
    this.titleOf = new Array<number>(expected);
    this.nextSame = new Array<number>(expected);
    this.lastAt = new Array<number>(expected).fill(-1);
  }

  /** The number of ids stored: ids[0 .. count) is in use. */
  get count(): number {
    return this.length;
  }

  /** Adds the token set of one title; an empty one is not recorded. */
  add(vocab: TokenIds, text: string): void {
    const count = vocab.addTokensOf(text, this.scratch);
    while (this.lastAt.length < vocab.size) this.lastAt.push(-1);
    const begin = this.length;
    const title = this.bounds.length - 1;
    let p = begin;
    for (let i = 0; i < count; i++) {
      const id = this.scratch[i] as number;
      const last = this.lastAt[id] as number;
      if (last >= begin) continue; // a repeat within this title
      if (last >= 0) this.nextSame[last] = p;
      this.lastAt[id] = p;
      this.ids[p] = id;
      this.titleOf[p] = title;
      this.nextSame[p] = -1;
      p++;
    }
    this.length = p;
    if (p > begin) this.bounds.push(p);
  }

  /**
   * topic_coherence: the mean Jaccard similarity over pairs a<b of titles.
   *
   * Comparing every pair token by token costs O(k² · title length). Instead, for each token of
   * title a, the nextSame chain visits the later titles that share it, counting |T_a ∩ T_b| for all
   * b > a at once. That costs the number of (pair, shared token) combinations, never more than the
   * pairwise comparison and usually far less; then one division per pair remains. Pairs are
   * added in the definition's order (a ascending, then b ascending), so the sum is the same.
   */
  meanPairJaccard(): number {
    const n = this.bounds.length - 1;
    if (n < 2) return 0;
    const shared = new Array<number>(n).fill(0); // shared[b] = |T_a ∩ T_b| for the current a
    let pairSum = 0;
    for (let a = 0; a < n; a++) {
      const aStart = this.bounds[a] as number;
      const aEnd = this.bounds[a + 1] as number;
      for (let p = aStart; p < aEnd; p++) {
        for (let q = this.nextSame[p] as number; q >= 0; q = this.nextSame[q] as number) {
          const b = this.titleOf[q] as number;
          shared[b] = (shared[b] as number) + 1;
        }
      }
      for (let b = a + 1; b < n; b++) {
        const inter = shared[b] as number;
        shared[b] = 0;
        const union = aEnd - aStart + (this.bounds[b + 1] as number) - (this.bounds[b] as number) - inter;
        pairSum += inter / union;
      }
    }
    return pairSum / ((n * (n - 1)) / 2);
  }
}

export function featureRecord(vector: Float64Array): FeatureRecord {
  const record = {} as FeatureRecord;
  FEATURE_SET_V1.forEach((name, i) => {
    record[name] = vector[i] as number;
  });
  return record;
}
