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
  /** Spare slot maps (document → candidate slot + 1, all 0), one taken per search scoring. */
  slots: Int32Array[];
}

export function postingsIndex(index: TypedIndex): PostingsIndex {
  return { index, marks: new Uint32Array(index.documentCount + 1), generation: 0, slots: [] };
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

/**
 * The matches, in ascending document order, in typed arrays (the same position in each): tens of
 * thousands of matches in growing JavaScript arrays made the collector work harder than scoring.
 */
export interface Scored {
  shortIds: Uint32Array;
  /** MiniSearch's score rescaled as the engine does (see `matchWords`). */
  scores: Float64Array;
  /** Bit mask of the words matched. */
  masks: Uint32Array;
  /** With `tiers`: the sum over matched words of the fewest edits through which each matched. */
  typos?: Uint32Array;
  /** With `tiers`: the sum over matched words of the first searchable attribute each matched in. */
  attributes?: Uint32Array;
}

/** Room for `n` matches, filled by `finish`; `matches` says how many are filled. */
function scoredOf(n: number, tiers: boolean): Scored & { matches: number } {
  const out: Scored & { matches: number } = {
    shortIds: new Uint32Array(n),
    scores: new Float64Array(n),
    masks: new Uint32Array(n),
    matches: 0,
  };
  if (tiers) {
    out.typos = new Uint32Array(n);
    out.attributes = new Uint32Array(n);
  }
  return out;
}

/** The filled part of `out`. */
function filled(out: Scored & { matches: number }): Scored {
  const n = out.matches;
  const scored: Scored = {
    shortIds: out.shortIds.subarray(0, n),
    scores: out.scores.subarray(0, n),
    masks: out.masks.subarray(0, n),
  };
  if (out.typos !== undefined && out.attributes !== undefined) {
    scored.typos = out.typos.subarray(0, n);
    scored.attributes = out.attributes.subarray(0, n);
  }
  return scored;
}

interface Hit {
  /** The field's position in scoring order. */
  f: number;
  start: number;
  end: number;
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
 * `scoreWords` in slices of the event loop: `pause` is awaited between steps of the work (a
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

/**
 * The scoring itself, yielding between steps (POSTINGS_STEP postings, FINISH_STEP candidates). The candidates are gathered (with the
 * shared scratch marks) before the first yield: a search scoring meanwhile cannot disturb them.
 */
function* scoring(
  view: PostingsIndex,
  words: readonly WordTerms[],
  options: ScoreOptions,
): Generator<void, Scored, void> {
  const index = view.index;
  const { fields, docs } = index.data;
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
          hits.push({ f, start: run.start, end: run.end, matching, idf });
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
  if (words.length === 0) return filled(scoredOf(0, options.tiers === true));
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
  // In ascending document order: sorted, or (when they are many) read off the marks in order.
  let ordered: Uint32Array;
  if (n * 16 < N) ordered = gathered.subarray(0, n).sort();
  else {
    ordered = gathered;
    let k = 0;
    for (let doc = 0; doc < N; doc++) if (marks[doc] === generation) ordered[k++] = doc;
    ordered = ordered.subarray(0, k);
  }
  // Each candidate (passing `keep`) gets a slot, in ascending document order; slot[doc] is its
  // slot + 1 (0: not a candidate). The map is this search's own (other searches may score the
  // same index between two slices of this one).
  const slot = view.slots.pop() ?? new Int32Array(N);
  const candidates: number[] = [];
  for (let i = 0; i < ordered.length; i++) {
    const doc = ordered[i] as number;
    if (options.keep !== undefined && !options.keep(doc)) continue;
    candidates.push(doc);
    slot[doc] = candidates.length;
  }
  try {
    return yield* accumulate(
      view,
      words.length,
      probes,
      leading,
      fieldIds,
      boosts,
      ranks,
      slot,
      candidates,
      options,
    );
  } finally {
    for (const doc of candidates) slot[doc] = 0;
    if (view.slots.length < MAX_SPARE_SLOTS) view.slots.push(slot);
  }
}

/** One term's scores per candidate while its runs are walked. */
interface TermScratch {
  score: Float64Array;
  /** The probe (its number + 1) that last touched each candidate. */
  mark: Int32Array;
  /** The candidates touched by the probe being walked, `count` of them. */
  touched: Uint32Array;
  count: number;
}

/** What scoring one run of postings needs of its field and probe. */
interface FieldScoring {
  fieldId: number;
  F: number;
  avgFieldLength: number;
  invDocFreq: number;
  factor: number;
  rank: number;
  w: number;
  W: number;
  /** The probe's number + 1. */
  p: number;
}

/** Adds the BM25+ score of postings [start, end) of one run to their candidates' term scores. */
function addPostings(
  docs: Uint32Array,
  freqs: Uint32Array,
  lengths: Uint32Array,
  slot: Int32Array,
  start: number,
  end: number,
  field: FieldScoring,
  term: TermScratch,
  wordAttribute: Int32Array | undefined,
): void {
  const { fieldId, F, avgFieldLength, invDocFreq, factor, rank, w, W, p } = field;
  const { score, mark, touched } = term;
  let count = term.count;
  for (let i = start; i < end; i++) {
    const doc = docs[i] as number;
    const s = slot[doc] as number;
    if (s === 0) continue;
    const c = s - 1;
    const termFreq = freqs[i] as number;
    const fieldLength = lengths[doc * F + fieldId] as number;
    // calcBM25Score and termResults' weighting, as MiniSearch writes them.
    const rawScore =
      invDocFreq * (D + (termFreq * (K + 1)) / (termFreq + K * (1 - B + (B * fieldLength) / avgFieldLength)));
    const weightedScore = factor * rawScore;
    if (mark[c] !== p) {
      mark[c] = p;
      score[c] = weightedScore;
      touched[count++] = c;
    } else {
      score[c] = (score[c] as number) + weightedScore;
    }
    if (wordAttribute !== undefined && rank < (wordAttribute[c * W + w] as number))
      wordAttribute[c * W + w] = rank;
  }
  term.count = count;
}

/** Adds a term's scores (its fields summed) to its word's, for every candidate it touched. */
function foldTerm(
  term: TermScratch,
  probe: Probe,
  W: number,
  wordScore: Float64Array,
  matchedWords: Uint32Array,
  wordTypos: Int32Array | undefined,
  distinctMatched: Uint32Array,
  once: Uint8Array | undefined,
): void {
  const w = probe.word;
  const bit = 1 << w;
  const { score, touched } = term;
  for (let k = 0; k < term.count; k++) {
    const c = touched[k] as number;
    const at = c * W + w;
    wordScore[at] =
      ((matchedWords[c] as number) & bit) !== 0
        ? (wordScore[at] as number) + (score[c] as number)
        : (score[c] as number);
    matchedWords[c] = (matchedWords[c] as number) | bit;
    if (wordTypos !== undefined && probe.typos < (wordTypos[at] as number)) wordTypos[at] = probe.typos;
    if (once === undefined) distinctMatched[c] = (distinctMatched[c] as number) + 1;
    else if (once[c] === 0) {
      once[c] = 1;
      distinctMatched[c] = (distinctMatched[c] as number) + 1;
    }
  }
}

/** Slot maps kept for reuse per index (one per search scoring at the same time, beyond which they are dropped). */
const MAX_SPARE_SLOTS = 4;
/** Postings walked between two chances to give the event loop back. */
const POSTINGS_STEP = 1024;

/**
 * Scores the candidates term by term: each term's runs are walked once, front to back, adding the
 * term's BM25+ score in each field to its candidates (a short prefix stands for fifty terms: looking
 * every candidate up in every term's postings cost fifty lookups per candidate). The sums are made
 * in MiniSearch's order for every document (fields in order within a term, terms in order within a
 * word, words in order), so the scores are the same numbers as MiniSearch's.
 */
function* accumulate(
  view: PostingsIndex,
  W: number,
  probes: readonly Probe[],
  leading: number,
  fieldIds: readonly number[],
  boosts: readonly number[],
  ranks: readonly number[],
  slot: Int32Array,
  candidates: readonly number[],
  options: ScoreOptions,
): Generator<void, Scored, void> {
  const { averageLengths: avg, lengths, docs, freqs } = view.index.data;
  const F = view.index.fieldCount;
  const C = candidates.length;
  const tiers = options.tiers === true;
  const wordScore = new Float64Array(C * W);
  const matchedWords = new Uint32Array(C);
  const wordTypos = tiers ? new Int32Array(C * W).fill(0x7fffffff) : undefined;
  const wordAttribute = tiers ? new Int32Array(C * W).fill(0x7fffffff) : undefined;
  const distinctMatched = new Uint32Array(C);
  // A term searched for two words (a word repeated in the query, overlapping expansions) counts once.
  const probesOf = new Map<number, number>();
  for (const probe of probes) probesOf.set(probe.distinct, (probesOf.get(probe.distinct) ?? 0) + 1);
  const counted = new Map<number, Uint8Array>();
  for (const [distinct, n] of probesOf) if (n > 1) counted.set(distinct, new Uint8Array(C));
  const term: TermScratch = {
    score: new Float64Array(C),
    mark: new Int32Array(C),
    touched: new Uint32Array(C),
    count: 0,
  };
  for (let p = 0; p < probes.length; p++) {
    const probe = probes[p] as Probe;
    term.count = 0;
    for (const hit of probe.hits) {
      const f = hit.f;
      const field: FieldScoring = {
        fieldId: fieldIds[f] as number,
        F,
        avgFieldLength: avg[fieldIds[f] as number] as number,
        invDocFreq: hit.idf,
        factor: 1 * probe.weight * (boosts[f] as number) * 1,
        rank: ranks[f] as number,
        w: probe.word,
        W,
        p: p + 1,
      };
      // In steps of POSTINGS_STEP postings, the event loop given back between them.
      for (let start = hit.start; start < hit.end; start += POSTINGS_STEP) {
        const end = Math.min(hit.end, start + POSTINGS_STEP);
        addPostings(docs, freqs, lengths, slot, start, end, field, term, wordAttribute);
        yield;
      }
    }
    foldTerm(
      term,
      probe,
      W,
      wordScore,
      matchedWords,
      wordTypos,
      distinctMatched,
      counted.get(probe.distinct),
    );
  }
  const out = scoredOf(C, tiers);
  const totals: Totals = {
    W,
    leading,
    bits: options.bits,
    wordScore,
    matchedWords,
    wordTypos,
    wordAttribute,
    distinctMatched,
    candidates,
  };
  for (let from = 0; from < C; from += FINISH_STEP) {
    finish(totals, from, Math.min(C, from + FINISH_STEP), out);
    yield;
  }
  return filled(out);
}

/** Candidates finished between two chances to give the event loop back. */
const FINISH_STEP = 512;

/** What `finish` reads: the per-candidate sums of `accumulate`. */
interface Totals {
  W: number;
  leading: number;
  bits: readonly number[];
  wordScore: Float64Array;
  matchedWords: Uint32Array;
  wordTypos: Int32Array | undefined;
  wordAttribute: Int32Array | undefined;
  distinctMatched: Uint32Array;
  candidates: readonly number[];
}

/** Candidates [from, to): their words' scores summed, the matches (every leading word matched) added to `out`. */
function finish(t: Totals, from: number, to: number, out: Scored & { matches: number }): void {
  const { W, leading, bits, wordScore, matchedWords, wordTypos, wordAttribute, distinctMatched, candidates } =
    t;
  const single = W === 1;
  for (let c = from; c < to; c++) {
    const matched = matchedWords[c] as number;
    if (matched === 0) continue;
    let total = 0;
    let any = false;
    let mask = 0;
    let typos = 0;
    let attribute = 0;
    let missing = false;
    for (let w = 0; w < W; w++) {
      if ((matched & (1 << w)) === 0) {
        if (w < leading) missing = true;
        continue;
      }
      const at = c * W + w;
      total = any ? total + (wordScore[at] as number) : (wordScore[at] as number);
      any = true;
      mask |= bits[w] as number;
      if (wordTypos !== undefined && wordAttribute !== undefined) {
        typos += wordTypos[at] as number;
        attribute += wordAttribute[at] as number;
      }
    }
    if (!any || missing) continue;
    const seen = distinctMatched[c] as number;
    const quality = seen || 1;
    // MiniSearch multiplies by the terms matched; the engine divides that back out and multiplies
    // by the words matched (a word repeated in the query counts once).
    let score = (total * quality) / Math.max(1, seen);
    if (!single) score *= Math.max(1, bitCount(mask));
    const at = out.matches++;
    out.shortIds[at] = candidates[c] as number;
    out.scores[at] = score;
    out.masks[at] = mask;
    if (out.typos !== undefined && out.attributes !== undefined) {
      out.typos[at] = typos;
      out.attributes[at] = attribute;
    }
  }
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
