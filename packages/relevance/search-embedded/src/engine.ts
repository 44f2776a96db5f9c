// The embedded retrieval backend: one index per (account, index) on typed-array postings and
// attribute columns (loaded-index.ts), built from the DocumentStore, kept fresh by the store's
// revision, persisted as snapshots and bounded by an LRU. The documents stay in the store: a
// search reads its page's hits from it by id. The rules are documented in docs/search.md,
// "Embedded engine".

import { tokenize } from "@relevance/core";
import {
  DEFAULT_RANKING_RULES,
  type FacetSearchQuery,
  type FacetSearchResult,
  filterText,
  type Retrieval,
  RetrievalError,
  type RetrievalResult,
  type SearchQuery,
  type SearchTarget,
} from "@relevance/search";
import type { Document, Logger } from "@relevance/settings";
import type { AttributeColumn } from "./columns.ts";
import { countFacetValues, matchFacetValues } from "./facet-search.ts";
import { columnFacets, facetAttributes } from "./facets.ts";
import { checkedFilter, compileExpression, type FilterExpression, filterAttributes } from "./filter.ts";
import { formatted, retrieve, wantsFormatted } from "./highlight.ts";
import {
  attributeColumn,
  buildIndex,
  type DocumentSource,
  type LoadedIndex,
  loadedIndex,
} from "./loaded-index.ts";
import type { SearchWordsOptions } from "./matching.ts";
import {
  type NumberPredicate,
  placeholder,
  type Ranked,
  ranking,
  type SortOrder,
  sortOrder,
} from "./ranking.ts";
import {
  attributeBoost,
  displayedFields,
  indexFields,
  type QuerySettings,
  querySettings,
  unsupportedSetting,
  withoutStopWords,
} from "./settings.ts";
import { Slicer } from "./slices.ts";
import { loadSnapshot, snapshotHeader, snapshotParts } from "./snapshot-parts.ts";
import type { IndexSnapshotStore } from "./snapshots.ts";
import { sortCriteria } from "./sort.ts";

export {
  expandWord,
  fuzziness,
  matchWords,
  type SearchWordsOptions,
  searchWords,
  UNBOUNDED_SEARCH_OPTIONS,
} from "./matching.ts";

export interface EmbeddedRetrievalOptions {
  /** The documents: read a page at a time to build an index, by id for a search's hits. */
  documents: DocumentSource;
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
  /** Indexes built from the documents. */
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
const SNAPSHOT_FORMAT = 6;

/** Refuses (invalid_request, naming the setting) an index setting this engine cannot honour. */
function checkSettings(target: SearchTarget): void {
  const unsupported = unsupportedSetting(target);
  if (unsupported !== null) {
    throw new RetrievalError(
      "invalid_request",
      `the index setting ${unsupported.field} cannot be honoured: ${unsupported.message}`,
      unsupported.field,
    );
  }
}

function configOf(target: SearchTarget): string {
  return JSON.stringify([SNAPSHOT_FORMAT, target.primaryKey, indexFields(target)]);
}

/** Documents read by id at a time for a page's hits. */
const MAX_PAGE_READ = 1000;

export class EmbeddedRetrieval implements Retrieval {
  private readonly documents: DocumentSource;
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
    checkSettings(target);
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
    const filter = checkedFilter(
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
    // A sort is a ranking rule: the rules before it in the index's rankingRules decide first.
    const order =
      criteria === undefined ? undefined : sortOrder(target.rankingRules ?? DEFAULT_RANKING_RULES, criteria);
    const { index, ranked, pause } = await this.selected(target, settings, filter, query, {
      need: query.offset + query.limit,
      order,
      scoresAll: query.showRankingScore === true,
    });
    const page = ranked.ids.slice(query.offset, query.offset + query.limit);
    const docs = await this.hits(index, page);
    const format = wantsFormatted(query);
    const hits: Document[] = [];
    for (const id of page) {
      // A document deleted since the index was built is left out (the next search rebuilds).
      const doc = docs.get(id);
      if (doc === undefined) continue;
      // displayedAttributes first (the index's setting), then the request's attributesToRetrieve.
      const hit: Document = retrieve(displayedFields(doc, settings.displayed), query.attributesToRetrieve);
      if (format) hit._formatted = formatted(hit, query, ranked.terms);
      if (query.showRankingScore === true) hit._rankingScore = ranked.score(id);
      hits.push(hit);
    }
    const result: RetrievalResult = { hits, estimatedTotalHits: ranked.total };
    if (facets !== undefined) {
      const columns = await Promise.all(
        facets.map((attribute) => attributeColumn(index, this.documents, attribute, pause)),
      );
      const counted = await columnFacets(columns, ranked.matches(), pause);
      result.facetDistribution = counted.facetDistribution;
      result.facetStats = counted.facetStats;
    }
    return result;
  }

  /** The documents of a page's hits, read from the store by id. */
  private async hits(index: LoadedIndex, ids: readonly string[]): Promise<Map<string, Document>> {
    const docs = new Map<string, Document>();
    for (let i = 0; i < ids.length; i += MAX_PAGE_READ) {
      const read = await this.documents.getMany(index.account, index.name, ids.slice(i, i + MAX_PAGE_READ));
      for (const [id, doc] of read) docs.set(id, doc);
    }
    return docs;
  }

  /** The filter over document numbers, reading the attribute columns it names (made first if need be). */
  private async predicate(
    index: LoadedIndex,
    filter: FilterExpression | null,
    pause: () => Promise<void>,
  ): Promise<NumberPredicate | null> {
    if (filter === null) return null;
    const columns = new Map<string, AttributeColumn>();
    for (const attribute of filterAttributes(filter)) {
      columns.set(attribute, await attributeColumn(index, this.documents, attribute, pause));
    }
    return compileExpression<number>(filter, (attribute, test) => {
      const column = columns.get(attribute) as AttributeColumn;
      // Each distinct value tested once, when a document first holds it: 0 untested, 1 passes, 2 not.
      const table = new Uint8Array(column.dictionary.kinds.length);
      const { shown } = column.dictionary;
      const { offsets, values } = column;
      return (d) => {
        for (let i = offsets[d] as number; i < (offsets[d + 1] as number); i++) {
          const v = values[i] as number;
          let t = table[v] as number;
          if (t === 0) {
            t = test(shown[v]) ? 1 : 2;
            table[v] = t;
          }
          if (t === 1) return true;
        }
        return false;
      };
    });
  }

  /**
   * The values of `query.facetName` matching `facetQuery`, counted over the documents `q`, `filter`
   * and `matchingStrategy` select (facet-search.ts). Matching, counting and the placeholder's walk
   * over every document are sliced like a search's scoring.
   */
  async facetSearch(target: SearchTarget, query: FacetSearchQuery): Promise<FacetSearchResult> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    checkSettings(target);
    const filter = checkedFilter(
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
    const { index, ranked, pause } = await this.selected(target, settings, filter, query, {
      need: 0,
      order: undefined,
      scoresAll: false,
    });
    const column = await attributeColumn(index, this.documents, query.facetName, pause);
    const counts = await countFacetValues(column, ranked.matches(), pause);
    return { facetHits: await matchFacetValues(counts, query.facetQuery, settings.typos, pause) };
  }

  /**
   * The documents `query.q`, the filter and `query.matchingStrategy` select in `target`'s index,
   * ranked (the first `need` in order; a placeholder search lists them in index or `order` order):
   * what a search pages and a facet search counts. Scoring a short, common prefix at 100,000
   * documents is milliseconds: done in slices, with the `pause` the caller goes on with.
   */
  private async selected(
    target: SearchTarget,
    settings: QuerySettings,
    filter: FilterExpression | null,
    query: { q: string; matchingStrategy?: SearchQuery["matchingStrategy"] },
    { need, order, scoresAll }: { need: number; order: SortOrder | undefined; scoresAll: boolean },
  ): Promise<{ index: LoadedIndex; ranked: Ranked; pause: () => Promise<void> }> {
    const index = await this.index(target);
    const slicer = new Slicer(this.sliceClock);
    const pause = () => slicer.pause();
    const predicate = await this.predicate(index, filter, pause);
    const words = withoutStopWords(tokenize(query.q), settings.stopWords);
    const options: SearchWordsOptions = {
      typos: settings.typos,
      synonyms: settings.synonyms,
      boost: attributeBoost(indexFields(target)),
    };
    const ranked =
      words.length === 0
        ? await placeholder(index, this.documents, predicate, order, need, pause)
        : await ranking({
            pause,
            index,
            documents: this.documents,
            words,
            predicate,
            strategy: query.matchingStrategy,
            need,
            options,
            order,
            scoresAll,
          });
    return { index, ranked, pause };
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
    const { systemAccountId: account, index } = target;
    const slicer = new Slicer(this.sliceClock);
    const pause = () => slicer.pause();
    const parts = revision > 0 ? await this.readSnapshot(account, index, config, revision) : null;
    if (parts !== null) {
      try {
        // Decoded a part at a time: the event loop is given back between them. No document is read.
        const { index: search, columns } = await loadSnapshot(parts, pause);
        this.counters.snapshotLoads++;
        return loadedIndex({ config, revision, account, name: index, search, built: columns });
      } catch (error) {
        this.logger?.warn("embedded search: unreadable index snapshot, rebuilding", {
          account,
          index,
          error: String(error),
        });
      }
    }
    // Built a few milliseconds at a time (a 100,000-product index takes a second or two): searches
    // of other indexes, and every other request, are answered meanwhile; searches of this one wait.
    const loaded = await buildIndex(this.documents, target, config, revision, pause);
    this.counters.builds++;
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
          const parts: (string | Uint8Array)[] = [];
          const slicer = new Slicer(this.sliceClock);
          const header = { format: SNAPSHOT_FORMAT, config: loaded.config, fields: loaded.fields };
          for (const part of snapshotParts({ index: loaded.search, columns: loaded.built }, header)) {
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
  ): Promise<readonly (string | Uint8Array)[] | null> {
    if (this.store === undefined) return null;
    try {
      const stored = await this.store.get(account, index);
      if (stored === null || stored.revision !== revision) return null;
      const header = snapshotHeader(stored.parts[0], SNAPSHOT_FORMAT);
      return header !== null && header.config === config ? stored.parts : null;
    } catch (error) {
      this.logger?.warn("embedded search: could not read an index snapshot", {
        account,
        index,
        error: String(error),
      });
      return null;
    }
  }
}
