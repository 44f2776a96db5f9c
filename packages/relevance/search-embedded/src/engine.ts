// The embedded retrieval backend: one MiniSearch index per (account, index), built from the
// DocumentStore, kept fresh by the store's revision, persisted as snapshots and bounded by an LRU.
// The rules are documented in docs/search.md, "Embedded engine".

import { tokenize } from "@relevance/core";
import {
  DEFAULT_RANKING_RULES,
  type FacetSearchQuery,
  type FacetSearchResult,
  filterText,
  MAX_EXPANDED_WORD_CHARS,
  MAX_EXPANSIONS_PER_WORD,
  MAX_PREFIX_SCAN,
  MAX_QUERY_WORDS,
  type MatchingStrategy,
  type Retrieval,
  RetrievalError,
  type RetrievalResult,
  type SearchQuery,
  type SearchTarget,
} from "@relevance/search";
import type { Document, DocumentStore, Logger } from "@relevance/settings";
import type { SearchOptions } from "minisearch";
import { countFacetValues, matchFacetValues } from "./facet-search.ts";
import { computeFacets, facetAttributes } from "./facets.ts";
import { fieldValue, searchableText, stringFields } from "./fields.ts";
import { compileFilter, type DocumentPredicate } from "./filter.ts";
import { formatted, retrieve, wantsFormatted } from "./highlight.ts";
import {
  countMatching,
  type PostingsIndex,
  postingsIndex,
  type Scored,
  type ScoreOptions,
  scoreWords,
  scoreWordsSliced,
  type WordTerms,
} from "./postings.ts";
import {
  attributeBoost,
  displayedFields,
  indexFields,
  querySettings,
  typoBudget,
  unsupportedSetting,
  withoutStopWords,
} from "./settings.ts";
import { Slicer, StringKeyMap } from "./slices.ts";
import { loadSnapshot, snapshotHeader, snapshotParts } from "./snapshot-parts.ts";
import type { IndexSnapshotStore } from "./snapshots.ts";
import {
  compareColumns,
  type SortCriterion,
  type SortKey,
  sortColumn,
  sortCriteria,
  sortSliced,
} from "./sort.ts";
import { type TypedIndex, TypedIndexBuilder, type TypedIndexOptions } from "./typed-index.ts";

export interface EmbeddedRetrievalOptions {
  documents: DocumentStore;
  /** Where serialized indexes are kept across restarts; none means every start re-indexes. */
  store?: IndexSnapshotStore;
  /** At most this many indexes in memory; the least recently used goes first. Default 32. */
  maxIndexes?: number;
  /**
   * How long after a build its snapshot is written (default 1000 ms), off the search that built it;
   * a newer build of the same index within that time replaces it. `flush()` writes at once.
   */
  snapshotDelayMs?: number;
  /** Where a failed snapshot read or write is reported (it never fails a search). */
  logger?: Logger;
  /**
   * The clock that measures slices of the event loop (slices.ts), in milliseconds: builds,
   * snapshots and the scoring of a search give the loop back when a slice is used up. Default
   * `performance.now`; tests inject one.
   */
  sliceClock?: () => number;
}

/** Counters for operators and tests. */
export interface EmbeddedRetrievalStats {
  /** Indexes built from the documents (MiniSearch `addAll`). */
  builds: number;
  /** Indexes loaded from a snapshot instead. */
  snapshotLoads: number;
  /** Snapshots written. */
  snapshotWrites: number;
  /** Indexes dropped from memory by the LRU bound. */
  evictions: number;
  /** Indexes in memory now. */
  inMemory: number;
}

/** Bumped whenever the way an index is built changes, so old snapshots are rebuilt, not misread. */
const SNAPSHOT_FORMAT = 4;

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
  return found.shortIds
    .map((shortId, r) => ({ id: ids[shortId] as string, score: found.scores[r] as number }))
    .sort((a, b) => b.score - a.score);
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
function expandFirst(
  index: LoadedIndex,
  words: readonly string[],
  options: SearchWordsOptions,
): Iterable<string> {
  return (expandQueryWords(index.search.terms, words, options)[0] as WordTerms).weights.keys();
}

/** Each index's postings view (with its scratch marks), made once. */
const postingsViews = new WeakMap<TypedIndex, PostingsIndex>();

function postingsOf(search: TypedIndex): PostingsIndex {
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
async function matchWordsSliced(
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

/** The same tokens as the relevance core (NFKC, lower case, split on non letters/digits); terms need no further processing. */
function indexOptions(fields: string[]): TypedIndexOptions {
  return {
    fields,
    text: (doc, name) => searchableText(fieldValue(doc, name)),
    tokenize: (text) => tokenize(text),
  };
}

interface DocEntry {
  id: string;
  doc: Document;
  position: number;
}

/**
 * The entries of `docs` by document number in `search`, in slices (`pause` between entries). Throws
 * when the index holds a document the documents do not (a snapshot that does not match them).
 */
async function entriesOf(
  search: TypedIndex,
  docs: Map<string, DocEntry>,
  pause: () => Promise<void>,
): Promise<DocEntry[]> {
  const entries: DocEntry[] = [];
  for (const id of search.data.ids) {
    const entry = docs.get(id);
    if (entry === undefined) throw new Error("the snapshot holds a document the index does not");
    entries.push(entry);
    await pause();
  }
  if (entries.length !== docs.size) throw new Error("the snapshot does not hold every document");
  return entries;
}

interface LoadedIndex {
  /** What the index was built for (primary key, searchable attributes): another value means rebuild. */
  config: string;
  /** The document revision read before the documents were: never newer than what the index holds. */
  revision: number;
  search: TypedIndex;
  /** The documents by id, in primary-key order; `position` breaks score ties. */
  docs: Map<string, DocEntry>;
  /** The same entries by document number in the index (its position: documents are indexed in order). */
  entries: DocEntry[];
  /** The indexed fields (the searchable attributes, or the string fields found). */
  fields: string[];
  /** Sort key columns by criterion (sort.ts `sortColumn`), made when a search first needs them. */
  columns: Map<string, Promise<SortKey[]>>;
  /** Every document in a sort's order, by criteria, made when a placeholder search first needs it. */
  orders: Map<string, Promise<Uint32Array>>;
}

interface Snapshot {
  fields: string[];
  parts: readonly string[];
}

function configOf(target: SearchTarget): string {
  return JSON.stringify([SNAPSHOT_FORMAT, target.primaryKey, indexFields(target)]);
}

export class EmbeddedRetrieval implements Retrieval {
  private readonly documents: DocumentStore;
  private readonly store: IndexSnapshotStore | undefined;
  private readonly maxIndexes: number;
  private readonly snapshotDelayMs: number;
  private readonly logger: Logger | undefined;
  private readonly sliceClock: (() => number) | undefined;
  /** Loaded indexes by (account, index); Map order is recency, least recently used first. */
  private readonly cache = new Map<string, LoadedIndex>();
  /** Loads under way by (account, index, config, revision), so concurrent searches share one. */
  private readonly loading = new Map<string, Promise<LoadedIndex>>();
  /** Snapshot writes waiting for their delay, by (account, index). */
  private readonly scheduled = new Map<
    string,
    { revision: number; timer: ReturnType<typeof setTimeout>; write: () => Promise<void> }
  >();
  private readonly writing = new Set<Promise<void>>();
  private readonly counters = { builds: 0, snapshotLoads: 0, snapshotWrites: 0, evictions: 0 };

  constructor(options: EmbeddedRetrievalOptions) {
    const maxIndexes = options.maxIndexes ?? 32;
    if (!Number.isInteger(maxIndexes) || maxIndexes < 1)
      throw new RangeError("maxIndexes must be an integer >= 1");
    this.documents = options.documents;
    this.store = options.store;
    this.maxIndexes = maxIndexes;
    this.snapshotDelayMs = options.snapshotDelayMs ?? 1000;
    this.logger = options.logger;
    this.sliceClock = options.sliceClock;
  }

  get stats(): EmbeddedRetrievalStats {
    return { ...this.counters, inMemory: this.cache.size };
  }

  /** Writes every scheduled snapshot now and waits for all writes (tests, orderly shutdown). */
  async flush(): Promise<void> {
    for (const { timer, write } of [...this.scheduled.values()]) {
      clearTimeout(timer);
      void write();
    }
    await Promise.all([...this.writing]);
  }

  async search(target: SearchTarget, query: SearchQuery): Promise<RetrievalResult> {
    // Each search in its own turn of the event loop: the queries of a multi-search (and searches
    // arriving together) are answered one turn each, with other requests between them, rather
    // than all in one.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Validate the settings and everything the client chose before any (possibly expensive) index work.
    const unsupported = unsupportedSetting(target);
    if (unsupported !== null) {
      throw new RetrievalError(
        "invalid_request",
        `the index setting ${unsupported.field} cannot be honoured: ${unsupported.message}`,
        unsupported.field,
      );
    }
    // Asked of Meilisearch by the client; this engine cannot honour them, so it says so by name.
    if (query.distinct !== undefined) {
      throw new RetrievalError(
        "invalid_request",
        "the embedded engine cannot honour distinct (one hit per attribute value)",
        "distinct",
      );
    }
    if (query.rankingScoreThreshold !== undefined) {
      throw new RetrievalError(
        "invalid_request",
        "the embedded engine cannot honour rankingScoreThreshold (its ranking scores are relative to the best match)",
        "rankingScoreThreshold",
      );
    }
    const predicate = compileFilter(
      query.filter === undefined ? undefined : filterText(query.filter),
      target.filterableAttributes,
    );
    const facets =
      query.facets === undefined ? undefined : facetAttributes(query.facets, target.filterableAttributes);
    const criteria =
      query.sort === undefined || query.sort.length === 0
        ? undefined
        : sortCriteria(query.sort, target.sortableAttributes);
    const settings = querySettings(target);
    const options: SearchWordsOptions = {
      typos: settings.typos,
      synonyms: settings.synonyms,
      boost: attributeBoost(indexFields(target)),
    };
    const index = await this.index(target);
    // Scoring a short, common prefix at 100,000 documents is tens of milliseconds: in slices.
    const slicer = new Slicer(this.sliceClock);
    const words = withoutStopWords(tokenize(query.q), settings.stopWords);
    const docOf = (id: string) => index.docs.get(id)?.doc;
    // A sort is a ranking rule: the rules before it in the index's rankingRules decide first.
    const order =
      criteria === undefined ? undefined : sortOrder(target.rankingRules ?? DEFAULT_RANKING_RULES, criteria);
    const ranked =
      words.length === 0
        ? await placeholder(index, predicate, order, query.offset + query.limit, () => slicer.pause())
        : await ranking({
            pause: () => slicer.pause(),
            index,
            words,
            predicate,
            strategy: query.matchingStrategy,
            need: query.offset + query.limit,
            options,
            order,
            scoresAll: query.showRankingScore === true,
          });
    const ids = ranked.ids;
    const format = wantsFormatted(query);
    const hits: Document[] = [];
    for (const id of ids.slice(query.offset, query.offset + query.limit)) {
      const doc = docOf(id);
      if (doc === undefined) continue;
      // displayedAttributes first (the index's setting), then the request's attributesToRetrieve.
      const hit: Document = retrieve(displayedFields(doc, settings.displayed), query.attributesToRetrieve);
      if (format) hit._formatted = formatted(hit, query, ranked.terms);
      if (query.showRankingScore === true) hit._rankingScore = ranked.score(id);
      hits.push(hit);
    }
    const result: RetrievalResult = { hits, estimatedTotalHits: ranked.total };
    if (facets !== undefined) {
      const counted = await computeFacets(
        ranked.matches?.() ??
          (function* () {
            for (const id of ranked.ids) {
              const doc = docOf(id);
              if (doc !== undefined) yield doc;
            }
          })(),
        facets,
        () => slicer.pause(),
      );
      result.facetDistribution = counted.facetDistribution;
      result.facetStats = counted.facetStats;
    }
    return result;
  }

  /**
   * The values of `query.facetName` matching `facetQuery`, counted over the documents `q`, `filter`
   * and `matchingStrategy` select (facet-search.ts). Matching, counting and the placeholder's walk
   * over every document are sliced like a search's scoring.
   */
  async facetSearch(target: SearchTarget, query: FacetSearchQuery): Promise<FacetSearchResult> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const unsupported = unsupportedSetting(target);
    if (unsupported !== null) {
      throw new RetrievalError(
        "invalid_request",
        `the index setting ${unsupported.field} cannot be honoured: ${unsupported.message}`,
        unsupported.field,
      );
    }
    const predicate = compileFilter(
      query.filter === undefined ? undefined : filterText(query.filter),
      target.filterableAttributes,
    );
    const filterable = target.filterableAttributes;
    if (!filterable.some((f) => f === query.facetName || query.facetName.startsWith(`${f}.`))) {
      const available =
        filterable.length === 0
          ? "This index has no filterable attributes."
          : `Filterable attributes: ${filterable.map((f) => `\`${f}\``).join(", ")}.`;
      throw new RetrievalError(
        "invalid_request",
        `Attribute \`${query.facetName}\` is not filterable, so its values cannot be searched. ${available}`,
        "facetName",
      );
    }
    const settings = querySettings(target);
    const index = await this.index(target);
    const slicer = new Slicer(this.sliceClock);
    const pause = () => slicer.pause();
    const words = withoutStopWords(tokenize(query.q), settings.stopWords);
    let docs: Iterable<Document>;
    if (words.length === 0) {
      // Every document the filter passes; a pause per 256 looked at, not per 256 kept, so a
      // filter that keeps few of 100,000 documents does not hold the loop for all of them.
      const kept: Document[] = [];
      let n = 0;
      for (const { doc } of index.docs.values()) {
        if (++n % 256 === 0) await pause();
        if (predicate === null || predicate(doc)) kept.push(doc);
      }
      docs = kept;
    } else {
      const ranked = await ranking({
        pause,
        index,
        words,
        predicate,
        strategy: query.matchingStrategy,
        need: 0,
        options: {
          typos: settings.typos,
          synonyms: settings.synonyms,
          boost: attributeBoost(indexFields(target)),
        },
      });
      docs =
        ranked.matches?.() ??
        ranked.ids.flatMap((id) => {
          const doc = index.docs.get(id)?.doc;
          return doc === undefined ? [] : [doc];
        });
    }
    const counts = await countFacetValues(docs, query.facetName, pause);
    return { facetHits: await matchFacetValues(counts, query.facetQuery, settings.typos, pause) };
  }

  /** The index for `target`, current with the documents' revision. */
  private async index(target: SearchTarget): Promise<LoadedIndex> {
    const { systemAccountId: account, index } = target;
    const key = JSON.stringify([account, index]);
    const config = configOf(target);
    const revision = await this.documents.revision(account, index);
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.config === config && cached.revision === revision) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const loadKey = JSON.stringify([account, index, config, revision]);
    let load = this.loading.get(loadKey);
    if (load === undefined) {
      load = this.load(key, target, config, revision).finally(() => this.loading.delete(loadKey));
      this.loading.set(loadKey, load);
    }
    const loaded = await load;
    const current = this.cache.get(key);
    // A slower load of an older revision must not replace a newer index.
    if (current === undefined || current.config !== loaded.config || current.revision <= loaded.revision) {
      this.cache.delete(key);
      this.cache.set(key, loaded);
      for (const oldest of this.cache.keys()) {
        if (this.cache.size <= this.maxIndexes) break;
        this.cache.delete(oldest);
        this.counters.evictions++;
      }
    }
    return loaded;
  }

  private async load(
    key: string,
    target: SearchTarget,
    config: string,
    revision: number,
  ): Promise<LoadedIndex> {
    const { systemAccountId: account, index, primaryKey } = target;
    const snapshot = revision > 0 ? await this.readSnapshot(account, index, config, revision) : null;
    const docs = await this.readDocuments(account, index, primaryKey);
    if (snapshot !== null) {
      try {
        // Decoded a part at a time: the event loop is given back between them.
        const slicer = new Slicer(this.sliceClock);
        const search = await loadSnapshot(snapshot.parts, () => slicer.pause());
        const entries = await entriesOf(search, docs, () => slicer.pause());
        this.counters.snapshotLoads++;
        return {
          config,
          revision,
          search,
          docs,
          entries,
          fields: snapshot.fields,
          columns: new Map(),
          orders: new Map(),
        };
      } catch (error) {
        this.logger?.warn("embedded search: unreadable index snapshot, rebuilding", {
          account,
          index,
          error: String(error),
        });
      }
    }
    // Built a few milliseconds at a time (a 100,000-product index takes seconds): searches of other
    // indexes, and every other request, are answered meanwhile; searches of this one wait for it.
    const slicer = new Slicer(this.sliceClock);
    const fields = indexFields(target) ?? (await stringFields(docDocs(docs), () => slicer.pause()));
    const builder = new TypedIndexBuilder(indexOptions(fields));
    const entries: DocEntry[] = [];
    for (const entry of docs.values()) {
      builder.add(entry.id, entry.doc);
      entries.push(entry);
      await slicer.pause();
    }
    const search = await builder.finish(() => slicer.pause());
    this.counters.builds++;
    const loaded: LoadedIndex = {
      config,
      revision,
      search,
      docs,
      entries,
      fields,
      columns: new Map(),
      orders: new Map(),
    };
    this.scheduleSnapshot(key, account, index, loaded);
    return loaded;
  }

  /**
   * Serializing and storing takes about as long as building (docs/search.md), so it happens after
   * the search that built the index, and only for the latest build of the index within the delay,
   * in parts of about 60 KB, each made in its own slice of the event loop (a 100,000-product index
   * was 29 MB of JSON: in one piece it held every request for a second). The index is not
   * changed once built, so its parts are consistent however long the writing takes.
   */
  private scheduleSnapshot(key: string, account: string, index: string, loaded: LoadedIndex): void {
    const store = this.store;
    if (store === undefined || loaded.revision === 0) return;
    const pending = this.scheduled.get(key);
    if (pending !== undefined) {
      if (pending.revision > loaded.revision) return;
      clearTimeout(pending.timer);
    }
    const write = (): Promise<void> => {
      this.scheduled.delete(key);
      const done = Promise.resolve()
        .then(async () => {
          const parts: string[] = [];
          const slicer = new Slicer(this.sliceClock);
          const header = { format: SNAPSHOT_FORMAT, config: loaded.config, fields: loaded.fields };
          for (const part of snapshotParts(loaded.search, header)) {
            parts.push(part);
            await slicer.pause();
          }
          await store.put(account, index, { revision: loaded.revision, parts });
        })
        .then(
          () => {
            this.counters.snapshotWrites++;
          },
          (error: unknown) => {
            this.logger?.warn("embedded search: could not store an index snapshot", {
              account,
              index,
              error: String(error),
            });
          },
        )
        .finally(() => this.writing.delete(done));
      this.writing.add(done);
      return done;
    };
    const timer = setTimeout(write, this.snapshotDelayMs);
    // A pending snapshot must not keep the process alive: losing it only costs a rebuild.
    if (typeof timer === "object" && "unref" in timer) timer.unref();
    this.scheduled.set(key, { revision: loaded.revision, timer, write });
  }

  private async readSnapshot(
    account: string,
    index: string,
    config: string,
    revision: number,
  ): Promise<Snapshot | null> {
    if (this.store === undefined) return null;
    try {
      const stored = await this.store.get(account, index);
      if (stored === null || stored.revision !== revision) return null;
      const header = snapshotHeader(stored.parts[0], SNAPSHOT_FORMAT);
      return header !== null && header.config === config
        ? { fields: header.fields, parts: stored.parts }
        : null;
    } catch (error) {
      this.logger?.warn("embedded search: could not read an index snapshot", {
        account,
        index,
        error: String(error),
      });
      return null;
    }
  }

  /** Every document of the index by id, in primary-key order (a later page wins over a shifted earlier one). */
  private async readDocuments(
    account: string,
    index: string,
    primaryKey: string,
  ): Promise<Map<string, DocEntry>> {
    // Read a few at a time in primary-key order (by key, not offset), parsed in slices of the event
    // loop: a write between two slices makes a newer revision, which the next search builds again.
    // A Map that grows without rehashing all its entries at once (slices.ts).
    const docs: Map<string, DocEntry> = new StringKeyMap<DocEntry>();
    const slicer = new Slicer(this.sliceClock);
    for await (const json of this.documents.listJson(account, index, 0, Number.MAX_SAFE_INTEGER)) {
      const doc = JSON.parse(json) as Document;
      const id = String(doc[primaryKey]);
      const known = docs.get(id);
      docs.set(id, { id, doc, position: known?.position ?? docs.size });
      await slicer.pause();
    }
    return docs;
  }
}

function* docDocs(docs: Map<string, { doc: Document }>): Iterable<Document> {
  for (const entry of docs.values()) yield entry.doc;
}

/** The matches in ranking order, their ranking scores (0..1) and the terms highlighting marks. */
interface Ranked {
  /** In ranking order: every match, or (when `matches` is set) at least the first `need` of them. */
  ids: string[];
  /** The number of matches. */
  total: number;
  /** Every match, in no particular order (`ids` may hold only the first ones): what facets count. */
  matches?: () => Iterable<Document>;
  score(id: string): number;
  terms: ReadonlySet<string>;
}

/**
 * How a sorted search orders its matches: the index's ranking rules that the engine models
 * (`words`, `typo`, `attribute`) and `sort` (the request's criteria), in the index's order.
 * Proximity and exactness are not modelled; after the listed tiers come the score, then the
 * primary-key order.
 */
interface SortOrder {
  criteria: SortCriterion[];
  tiers: ("words" | "typo" | "attribute" | "sort")[];
}

function sortOrder(rules: readonly string[], criteria: SortCriterion[]): SortOrder {
  const tiers: SortOrder["tiers"] = [];
  for (const rule of rules) {
    if (rule === "words" || rule === "typo" || rule === "attribute" || rule === "sort") tiers.push(rule);
  }
  if (!tiers.includes("sort")) tiers.push("sort");
  return { criteria, tiers };
}

/** Sort key columns kept per index (criteria × direction), beyond which the oldest is dropped. */
const MAX_COLUMNS = 16;
/** Sorted orders of every document kept per index (placeholder searches), likewise. */
const MAX_ORDERS = 8;

/** Remembers `make()` under `key` in `cache` (at most `max`, the oldest dropped); a failure is forgotten. */
function remembered<T>(
  cache: Map<string, Promise<T>>,
  key: string,
  max: number,
  make: () => Promise<T>,
): Promise<T> {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    value.catch(() => cache.delete(key));
    cache.set(key, value);
    for (const oldest of cache.keys()) {
      if (cache.size <= max) break;
      cache.delete(oldest);
    }
  }
  return value;
}

/** Every document's sort key for each criterion, by document number (computed once per index). */
function columnsOf(
  index: LoadedIndex,
  criteria: readonly SortCriterion[],
  pause: () => Promise<void>,
): Promise<SortKey[][]> {
  return Promise.all(
    criteria.map((c) =>
      remembered(index.columns, JSON.stringify([c.attribute, c.descending]), MAX_COLUMNS, () =>
        sortColumn(index.entries, c, pause),
      ),
    ),
  );
}

/** Every document number in the order of `criteria`, ties in primary-key order (computed once per index). */
function sortedOrder(
  index: LoadedIndex,
  criteria: readonly SortCriterion[],
  pause: () => Promise<void>,
): Promise<Uint32Array> {
  return remembered(index.orders, JSON.stringify(criteria), MAX_ORDERS, async () => {
    const columns = await columnsOf(index, criteria, pause);
    const all = new Uint32Array(index.entries.length);
    for (let d = 0; d < all.length; d++) all[d] = d;
    // Document numbers are primary-key positions, and the sort is stable.
    return sortSliced(all, (a, b) => compareColumns(columns, a, b, criteria), pause);
  });
}

/**
 * An empty query: every document passing the filter, in primary-key order (Meilisearch's
 * placeholder search), or in the order of the sort. Only the first `need` are listed; the rest are
 * counted (and handed to facets).
 */
async function placeholder(
  index: LoadedIndex,
  predicate: DocumentPredicate | null,
  order: SortOrder | undefined,
  need: number,
  pause: () => Promise<void>,
): Promise<Ranked> {
  const entries = index.entries;
  const walk = order === undefined ? undefined : await sortedOrder(index, order.criteria, pause);
  const ids: string[] = [];
  let matches: DocEntry[] | undefined;
  let total = 0;
  if (predicate === null) {
    total = entries.length;
    for (let i = 0; i < Math.min(need, total); i++) {
      ids.push((entries[walk === undefined ? i : (walk[i] as number)] as DocEntry).id);
    }
  } else {
    matches = [];
    for (let i = 0; i < entries.length; i++) {
      if (i % 256 === 255) await pause();
      const entry = entries[walk === undefined ? i : (walk[i] as number)] as DocEntry;
      if (!predicate(entry.doc)) continue;
      matches.push(entry);
      if (ids.length < need) ids.push(entry.id);
    }
    total = matches.length;
  }
  const kept = matches;
  return {
    ids,
    total,
    matches: () => (kept ?? entries).map((entry) => entry.doc),
    score: () => 1,
    terms: new Set(),
  };
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
  words: string[];
  predicate: DocumentPredicate | null;
  /** Default `last`, as Meilisearch's. */
  strategy?: MatchingStrategy | undefined;
  /** Only the first `need` ids are used: lower tiers beyond them need not be ordered. */
  need?: number | undefined;
  options?: SearchWordsOptions;
  order?: SortOrder | undefined;
  /** Every match's ranking score may be asked (it is relative to the best of its tier). */
  scoresAll?: boolean;
}

async function ranking(request: RankingRequest): Promise<Ranked> {
  const { pause, index, words, predicate, need, order } = request;
  const strategy = request.strategy ?? "last";
  const options = request.options ?? {};
  const scoresAll = request.scoresAll ?? false;
  const entries = index.entries;
  const keep =
    predicate === null
      ? undefined
      : (shortId: number) => {
          const entry = entries[shortId];
          return entry !== undefined && predicate(entry.doc);
        };
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
    return found.masks.map((mask) => {
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
      ranked.matches = () => {
        const docs: Document[] = [];
        for (const shortId of first) {
          const entry = entries[shortId];
          if (entry !== undefined) docs.push(entry.doc);
        }
        return docs;
      };
      return ranked;
    }
  }
  if (!all && strategy === "last" && need !== undefined && order !== undefined && !wordsFirst && !scoresAll) {
    // Sort first: the matches (the documents matching the first word) are ordered by the sort
    // keys alone, and only those up to the page's last key (its ties included) need relevance.
    const first = countMatching(postingsOf(index.search), expandFirst(index, used, options), keep);
    const columns = await columnsOf(index, order.criteria, pause);
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
      found,
      used.length,
      keptOf(found, inQueryOrder),
      pause,
      undefined,
      order,
    );
    ranked.total = first.length;
    ranked.matches = () => first.map((shortId) => (entries[shortId] as DocEntry).doc);
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
    found,
    used.length,
    keptOf(found, wordOrder),
    pause,
    wordsFirst ? need : undefined,
    order,
  );
}

interface Row {
  id: string;
  kept: number;
  score: number;
  position: number;
  typos: number;
  attribute: number;
  /** The document number (its sort keys' place in the columns). */
  doc: number;
}

/**
 * Orders the results with at least one word kept: without a sort, by words kept, score, primary-key
 * order; with one, by the tiers of `order`, then score and primary-key order. The ranking score is
 * (words kept + score / best score among the documents keeping as many words) / (query words + 1),
 * so 1 for the best document matching every word, decreasing in relevance order.
 */
async function rankRows(
  index: LoadedIndex,
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
  const rows: Row[] = [];
  for (let r = 0; r < found.shortIds.length; r++) {
    const k = kept[r] as number;
    if (k < lowest) continue;
    const entry = index.entries[found.shortIds[r] as number];
    if (entry === undefined) continue;
    rows.push({
      id: entry.id,
      kept: k,
      score: found.scores[r] as number,
      position: entry.position,
      typos: found.typos?.[r] ?? 0,
      attribute: found.attributes?.[r] ?? 0,
      doc: found.shortIds[r] as number,
    });
  }
  let compare: (a: Row, b: Row) => number;
  if (order === undefined) {
    compare = (a, b) => b.kept - a.kept || b.score - a.score || a.position - b.position;
  } else {
    const { criteria, tiers } = order;
    const columns = await columnsOf(index, criteria, pause);
    compare = (a, b) => {
      for (const tier of tiers) {
        let c = 0;
        if (tier === "words") c = b.kept - a.kept;
        else if (tier === "typo") c = a.typos - b.typos;
        else if (tier === "attribute") c = a.attribute - b.attribute;
        else c = compareColumns(columns, a.doc, b.doc, criteria);
        if (c !== 0) return c;
      }
      return b.score - a.score || a.position - b.position;
    };
  }
  // A total order (positions differ), so the first `need` are the same whatever the method: with
  // `need`, only they are kept in order; without, every row is sorted, in slices.
  const ordered =
    need === undefined
      ? Array.from(
          await sortSliced(
            Uint32Array.from(rows.keys()),
            (a, b) => compare(rows[a] as Row, rows[b] as Row),
            pause,
          ),
          (i) => rows[i] as Row,
        )
      : firstRows(rows, need, compare);
  let scores: Map<string, number> | undefined;
  const score = (id: string): number => {
    if (scores === undefined) {
      scores = new Map();
      const best = new Map<number, number>();
      for (const row of rows)
        if (row.score > (best.get(row.kept) ?? Number.NEGATIVE_INFINITY)) best.set(row.kept, row.score);
      for (const row of rows) {
        const top = best.get(row.kept) as number;
        scores.set(row.id, (row.kept + (top > 0 ? row.score / top : 1)) / (words + 1));
      }
    }
    return scores.get(id) ?? 0;
  };
  const entries = index.entries;
  // Every match, for facets: the rows ordered above and the lower tiers only counted.
  const matches = () => {
    const docs: Document[] = [];
    for (let r = 0; r < found.shortIds.length; r++) {
      if ((kept[r] as number) < 1) continue;
      const entry = entries[found.shortIds[r] as number];
      if (entry !== undefined) docs.push(entry.doc);
    }
    return docs;
  };
  return { ids: ordered.map((row) => row.id), total, matches, score, terms: found.terms };
}

/** The first `need` rows by `compare`, in order, in one pass (binary insertion into a short list). */
function firstRows(rows: readonly Row[], need: number, compare: (a: Row, b: Row) => number): Row[] {
  const top: Row[] = [];
  if (need <= 0) return top;
  for (const row of rows) {
    if (top.length === need && compare(row, top[need - 1] as Row) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(top[mid] as Row, row) <= 0) lo = mid + 1;
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
  const entries = index.entries;
  const { shortIds, scores: rowScores } = found;
  const positionOf = (r: number) => (entries[shortIds[r] as number] as DocEntry).position;
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
    if (k < lowest || entries[shortIds[r] as number] === undefined) continue;
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
    const id = (entries[shortIds[r] as number] as DocEntry).id;
    const k = kept[r] as number;
    const score = rowScores[r] as number;
    const tierBest = best[k] as number;
    ids.push(id);
    scores.set(id, (k + (tierBest > 0 ? score / tierBest : 1)) / (words + 1));
  }
  const matches = () => {
    const docs: Document[] = [];
    for (let r = 0; r < shortIds.length; r++) {
      if ((kept[r] as number) < 1) continue;
      const entry = entries[shortIds[r] as number];
      if (entry !== undefined) docs.push(entry.doc);
    }
    return docs;
  };
  return { ids, total, matches, score: (id) => scores.get(id) ?? 0, terms: found.terms };
}
