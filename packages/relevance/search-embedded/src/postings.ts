// Scoring straight from the postings (typed-index.ts). The candidates are found first (the documents
// of the rarest of the words every match needs, or of any word when none is needed), and only they
// are scored, in ascending document order, each term's runs walked by a cursor that only moves
// forward (galloping over long gaps). The arithmetic is MiniSearch's own BM25+, term by term and
// field by field in the same order, so the scores are the same numbers as MiniSearch's own typo and
// prefix search (expansion.test.ts compares them).

import type { TypedIndex } from "./typed-index.ts";

/** MiniSearch's default BM25+ parameters (the engine never changes them). */
const K = 1.2;
const B = 0.7;
const D = 0.5;

/** An index as scoring reads it, with its scratch marks. */
export interface PostingsIndex {
  index: TypedIndex;
  /** Scratch marks by document number, one generation per use (candidate gathering is synchronous). */
  marks: Uint32Array;
  generation: number;
}

export function postingsIndex(index: TypedIndex): PostingsIndex {
  return { index, marks: new Uint32Array(index.documentCount + 1), generation: 0 };
}

/** A fresh mark value; the array is cleared when the generations wrap. */
function nextGeneration(index: PostingsIndex): number {
  if (index.generation >= 0xfffffffe) {
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

interface Hit {
  /** The field's position in scoring order. */
  f: number;
  start: number;
  end: number;
  /** The first posting not yet passed by the candidates (they come in ascending order). */
  cursor: number;
  /** BM25's document frequency: the documents holding the term in this field. */
  matching: number;
  /** BM25's inverse document frequency, the same for every document (computed once). */
  idf: number;
}

interface Probe {
  word: number;
  term: string;
  /** The term's number among the distinct terms searched (a term may stand for two words). */
  distinct: number;
  weight: number;
  typos: number;
  /**
   * The fields holding the term, in MiniSearch's field order. Only those: with a thousand
   * searchable attributes a term is in a few, and a document is scored against those alone.
   */
  hits: Hit[];
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
 * `Slicer`'s, which gives the loop back once its slice is used up). The same code as `scoreWords`,
 * so the same numbers in the same order.
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

/** The first position in docs[from, end) holding a document >= target (end when none). */
function seek(docs: Uint32Array, from: number, end: number, target: number): number {
  if (from >= end || (docs[from] as number) >= target) return from;
  // Galloping: double the step until past the target, then halve back.
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < end && (docs[hi] as number) < target) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  if (hi > end) hi = end;
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if ((docs[mid] as number) < target) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The scoring itself, yielding every SCORE_STEP candidates. The candidates are gathered (with the
 * shared scratch marks) before the first yield: a search scoring meanwhile cannot disturb them.
 */
function* scoring(
  view: PostingsIndex,
  words: readonly WordTerms[],
  options: ScoreOptions,
): Generator<void, Scored, void> {
  const index = view.index;
  const { fields, averageLengths: avg, lengths, docs, freqs } = index.data;
  const F = index.fieldCount;
  // The fields in the order MiniSearch visits them: the keys of an object built from its field list
  // (integer-like names first, as for any object).
  const byName: Record<string, number> = {};
  for (const name of fields) {
    byName[name] =
      (options.boost !== undefined && Object.hasOwn(options.boost, name) && options.boost[name]) || 1;
  }
  const fieldNames = Object.keys(byName);
  const fieldIds = fieldNames.map((name) => fields.indexOf(name));
  const boosts = fieldNames.map((name) => byName[name] as number);
  // Each field's position among the searchable attributes (the attribute tier).
  const ranks = fieldIds;
  const N = index.documentCount;
  const probes: Probe[] = [];
  const distinctTerms = new Map<string, number>();
  const perWord: Probe[][] = words.map(() => []);
  // Per word, the number of postings (how expensive it is to enumerate).
  const sizes = words.map(() => 0);
  words.forEach((word, w) => {
    for (const [term, weight] of word.weights) {
      if (term === "") continue;
      const runs = index.runs(term);
      // A term no document holds (a synonym absent from the index, say) can match nothing.
      if (runs.length === 0) continue;
      const hits: Hit[] = [];
      for (let f = 0; f < fieldIds.length; f++) {
        const run = runs.find((r) => r.field === fieldIds[f]);
        if (run !== undefined && run.end > run.start) {
          const matching = run.end - run.start;
          // calcBM25Score's inverse document frequency, as MiniSearch writes it.
          const idf = Math.log(1 + (N - matching + 0.5) / (matching + 0.5));
          hits.push({ f, start: run.start, end: run.end, cursor: run.start, matching, idf });
        }
      }
      if (hits.length === 0) continue;
      let distinct = distinctTerms.get(term);
      if (distinct === undefined) {
        distinct = distinctTerms.size;
        distinctTerms.set(term, distinct);
      }
      const probe: Probe = { word: w, term, distinct, weight, typos: word.typos?.get(term) ?? 0, hits };
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
  const generation = nextGeneration(view);
  const marks = view.marks;
  let count = 0;
  for (const w of sources)
    for (const probe of perWord[w] as Probe[]) for (const hit of probe.hits) count += hit.matching;
  const gathered = new Uint32Array(count);
  let n = 0;
  for (const w of sources) {
    for (const probe of perWord[w] as Probe[]) {
      for (const { start, end } of probe.hits) {
        for (let p = start; p < end; p++) {
          const doc = docs[p] as number;
          if (marks[doc] === generation) continue;
          marks[doc] = generation;
          gathered[n++] = doc;
        }
      }
    }
  }
  const ordered = gathered.subarray(0, n).sort();
  const single = words.length === 1;
  const wordScore = new Float64Array(words.length);
  const wordMatched = new Uint8Array(words.length);
  const wordTypos = new Int32Array(words.length);
  const wordAttribute = new Int32Array(words.length);
  // Which distinct terms the candidate matched: marked with the candidate's turn (c + 1).
  const termSeen = new Float64Array(distinctTerms.size);
  for (let c = 0; c < ordered.length; c++) {
    if (c % SCORE_STEP === SCORE_STEP - 1) yield;
    const shortId = ordered[c] as number;
    if (options.keep !== undefined && !options.keep(shortId)) continue;
    wordScore.fill(0);
    wordMatched.fill(0);
    wordTypos.fill(0x7fffffff);
    wordAttribute.fill(0x7fffffff);
    let seenTerms = 0;
    for (const probe of probes) {
      let termScore = 0;
      let matched = false;
      for (const hit of probe.hits) {
        const at = seek(docs, hit.cursor, hit.end, shortId);
        hit.cursor = at;
        if (at >= hit.end || docs[at] !== shortId) continue;
        const termFreq = freqs[at] as number;
        const f = hit.f;
        const fieldId = fieldIds[f] as number;
        const fieldLength = lengths[shortId * F + fieldId] as number;
        const avgFieldLength = avg[fieldId] as number;
        const invDocFreq = hit.idf;
        // calcBM25Score and termResults' weighting, as MiniSearch writes them.
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
      if (termSeen[probe.distinct] !== c + 1) {
        termSeen[probe.distinct] = c + 1;
        seenTerms++;
      }
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
    const quality = seenTerms || 1;
    // MiniSearch multiplies by the terms matched; the engine divides that back out and multiplies
    // by the words matched (a word repeated in the query counts once).
    let score = (total * quality) / Math.max(1, seenTerms);
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
  view: PostingsIndex,
  terms: Iterable<string>,
  keep?: (shortId: number) => boolean,
): number[] {
  const { docs } = view.index.data;
  const generation = nextGeneration(view);
  const marks = view.marks;
  const out: number[] = [];
  for (const term of terms) {
    for (const { start, end } of view.index.runs(term)) {
      for (let p = start; p < end; p++) {
        const doc = docs[p] as number;
        if (marks[doc] === generation) continue;
        marks[doc] = generation;
        if (keep === undefined || keep(doc)) out.push(doc);
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
