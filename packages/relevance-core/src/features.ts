import { tokenize } from "./tokenize.ts";

/** Feature set v1 in its canonical order (spec §4). Models may use any subset in any order. */
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
  /** Hit field holding titles; null skips the four title features (seed 2.2). */
  titleField: string | null;
  /** Hit field holding tags; null skips the two tag features (seed 2.2). */
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

/** Tags are an array of strings (non-strings ignored), or a single string as one tag. */
function tagList(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

const ratio = (num: number, den: number): number => (den === 0 ? 0 : num / den);

/**
 * Token ids are interned per call so that set operations on titles become merges of small
 * sorted integer arrays; topic_coherence is O(k²) in the number of hits.
 */
class Vocabulary {
  private readonly ids = new Map<string, number>();
  id(token: string): number {
    let id = this.ids.get(token);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(token, id);
    }
    return id;
  }
  get size(): number {
    return this.ids.size;
  }
  sortedSet(tokens: readonly string[]): Int32Array {
    const out = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) out[i] = this.id(tokens[i] as string);
    out.sort();
    let n = 0;
    for (let i = 0; i < out.length; i++) if (i === 0 || out[i] !== out[n - 1]) out[n++] = out[i] as number;
    return out.subarray(0, n);
  }
}

function intersectionSize(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n;
}

function jaccardOf(a: Int32Array, b: Int32Array): number {
  const inter = intersectionSize(a, b);
  return ratio(inter, a.length + b.length - inter);
}

/**
 * Feature set v1 over one result set, in canonical order. Identical code serves the search proxy
 * and the training-data export, so training and serving cannot drift.
 */
export function computeFeaturesV1(
  input: FeatureInput,
  out: Float64Array = new Float64Array(9),
): Float64Array {
  const { hits, titleField, tagsField } = input;
  const k = hits.length;
  const vocab = new Vocabulary();
  const queryTokens = tokenize(input.query);
  const q = vocab.sortedSet(queryTokens);
  const qSize = q.length;

  out[0] = qSize;
  out[1] = k;
  out[2] = Math.log1p(Math.max(0, input.estimatedTotalHits));

  let jaccardSum = 0;
  let titleCoverage = 0;
  let containingAll = 0;
  let coherence = 0;
  if (titleField !== null && k > 0) {
    const titles: Int32Array[] = [];
    for (const hit of hits) titles.push(vocab.sortedSet(tokenize(titleText(fieldOf(hit, titleField)))));
    const covered = new Uint8Array(vocab.size);
    for (const t of titles) {
      const inter = intersectionSize(q, t);
      jaccardSum += ratio(inter, qSize + t.length - inter);
      if (inter === qSize) containingAll++;
      for (let i = 0; i < t.length; i++) covered[t[i] as number] = 1;
    }
    let coveredQ = 0;
    for (let i = 0; i < qSize; i++) coveredQ += covered[q[i] as number] as number;
    titleCoverage = ratio(coveredQ, qSize);

    const nonEmpty = titles.filter((t) => t.length > 0);
    let pairSum = 0;
    for (let i = 0; i < nonEmpty.length; i++) {
      const a = nonEmpty[i] as Int32Array;
      for (let j = i + 1; j < nonEmpty.length; j++) pairSum += jaccardOf(a, nonEmpty[j] as Int32Array);
    }
    coherence = ratio(pairSum, (nonEmpty.length * (nonEmpty.length - 1)) / 2);
  }
  out[3] = ratio(jaccardSum, k);
  out[4] = titleCoverage;
  out[5] = ratio(containingAll, k);
  out[6] = coherence;

  let matching = 0;
  let tagCount = 0;
  if (tagsField !== null) {
    const inQ = new Set(queryTokens);
    for (const hit of hits) {
      const tags = tagList(fieldOf(hit, tagsField));
      tagCount += tags.length;
      if (tags.some((tag) => tokenize(tag).some((token) => inQ.has(token)))) matching++;
    }
  }
  out[7] = ratio(matching, k);
  out[8] = ratio(tagCount, k);
  return out;
}

export function featureRecord(vector: Float64Array): FeatureRecord {
  const record = {} as FeatureRecord;
  FEATURE_SET_V1.forEach((name, i) => {
    record[name] = vector[i] as number;
  });
  return record;
}
