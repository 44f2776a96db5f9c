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
  /** Attributes a search may sort on; absent: none (`embedded/sortable.ts`). */
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

export interface SearchQuery {
  q: string;
  limit: number;
  offset: number;
  /** Meilisearch filter syntax; adapters support what docs/search.md lists. */
  filter?: string;
}

export interface RetrievalResult {
  hits: Record<string, unknown>[];
  estimatedTotalHits: number;
}

/**
 * The search backend. Adapters throw RetrievalError for failures the client should see as 502/504;
 * anything else is an internal error.
 */
export interface Retrieval {
  search(target: SearchTarget, query: SearchQuery): Promise<RetrievalResult>;
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
