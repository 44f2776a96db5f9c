// Ports owned by the search proxy. The Kv and Logger ports come from @relevance/settings.

/** Where a search goes: the underlying index (an alias already resolved) and its settings. */
export interface SearchTarget {
  systemAccountId: string;
  /** The underlying index (for an alias, the index it points at). */
  index: string;
  primaryKey: string;
  /** From the index's settings record; empty or `["*"]` means every string field. */
  searchableAttributes: string[];
  filterableAttributes: string[];
  // The settings below are optional so adapters and tests may leave them out: absent means the
  // Meilisearch default (docs/search.md, "Compatibility: index settings").
  /** Fields returned in hits; absent or `["*"]`: all. */
  displayedAttributes?: string[];
  /**
   * Attributes `sort` may name (`embedded/sortable.ts`). The search app always passes the index's
   * list, so a search sorts only on sortableAttributes, as Meilisearch; absent (adapters and tests
   * without settings): any attribute.
   */
  sortableAttributes?: string[];
  /** Word → words a search for it also finds (one-way; listed both ways, both ways). */
  synonyms?: Record<string, string[]>;
  /** Words ignored in queries (unless a query has only stop words). */
  stopWords?: string[];
  typoTolerance?: TypoTolerance;
  rankingRules?: string[];
}

/** Meilisearch's `typoTolerance` setting, as far as the settings copy carries it. */
export interface TypoTolerance {
  enabled: boolean;
  minWordSizeForTypos: { oneTypo: number; twoTypos: number };
  disableOnWords: string[];
  disableOnAttributes: string[];
}

/**
 * A filter as Meilisearch takes it: one expression, or an array whose elements are ANDed, an inner
 * array's elements ORed (`["a = 1", ["b = 2", "b = 3"]]`).
 */
export type SearchFilter = string | (string | string[])[];

export type MatchingStrategy = "last" | "all" | "frequency";

export interface SearchQuery {
  q: string;
  limit: number;
  offset: number;
  /** Meilisearch filter syntax; adapters support what docs/search.md lists. */
  filter?: SearchFilter;
  /**
   * Set when the client paged with `page`/`hitsPerPage` (exhaustive pagination): `offset` and
   * `limit` are derived from them, and `estimatedTotalHits` of the result is the exact total.
   */
  pagination?: { page: number; hitsPerPage: number };
  /** `attribute:asc` / `attribute:desc`, first one first. */
  sort?: string[];
  /** Attributes to count values of (`*`: every filterable attribute). */
  facets?: string[];
  attributesToRetrieve?: string[];
  attributesToHighlight?: string[];
  highlightPreTag?: string;
  highlightPostTag?: string;
  attributesToCrop?: string[];
  cropLength?: number;
  cropMarker?: string;
  showRankingScore?: boolean;
  matchingStrategy?: MatchingStrategy;
  /** At most one hit per value of this attribute; an adapter that cannot honour it refuses it (invalid_request). */
  distinct?: string;
  /** Hits ranked below this score (0..1) are left out; an adapter that cannot honour it refuses it. */
  rankingScoreThreshold?: number;
}

export interface FacetStats {
  min: number;
  max: number;
}

export interface RetrievalResult {
  /** With `_formatted` and `_rankingScore` when the query asked for them. */
  hits: Record<string, unknown>[];
  /** The total number of matches (exact with `pagination`, an estimate otherwise). */
  estimatedTotalHits: number;
  /** Present when the query asked for facets: value → number of matching documents, per attribute. */
  facetDistribution?: Record<string, Record<string, number>>;
  /** Min and max of the numeric values, per requested facet that has any. */
  facetStats?: Record<string, FacetStats>;
}

/**
 * A facet search (Meilisearch's `POST /indexes/{index}/facet-search`): the values of `facetName`
 * that match `facetQuery` (prefix, typo tolerant; absent: every value), counted over the documents
 * that `q`, `filter` and `matchingStrategy` select.
 */
export interface FacetSearchQuery {
  facetName: string;
  facetQuery?: string;
  q: string;
  filter?: SearchFilter;
  matchingStrategy?: MatchingStrategy;
  /** Exact counts asked for (Meilisearch may otherwise estimate); the embedded engine's always are. */
  exhaustiveFacetCount?: boolean;
}

/** One facet value found and the number of selected documents holding it. */
export interface FacetHit {
  value: string;
  count: number;
}

export interface FacetSearchResult {
  /** At most MAX_VALUES_PER_FACET, in Meilisearch's default order (alphabetical). */
  facetHits: FacetHit[];
}

/**
 * The search backend. Adapters throw RetrievalError for failures the client should see as 502/504;
 * anything else is an internal error.
 */
export interface Retrieval {
  search(target: SearchTarget, query: SearchQuery): Promise<RetrievalResult>;
  facetSearch(target: SearchTarget, query: FacetSearchQuery): Promise<FacetSearchResult>;
}

export type RetrievalFailure =
  /** The backend answered with an error or could not be reached: 502. */
  | "unavailable"
  /** The backend did not answer in time: 504. */
  | "timeout"
  /** The request is not one the backend can run (e.g. a filter on an attribute that is not filterable): 422. */
  | "invalid_request";

export class RetrievalError extends Error {
  readonly failure: RetrievalFailure;
  /** For invalid_request: the request field at fault. */
  readonly field: string | undefined;
  constructor(failure: RetrievalFailure, message: string, field?: string) {
    super(message);
    this.failure = failure;
    this.field = field;
  }
}
