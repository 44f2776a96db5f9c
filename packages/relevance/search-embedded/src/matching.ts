// Matching query words against the index: each word expanded (within bounds) into the index terms
// it stands for (its typos, the last word's prefixes, synonyms), then the documents matching them
// scored from the postings (postings.ts), as MiniSearch scores its own typo and prefix search.

import {
  MAX_EXPANDED_WORD_CHARS,
  MAX_EXPANSIONS_PER_WORD,
  MAX_PREFIX_SCAN,
  MAX_QUERY_WORDS,
} from "@relevance/search";
import type { SearchOptions } from "minisearch";
import {
  type PostingsIndex,
  postingsIndex,
  type Scored,
  type ScoreOptions,
  scoreWords,
  scoreWordsSliced,
  type WordTerms,
} from "./postings.ts";
import { typoBudget } from "./settings.ts";
import type { TypedIndex } from "./typed-index.ts";

/**
 * Typo tolerance by default: the Levenshtein distance allowed for a query term, Meilisearch's
 * default `minWordSizeForTypos` (one typo from 5 characters, two from 9). MiniSearch counts a swap
 * of two adjacent letters ("runnign") as two edits, Meilisearch as one.
 */
export function fuzziness(term: string): number {
  return typoBudget(term);
}

/**
 * MiniSearch's own typo and prefix matching, as the engine once used it. Searches no longer run
 * with it (see `searchWords`, which expands words itself, within bounds); tests compare with it.
 */
export const UNBOUNDED_SEARCH_OPTIONS: SearchOptions = {
  fuzzy: (term) => fuzziness(term),
  // Prefix matching on the last query word only: it is the one the user may still be typing.
  prefix: (_term, i, terms) => i === terms.length - 1,
};

/** MiniSearch's default weights of a prefix and a fuzzy match (its `weights` option). */
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

/** The parts of the term index (MiniSearch's radix tree, `SearchableMap`) that word expansion reads. */
export interface TermIndex {
  atPrefix(prefix: string): Iterable<[string, unknown]>;
  fuzzyGet(term: string, maxDistance: number): Map<string, [unknown, number]>;
}

/**
 * The index terms a query word stands for, with MiniSearch's weight for each: the word itself (1),
 * prefix completions when it is the last word, and terms within its typo distance. Bounded, so no
 * word costs much whatever it is: a word longer than MAX_EXPANDED_WORD_CHARS is matched exactly
 * (MiniSearch's typo search would allocate (length + 3) x (length + 1) bytes), a prefix examines at
 * most MAX_PREFIX_SCAN index terms, and at most MAX_EXPANSIONS_PER_WORD expansions are kept, the
 * closest first (highest weight: fewest typos, shortest completion). Within these bounds the terms
 * and weights are exactly MiniSearch's.
 */
export function expandWord(
  index: TermIndex,
  word: string,
  last: boolean,
  typos: number = fuzziness(word),
  /** Filled with the edits of each typo term kept (exact and prefix terms have none). */
  edits?: Map<string, number>,
): Map<string, number> {
  const terms = new Map<string, number>([[word, 1]]);
  if (word.length > MAX_EXPANDED_WORD_CHARS) return terms;
  const candidates = new Map<string, number>();
  const prefixed = new Set<string>();
  if (last) {
    let scanned = 0;
    for (const [term] of index.atPrefix(word)) {
      if (++scanned > MAX_PREFIX_SCAN) break;
      prefixed.add(term);
      const distance = term.length - word.length;
      if (distance === 0) continue;
      candidates.set(term, (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance));
    }
  }
  if (typos > 0) {
    for (const [term, [, distance]] of index.fuzzyGet(word, typos)) {
      // As in MiniSearch: a term that is also a prefix match counts as a prefix match.
      if (distance === 0 || prefixed.has(term)) continue;
      candidates.set(term, (FUZZY_WEIGHT * term.length) / (term.length + distance));
      edits?.set(term, distance);
    }
  }
  if (candidates.size <= MAX_EXPANSIONS_PER_WORD) {
    // The usual case: everything is kept, no ranking needed.
    for (const [term, weight] of candidates) terms.set(term, weight);
    return terms;
  }
  const kept = [...candidates].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [term, weight] of kept.slice(0, MAX_EXPANSIONS_PER_WORD)) terms.set(term, weight);
  for (const [term] of kept.slice(MAX_EXPANSIONS_PER_WORD)) edits?.delete(term);
  return terms;
}

/** How the index settings shape `searchWords` (absent: no synonyms, default typos, no boost). */
export interface SearchWordsOptions {
  /** The typos allowed in a query word. */
  typos?: (word: string) => number;
  /** Query word → words a search for it also finds, matched exactly, weighing as the word itself. */
  synonyms?: ReadonlyMap<string, readonly string[]>;
  /** Per-field weights (ordered searchable attributes). */
  boost?: Record<string, number>;
}

/**
 * Searches `words` (tokens, at most MAX_QUERY_WORDS of them are used) with bounded expansion
 * (`expandWord`), scored as MiniSearch scores its own typo and prefix matching: each expansion is
 * scored as an exact term weighted as MiniSearch weighs it, and the score is then rescaled from
 * "number of index terms matched" (what MiniSearch multiplies by, here) to "number of query words
 * matched" (what it multiplies by when it expands words itself). By descending score.
 */
export function searchWords(
  search: TypedIndex,
  allWords: readonly string[],
  combineWith: "AND" | "OR",
  filter?: (id: string) => boolean,
  options: SearchWordsOptions = {},
): { id: string; score: number }[] {
  const ids = search.data.ids;
  const keep = filter === undefined ? undefined : (shortId: number) => filter(ids[shortId] as string);
  const found = matchWords(search, allWords, combineWith === "AND" ? MAX_QUERY_WORDS : 0, keep, options);
  return Array.from(found.shortIds, (shortId, r) => ({
    id: ids[shortId] as string,
    score: found.scores[r] as number,
  })).sort((a, b) => b.score - a.score);
}

/** What `matchWords` finds: per match (same order in every array) its short id, score and words. */
export interface WordMatches extends Scored {
  /** The query words used (at most MAX_QUERY_WORDS). */
  words: string[];
  /** For each position of `words`, the first position holding the same word. */
  canonical: number[];
  /** Every index term searched (the words and their expansions): what highlighting marks. */
  terms: Set<string>;
  /** Per position of `words`: the index terms it expanded into. */
  expansions: WordTerms[];
}

/**
 * Each query word's index terms: its bounded expansion (the index's typo settings) plus its
 * synonyms, matched exactly and weighing as the word itself. The last word also gets prefixes.
 */
function expandQueryWords(
  index: TermIndex,
  words: readonly string[],
  options: SearchWordsOptions,
): WordTerms[] {
  return words.map((word, i) => {
    const typos = options.typos === undefined ? fuzziness(word) : options.typos(word);
    const edits = new Map<string, number>();
    const weights = expandWord(index, word, i === words.length - 1, typos, edits);
    for (const synonym of options.synonyms?.get(word) ?? []) {
      if (!weights.has(synonym)) weights.set(synonym, 1);
      edits.delete(synonym);
    }
    return { weights, typos: edits };
  });
}

/** The index terms the first query word stands for (as `matchWords` expands it). */
export function expandFirst(
  index: TypedIndex,
  words: readonly string[],
  options: SearchWordsOptions,
): Iterable<string> {
  return (expandQueryWords(index.terms, words, options)[0] as WordTerms).weights.keys();
}

/** Each index's postings view (with its scratch marks), made once. */
const postingsViews = new WeakMap<TypedIndex, PostingsIndex>();

export function postingsOf(search: TypedIndex): PostingsIndex {
  let view = postingsViews.get(search);
  if (view === undefined) {
    view = postingsIndex(search);
    postingsViews.set(search, view);
  }
  return view;
}

/**
 * The documents matching `allWords` (each word: any of its expansions) combined with AND or OR,
 * scored from the postings (`scoreWords`), with the words each matched as a bit mask of canonical
 * positions (bit i for the first position holding the same word as position i). With `tiers`, also
 * the typos and attribute rank of each match (the ranking rules before `sort`).
 */
export function matchWords(
  search: TypedIndex,
  allWords: readonly string[],
  /** How many of the first words every match must have matched (all: AND; 0: OR). */
  leading: number,
  keep?: (shortId: number) => boolean,
  options: SearchWordsOptions = {},
  tiers = false,
): WordMatches {
  const query = matchQuery(search, allWords, leading, keep, options, tiers);
  return matched(query, scoreWords(postingsOf(search), query.expansions, query.score));
}

/** `matchWords` giving the event loop back while it scores (`scoreWordsSliced`): what searches use. */
export async function matchWordsSliced(
  search: TypedIndex,
  allWords: readonly string[],
  leading: number,
  keep: ((shortId: number) => boolean) | undefined,
  options: SearchWordsOptions,
  tiers: boolean,
  pause: () => Promise<void>,
): Promise<WordMatches> {
  const query = matchQuery(search, allWords, leading, keep, options, tiers);
  return matched(query, await scoreWordsSliced(postingsOf(search), query.expansions, query.score, pause));
}

interface MatchQuery {
  words: string[];
  expansions: WordTerms[];
  canonical: number[];
  score: ScoreOptions;
}

function matchQuery(
  search: TypedIndex,
  allWords: readonly string[],
  leading: number,
  keep: ((shortId: number) => boolean) | undefined,
  options: SearchWordsOptions,
  tiers: boolean,
): MatchQuery {
  const words = allWords.slice(0, MAX_QUERY_WORDS);
  const expansions = expandQueryWords(search.terms, words, options);
  // A word repeated in the query counts once.
  const canonical = words.map((word) => words.indexOf(word));
  const score: ScoreOptions = {
    leading,
    ...(options.boost === undefined ? {} : { boost: options.boost }),
    ...(keep === undefined ? {} : { keep }),
    bits: canonical.map((c) => 1 << c),
    tiers,
  };
  return { words, expansions, canonical, score };
}

function matched({ words, expansions, canonical }: MatchQuery, scored: Scored): WordMatches {
  const terms = new Set<string>();
  for (const expanded of expansions) for (const term of expanded.weights.keys()) terms.add(term);
  return { ...scored, words, canonical, terms, expansions };
}
