// Scoring straight from MiniSearch's postings. MiniSearch's `search` builds a result object (score,
// terms, per-term field lists) for every posting of every query term, and an AND search then throws
// most of them away; that was most of a search's time. Here the candidates are found first (the
// documents of the rarest of the words every match needs, or of any word when none is needed), and
// only they are scored, by looking their frequencies up in each term's postings. The arithmetic is MiniSearch's
// own, term by term and field by field in the same order, so the scores are the same numbers
// (expansion.test.ts compares them with MiniSearch's typo and prefix search).

import type MiniSearch from "minisearch";
import { DenseMap, StringKeyMap } from "./slices.ts";

/** MiniSearch's internals read here (minisearch 7). */
interface Internals {
  _index: { get(term: string): Map<number, Map<number, number>> | undefined };
  _documentIds: Map<number, string>;
  _fieldIds: Record<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _documentCount: number;
  _nextId: number;
  _options: { fields: string[] };
}

/** MiniSearch's default BM25+ parameters (the engine never changes them). */
const K = 1.2;
const B = 0.7;
const D = 0.5;

/** The parts of a MiniSearch index that scoring reads, checked once per index. */
export interface PostingsIndex {
  internals: Internals;
  /** Scratch marks by short id, one generation per use (scoring is synchronous). */
  marks: Uint32Array;
  generation: number;
}

export function postingsIndex(search: MiniSearch<unknown>): PostingsIndex {
  const s = search as unknown as Partial<Internals>;
  if (
    typeof s._index?.get !== "function" ||
    typeof s._documentIds?.has !== "function" ||
    typeof s._fieldLength?.get !== "function" ||
    typeof s._fieldIds !== "object" ||
    !Array.isArray(s._avgFieldLength) ||
    typeof s._documentCount !== "number" ||
    typeof s._nextId !== "number" ||
    !Array.isArray(s._options?.fields)
  ) {
    throw new Error("MiniSearch's postings are not where this engine expects them (minisearch upgraded?)");
  }
  const internals = s as Internals;
  return { internals, marks: new Uint32Array(internals._nextId + 1), generation: 0 };
}

/**
 * Gives a MiniSearch index with no documents yet maps of short ids, ids and field lengths that grow without
 * rehashing (slices.ts): MiniSearch's own Maps held the event loop 30-90 ms each time they doubled
 * past 32,768 and 65,536 documents. They answer as Maps, so MiniSearch and this module read them
 * as before.
 */
export function growableInternals(search: MiniSearch<unknown>): void {
  const s = search as unknown as {
    _documentIds?: unknown;
    _idToShortId?: unknown;
    _fieldLength?: unknown;
  };
  if (
    !(s._documentIds instanceof Map && s._documentIds.size === 0) ||
    !(s._idToShortId instanceof Map && s._idToShortId.size === 0) ||
    !(s._fieldLength instanceof Map && s._fieldLength.size === 0)
  ) {
    throw new Error("not an empty MiniSearch index (minisearch upgraded?)");
  }
  s._documentIds = new DenseMap<string>();
  s._idToShortId = new StringKeyMap<number>();
  s._fieldLength = new DenseMap<number[]>();
}

/** A fresh mark value; the array is cleared when the generations wrap. */
function nextGeneration(index: PostingsIndex): number {
  if (index.marks.length <= index.internals._nextId) {
    // Documents were added since the view was made (the engine rebuilds instead; tests may not).
    index.marks = new Uint32Array(index.internals._nextId + 1);
    index.generation = 0;
  } else if (index.generation >= 0xfffffffe) {
    index.marks.fill(0);
    index.generation = 0;
  }
  index.generation++;
  return index.generation;
}

/** One query word as searched: its index terms with their weights, and their typo counts. */
export interface WordTerms {
  /** Term → MiniSearch weight (1 for the word itself and synonyms). */
  weights: Map<string, number>;
  /** Term → edits from the word (absent: 0, an exact, prefix or synonym match). */
  typos?: Map<string, number>;
}

/** What a match records beyond its score. */
export interface ScoreOptions {
  /**
   * How many of the first words every match must have matched: all of them is an AND search, 0
   * an OR search (at least one word), 1 Meilisearch's `last` (the first word).
   */
  leading: number;
  /** Field name → boost (MiniSearch's `boost`); absent fields weigh 1. */
  boost?: Record<string, number>;
  /** Keeps a document (the filter), by short id. */
  keep?: (shortId: number) => boolean;
  /** Per-position bit of each word (a repeated word shares the bit of its first position). */
  bits: readonly number[];
  /** Also compute, per match, the typos and the attribute rank (the ranking-rule tiers). */
  tiers?: boolean;
}

export interface Scored {
  shortIds: number[];
  /** MiniSearch's score rescaled as the engine does (see `matchWords`). */
  scores: number[];
  /** Bit mask of the words matched. */
  masks: number[];
  /** With `tiers`: the sum over matched words of the fewest edits through which each matched. */
  typos?: number[];
  /** With `tiers`: the sum over matched words of the first searchable attribute each matched in. */
  attributes?: number[];
}

interface Probe {
  word: number;
  term: string;
  weight: number;
  typos: number;
  /**
   * The fields holding the term, in MiniSearch's field order: the field's position `f`, the term's
   * postings in it and their number (BM25's document frequency). Only those: with a thousand
   * searchable attributes a term is in a few, and a document is scored against those alone.
   */
  hits: { f: number; postings: Map<number, number>; matching: number }[];
}

/**
 * The documents matching `words` (each an OR of its terms) combined with AND or OR, scored as
 * MiniSearch's `search` with the same terms, `boostTerm` weights and field boosts would score them,
 * then rescaled as the engine does: divided by the number of distinct terms matched (MiniSearch
 * multiplies by it) and multiplied by the number of words matched.
 */
export function scoreWords(index: PostingsIndex, words: readonly WordTerms[], options: ScoreOptions): Scored {
  const steps = scoring(index, words, options);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * `scoreWords` in slices of the event loop: `pause` is awaited every SCORE_STEP candidates (a
 * `Slicer`'s, which gives the loop back once its slice is used up). A short common prefix at
 * 100,000 documents is tens of thousands of candidates, each probed for fifty terms: too long to
 * hold every other request for. The same code as `scoreWords`, so the same numbers in the same order.
 */
export async function scoreWordsSliced(
  index: PostingsIndex,
  words: readonly WordTerms[],
  options: ScoreOptions,
  pause: () => Promise<void>,
): Promise<Scored> {
  const steps = scoring(index, words, options);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await pause();
  }
}

/** Candidates scored between two chances to give the event loop back. */
const SCORE_STEP = 256;

/**
 * The scoring itself, yielding every SCORE_STEP candidates. The candidates are gathered (with the
 * shared scratch marks) before the first yield: a search scoring meanwhile cannot disturb them.
 */
function* scoring(
  index: PostingsIndex,
  words: readonly WordTerms[],
  options: ScoreOptions,
): Generator<void, Scored, void> {
  const ix = index.internals;
  // The fields in the order MiniSearch visits them: the keys of an object built from its field list
  // (integer-like names first, as for any object).
  const byName: Record<string, number> = {};
  for (const name of ix._options.fields) {
    byName[name] =
      (options.boost !== undefined && Object.hasOwn(options.boost, name) && options.boost[name]) || 1;
  }
  const fieldNames = Object.keys(byName);
  const fieldIds = fieldNames.map((name) => ix._fieldIds[name] as number);
  const boosts = fieldNames.map((name) => byName[name] as number);
  // Each field's position among the searchable attributes (the attribute tier).
  const ranks = fieldNames.map((name) => ix._options.fields.indexOf(name));
  const probes: Probe[] = [];
  const perWord: Probe[][] = words.map(() => []);
  // Per word, the number of postings (how expensive it is to enumerate).
  const sizes = words.map(() => 0);
  words.forEach((word, w) => {
    for (const [term, weight] of word.weights) {
      if (term === "") continue;
      const data = ix._index.get(term);
      // A term no document holds (a synonym absent from the index, say) can match nothing.
      if (data === undefined) continue;
      const hits: Probe["hits"] = [];
      for (let f = 0; f < fieldIds.length; f++) {
        const postings = data.get(fieldIds[f] as number);
        if (postings !== undefined && postings.size > 0) hits.push({ f, postings, matching: postings.size });
      }
      if (hits.length === 0) continue;
      const probe: Probe = { word: w, term, weight, typos: word.typos?.get(term) ?? 0, hits };
      for (const hit of hits) sizes[w] = (sizes[w] as number) + hit.matching;
      probes.push(probe);
      (perWord[w] as Probe[]).push(probe);
    }
  });
  const out: Scored = { shortIds: [], scores: [], masks: [] };
  if (options.tiers === true) {
    out.typos = [];
    out.attributes = [];
  }
  if (words.length === 0) return out;
  // The candidates: the documents of the required word with the fewest postings, or with no word
  // required, every word's.
  const leading = Math.min(options.leading, words.length);
  let sources: number[];
  if (leading > 0) {
    let best = 0;
    for (let w = 1; w < leading; w++) if ((sizes[w] as number) < (sizes[best] as number)) best = w;
    sources = [best];
  } else {
    sources = words.map((_, w) => w);
  }
  const generation = nextGeneration(index);
  const marks = index.marks;
  const candidates: number[] = [];
  for (const w of sources) {
    for (const probe of perWord[w] as Probe[]) {
      for (const { postings } of probe.hits) {
        for (const shortId of postings.keys()) {
          if (marks[shortId] === generation) continue;
          marks[shortId] = generation;
          candidates.push(shortId);
        }
      }
    }
  }
  const N = ix._documentCount;
  const avg = ix._avgFieldLength;
  const single = words.length === 1;
  const wordScore = new Float64Array(words.length);
  const wordMatched = new Uint8Array(words.length);
  const wordTypos = new Int32Array(words.length);
  const wordAttribute = new Int32Array(words.length);
  const seenTerms = new Set<string>();
  const ordered = Uint32Array.from(candidates).sort();
  for (let c = 0; c < ordered.length; c++) {
    if (c % SCORE_STEP === SCORE_STEP - 1) yield;
    const shortId = ordered[c] as number;
    if (!ix._documentIds.has(shortId)) continue;
    if (options.keep !== undefined && !options.keep(shortId)) continue;
    const lengths = ix._fieldLength.get(shortId) as number[];
    wordScore.fill(0);
    wordMatched.fill(0);
    wordTypos.fill(0x7fffffff);
    wordAttribute.fill(0x7fffffff);
    seenTerms.clear();
    for (const probe of probes) {
      let termScore = 0;
      let matched = false;
      for (const { f, postings, matching: matchingCount } of probe.hits) {
        const termFreq = postings.get(shortId);
        if (termFreq === undefined) continue;
        const fieldId = fieldIds[f] as number;
        const fieldLength = lengths[fieldId] as number;
        const avgFieldLength = avg[fieldId] as number;
        // calcBM25Score and termResults' weighting, as MiniSearch writes them.
        const invDocFreq = Math.log(1 + (N - matchingCount + 0.5) / (matchingCount + 0.5));
        const rawScore =
          invDocFreq *
          (D + (termFreq * (K + 1)) / (termFreq + K * (1 - B + (B * fieldLength) / avgFieldLength)));
        const weightedScore = 1 * probe.weight * (boosts[f] as number) * 1 * rawScore;
        termScore = matched ? termScore + weightedScore : weightedScore;
        if ((ranks[f] as number) < (wordAttribute[probe.word] as number))
          wordAttribute[probe.word] = ranks[f] as number;
        matched = true;
      }
      if (!matched) continue;
      const w = probe.word;
      wordScore[w] = wordMatched[w] === 1 ? (wordScore[w] as number) + termScore : termScore;
      wordMatched[w] = 1;
      if (probe.typos < (wordTypos[w] as number)) wordTypos[w] = probe.typos;
      seenTerms.add(probe.term);
    }
    let total = 0;
    let any = false;
    let mask = 0;
    let typos = 0;
    let attribute = 0;
    let missing = false;
    for (let w = 0; w < words.length; w++) {
      if (wordMatched[w] === 0) {
        if (w < leading) missing = true;
        continue;
      }
      total = any ? total + (wordScore[w] as number) : (wordScore[w] as number);
      any = true;
      mask |= options.bits[w] as number;
      typos += wordTypos[w] as number;
      attribute += wordAttribute[w] as number;
    }
    if (!any || missing) continue;
    const quality = seenTerms.size || 1;
    // MiniSearch multiplies by the terms matched; the engine divides that back out and multiplies
    // by the words matched (a word repeated in the query counts once).
    let score = (total * quality) / Math.max(1, seenTerms.size);
    if (!single) score *= Math.max(1, bitCount(mask));
    out.shortIds.push(shortId);
    out.scores.push(score);
    out.masks.push(mask);
    out.typos?.push(typos);
    out.attributes?.push(attribute);
  }
  return out;
}

/** The number of distinct documents holding any of `terms` (in any field), passing `keep`. */
export function countMatching(
  index: PostingsIndex,
  terms: Iterable<string>,
  keep?: (shortId: number) => boolean,
): number[] {
  const ix = index.internals;
  const generation = nextGeneration(index);
  const marks = index.marks;
  const out: number[] = [];
  for (const term of terms) {
    for (const postings of ix._index.get(term)?.values() ?? []) {
      for (const shortId of postings.keys()) {
        if (marks[shortId] === generation) continue;
        marks[shortId] = generation;
        if (!ix._documentIds.has(shortId)) continue;
        if (keep === undefined || keep(shortId)) out.push(shortId);
      }
    }
  }
  return out;
}

export function bitCount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}
