// Ranking the matches of a search as Meilisearch's ranking rules order them (the tiers the engine
// models: words, typo, attribute, sort), and the placeholder search of an empty query. Everything
// here works on document numbers (positions in primary-key order, loaded-index.ts); only the page's
// ids are made into strings.

import { MAX_QUERY_WORDS, type MatchingStrategy } from "@relevance/search";
import { type DocumentSource, type LoadedIndex, sortedOrder, sortKeysOf } from "./loaded-index.ts";
import {
  expandFirst,
  matchWordsSliced,
  postingsOf,
  type SearchWordsOptions,
  type WordMatches,
} from "./matching.ts";
import { countMatching, type WordTerms } from "./postings.ts";
import { compareColumns, type SortCriterion, sortSliced } from "./sort.ts";

/** A compiled filter over document numbers (attribute columns): whether the document passes. */
export type NumberPredicate = (d: number) => boolean;

/** The matches in ranking order, their ranking scores (0..1) and the terms highlighting marks. */
export interface Ranked {
  /** In ranking order: every match, or (when `matches` is set) at least the first `need` of them. */
  ids: string[];
  /** The number of matches. */
  total: number;
  /**
   * Every match's document number, in no particular order (`ids` may hold only the first ones):
   * what facets count. Null: every document of the index.
   */
  matches: () => Iterable<number> | null;
  score(id: string): number;
  terms: ReadonlySet<string>;
}

/**
 * How a sorted search orders its matches: the index's ranking rules that the engine models
 * (`words`, `typo`, `attribute`) and `sort` (the request's criteria), in the index's order.
 * Proximity and exactness are not modelled; after the listed tiers come the score, then the
 * primary-key order.
 */
export interface SortOrder {
  criteria: SortCriterion[];
  tiers: ("words" | "typo" | "attribute" | "sort")[];
}

export function sortOrder(rules: readonly string[], criteria: SortCriterion[]): SortOrder {
  const tiers: SortOrder["tiers"] = [];
  for (const rule of rules) {
    if (rule === "words" || rule === "typo" || rule === "attribute" || rule === "sort") tiers.push(rule);
  }
  if (!tiers.includes("sort")) tiers.push("sort");
  return { criteria, tiers };
}

/**
 * An empty query: every document passing the filter, in primary-key order (Meilisearch's
 * placeholder search), or in the order of the sort. Only the first `need` are listed; the rest are
 * counted (and handed to facets).
 */
export async function placeholder(
  index: LoadedIndex,
  documents: DocumentSource,
  predicate: NumberPredicate | null,
  order: SortOrder | undefined,
  need: number,
  pause: () => Promise<void>,
): Promise<Ranked> {
  const ids = index.search.data.ids;
  const count = ids.length;
  const walk = order === undefined ? undefined : await sortedOrder(index, documents, order.criteria, pause);
  const page: string[] = [];
  if (predicate === null) {
    for (let i = 0; i < Math.min(need, count); i++)
      page.push(ids[walk === undefined ? i : (walk[i] as number)] as string);
    return { ids: page, total: count, matches: () => null, score: () => 1, terms: new Set() };
  }
  // Every document the filter passes: a pause per 256 looked at, not per 256 kept, so a filter
  // that keeps few of 100,000 documents does not hold the loop for all of them.
  const passing: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 256 === 255) await pause();
    const d = walk === undefined ? i : (walk[i] as number);
    if (!predicate(d)) continue;
    passing.push(d);
    if (page.length < need) page.push(ids[d] as string);
  }
  return { ids: page, total: passing.length, matches: () => passing, score: () => 1, terms: new Set() };
}

/**
 * The matches of a query, as Meilisearch's matching strategies choose them:
 * - `last` (default): documents matching every word first, then those matching all but the last
 *   word, and so on down to the first word alone (a document must match the first word);
 * - `frequency`: the same, removing the words that match the most documents first (and words that
 *   match none before them);
 * - `all`: only documents matching every word.
 * Within a number of words matched, by descending BM25+ score, then primary-key order; with a sort,
 * in the order of `SortOrder`. The ranking score is (words kept + score / best score of the query)
 * / (words + 1): 1 for the best document matching every word, and in the same order as the ranking
 * when there is no sort.
 */
/** What one ranking is asked: the index, the query's words and the shape of the page. */
interface RankingRequest {
  /** Awaited between parts of the work: gives the event loop back once a slice is used up. */
  pause: () => Promise<void>;
  index: LoadedIndex;
  /** Where columns the index lacks are read from (a sort on a nested attribute, say). */
  documents: DocumentSource;
  words: string[];
  predicate: NumberPredicate | null;
  /** Default `last`, as Meilisearch's. */
  strategy?: MatchingStrategy | undefined;
  /** Only the first `need` ids are used: lower tiers beyond them need not be ordered. */
  need?: number | undefined;
  options?: SearchWordsOptions;
  order?: SortOrder | undefined;
  /** Every match's ranking score may be asked (it is relative to the best of its tier). */
  scoresAll?: boolean;
}

export async function ranking(request: RankingRequest): Promise<Ranked> {
  const { pause, index, documents, words, predicate, need, order } = request;
  const strategy = request.strategy ?? "last";
  const options = request.options ?? {};
  const scoresAll = request.scoresAll ?? false;
  const keep = predicate ?? undefined;
  const used = words.slice(0, MAX_QUERY_WORDS);
  const all = strategy === "all" || used.length === 1;
  // Typos and attribute ranks are computed only when a sort needs them as tiers.
  const tiers = order !== undefined && (order.tiers.includes("typo") || order.tiers.includes("attribute"));
  // When the words tier comes first (always without sort; with sort unless the index puts sort
  // first), the matches below the tiers that hold the page need no ordering, only counting.
  const wordsFirst = order === undefined || order.tiers[0] === "words";
  // Words kept per match: how many words of `wordOrder` it matched before the first it did not.
  const keptOf = (found: WordMatches, wordOrder: number[]): number[] => {
    const bits = wordOrder.map((i) => 1 << (found.canonical[i] as number));
    return Array.from(found.masks, (mask) => {
      if (all) return used.length;
      let k = 0;
      while (k < bits.length && (mask & (bits[k] as number)) !== 0) k++;
      return k;
    });
  };
  const inQueryOrder = used.map((_, i) => i);
  if (!all && strategy === "last" && need !== undefined && wordsFirst) {
    // Fast path, Meilisearch's tiers from the top: the documents matching the first k words, k
    // from all of them down, until they fill the page. Only they are scored and ordered; the
    // lower tiers are only counted (the documents matching the first word, from its postings).
    for (let k = used.length; k >= 2; k--) {
      const found = await matchWordsSliced(index.search, used, k, keep, options, tiers, pause);
      if (found.shortIds.length < need) continue;
      const ranked = await rankRows(
        index,
        documents,
        found,
        used.length,
        keptOf(found, inQueryOrder),
        pause,
        need,
        order,
      );
      const first = countMatching(
        postingsOf(index.search),
        (found.expansions[0] as WordTerms).weights.keys(),
        keep,
      );
      ranked.total = first.length;
      ranked.matches = () => first;
      return ranked;
    }
  }
  if (!all && strategy === "last" && need !== undefined && order !== undefined && !wordsFirst && !scoresAll) {
    // Sort first: the matches (the documents matching the first word) are ordered by the sort
    // keys alone, and only those up to the page's last key (its ties included) need relevance.
    const first = countMatching(postingsOf(index.search), expandFirst(index.search, used, options), keep);
    const columns = await sortKeysOf(index, documents, order.criteria, pause);
    const compare = (a: number, b: number) => compareColumns(columns, a, b, order.criteria);
    const keyed = await sortSliced(Uint32Array.from(first), compare, pause);
    let end = Math.min(need, keyed.length);
    const last = keyed[end - 1];
    while (last !== undefined && end < keyed.length) {
      if (compare(keyed[end] as number, last) !== 0) break;
      end++;
    }
    const page = new Set<number>();
    for (let i = 0; i < end; i++) page.add(keyed[i] as number);
    const found = await matchWordsSliced(
      index.search,
      used,
      1,
      (shortId) => page.has(shortId),
      options,
      tiers,
      pause,
    );
    const ranked = await rankRows(
      index,
      documents,
      found,
      used.length,
      keptOf(found, inQueryOrder),
      pause,
      undefined,
      order,
    );
    ranked.total = first.length;
    ranked.matches = () => first;
    return ranked;
  }
  // `last` keeps only documents matching the first word: the others need not be scored.
  const found = await matchWordsSliced(
    index.search,
    used,
    all ? used.length : strategy === "last" ? 1 : 0,
    keep,
    options,
    tiers,
    pause,
  );
  // The order in which words are kept: query order, or the rarest first.
  let wordOrder = inQueryOrder;
  if (strategy === "frequency" && !all) {
    const frequency = used.map(() => 0);
    for (const mask of found.masks) {
      for (let i = 0; i < used.length; i++)
        if ((mask >> (found.canonical[i] as number)) & 1) frequency[i] = (frequency[i] as number) + 1;
    }
    // A word no document matches cannot narrow anything: it goes first, as the most frequent would.
    const weight = (i: number) => (frequency[i] === 0 ? Number.POSITIVE_INFINITY : (frequency[i] as number));
    wordOrder = [...wordOrder].sort((a, b) => weight(a) - weight(b) || a - b);
  }
  return rankRows(
    index,
    documents,
    found,
    used.length,
    keptOf(found, wordOrder),
    pause,
    wordsFirst ? need : undefined,
    order,
  );
}

/**
 * Orders the results with at least one word kept: without a sort, by words kept, score, primary-key
 * order; with one, by the tiers of `order`, then score and primary-key order. The ranking score is
 * (words kept + score / best score among the documents keeping as many words) / (query words + 1),
 * so 1 for the best document matching every word, decreasing in relevance order.
 */
async function rankRows(
  index: LoadedIndex,
  documents: DocumentSource,
  found: WordMatches,
  words: number,
  kept: number[],
  pause: () => Promise<void>,
  need?: number,
  order?: SortOrder,
): Promise<Ranked> {
  // With `need`, only the tiers (words kept) that hold the first `need` matches are ordered; the
  // matches of lower tiers are counted.
  const perTier = new Array<number>(words + 1).fill(0);
  for (const k of kept) perTier[k] = (perTier[k] as number) + 1;
  const total = found.shortIds.length - (perTier[0] as number);
  let lowest = 1;
  if (need !== undefined) {
    let sum = 0;
    for (lowest = words; lowest > 1; lowest--) {
      sum += perTier[lowest] as number;
      if (sum >= need) break;
    }
  }
  if (order === undefined && need !== undefined)
    return pageRows(index, found, words, kept, lowest, need, total);
  // The matches ordered, by their row in `found` (no object per match: a short prefix at 100,000
  // products is tens of thousands of them).
  const { shortIds, scores: rowScores } = found;
  const rowTypos = found.typos;
  const rowAttributes = found.attributes;
  const rows: number[] = [];
  for (let r = 0; r < shortIds.length; r++) if ((kept[r] as number) >= lowest) rows.push(r);
  let compare: (a: number, b: number) => number;
  if (order === undefined) {
    compare = (a, b) =>
      (kept[b] as number) - (kept[a] as number) ||
      (rowScores[b] as number) - (rowScores[a] as number) ||
      (shortIds[a] as number) - (shortIds[b] as number);
  } else {
    const { criteria, tiers } = order;
    const columns = await sortKeysOf(index, documents, criteria, pause);
    compare = (a, b) => {
      for (const tier of tiers) {
        let c = 0;
        if (tier === "words") c = (kept[b] as number) - (kept[a] as number);
        else if (tier === "typo") c = (rowTypos?.[a] ?? 0) - (rowTypos?.[b] ?? 0);
        else if (tier === "attribute") c = (rowAttributes?.[a] ?? 0) - (rowAttributes?.[b] ?? 0);
        else c = compareColumns(columns, shortIds[a] as number, shortIds[b] as number, criteria);
        if (c !== 0) return c;
      }
      return (
        (rowScores[b] as number) - (rowScores[a] as number) ||
        (shortIds[a] as number) - (shortIds[b] as number)
      );
    };
  }
  // A total order (positions differ), so the first `need` are the same whatever the method: with
  // `need`, only they are kept in order; without, every row is sorted, in slices.
  const ordered =
    need === undefined
      ? Array.from(await sortSliced(Uint32Array.from(rows), compare, pause))
      : firstRows(rows, need, compare);
  const ids = index.search.data.ids;
  let scores: Map<string, number> | undefined;
  const score = (id: string): number => {
    if (scores === undefined) {
      scores = new Map();
      const best = new Map<number, number>();
      for (const r of rows) {
        const k = kept[r] as number;
        if ((rowScores[r] as number) > (best.get(k) ?? Number.NEGATIVE_INFINITY))
          best.set(k, rowScores[r] as number);
      }
      for (const r of rows) {
        const k = kept[r] as number;
        const top = best.get(k) as number;
        const value = (k + (top > 0 ? (rowScores[r] as number) / top : 1)) / (words + 1);
        scores.set(ids[shortIds[r] as number] as string, value);
      }
    }
    return scores.get(id) ?? 0;
  };
  return {
    ids: ordered.map((r) => ids[shortIds[r] as number] as string),
    total,
    matches: () => matchedDocs(found, kept),
    score,
    terms: found.terms,
  };
}

/** Every match with at least one word kept (for facets): the rows ordered and the lower tiers only counted. */
function matchedDocs(found: WordMatches, kept: number[]): number[] {
  const docs: number[] = [];
  for (let r = 0; r < found.shortIds.length; r++) {
    if ((kept[r] as number) >= 1) docs.push(found.shortIds[r] as number);
  }
  return docs;
}

/** The first `need` rows by `compare`, in order, in one pass (binary insertion into a short list). */
function firstRows(
  rows: readonly number[],
  need: number,
  compare: (a: number, b: number) => number,
): number[] {
  const top: number[] = [];
  if (need <= 0) return top;
  for (const row of rows) {
    if (top.length === need && compare(row, top[need - 1] as number) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(top[mid] as number, row) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, row);
    if (top.length > need) top.pop();
  }
  return top;
}

/**
 * `rankRows` without a sort, when only the first `need` ids are used: the same order (words kept,
 * score, primary-key order: a total order, so the same ids whatever the method), but only those
 * `need` are kept, in one pass, instead of making and sorting a row per match (a short prefix at
 * 100,000 documents is tens of thousands of matches: that sort alone was 20 ms). Ranking scores
 * are relative to the best score of the same tier among all the matches ordered, as there.
 */
function pageRows(
  index: LoadedIndex,
  found: WordMatches,
  words: number,
  kept: number[],
  lowest: number,
  need: number,
  total: number,
): Ranked {
  const { shortIds, scores: rowScores } = found;
  // A document's number is its position in primary-key order.
  const positionOf = (r: number) => shortIds[r] as number;
  // Whether match r ranks before match s.
  const before = (r: number, s: number): boolean => {
    const kr = kept[r] as number;
    const ks = kept[s] as number;
    if (kr !== ks) return kr > ks;
    const sr = rowScores[r] as number;
    const ss = rowScores[s] as number;
    if (sr !== ss) return sr > ss;
    return positionOf(r) < positionOf(s);
  };
  const best = new Array<number>(words + 1).fill(Number.NEGATIVE_INFINITY);
  // The first `need` matches in ranking order, by row.
  const top: number[] = [];
  for (let r = 0; r < shortIds.length; r++) {
    const k = kept[r] as number;
    if (k < lowest) continue;
    if ((rowScores[r] as number) > (best[k] as number)) best[k] = rowScores[r] as number;
    if (need <= 0 || (top.length === need && !before(r, top[need - 1] as number))) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(top[mid] as number, r)) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, r);
    if (top.length > need) top.pop();
  }
  const scores = new Map<string, number>();
  const ids: string[] = [];
  for (const r of top) {
    const id = index.search.data.ids[shortIds[r] as number] as string;
    const k = kept[r] as number;
    const score = rowScores[r] as number;
    const tierBest = best[k] as number;
    ids.push(id);
    scores.set(id, (k + (tierBest > 0 ? score / tierBest : 1)) / (words + 1));
  }
  return {
    ids,
    total,
    matches: () => matchedDocs(found, kept),
    score: (id) => scores.get(id) ?? 0,
    terms: found.terms,
  };
}
