/**
 * The bounds of recording and outcome events (docs/limits.md). Every one is checked before any
 * work: a record or an event beyond them is cut (recorded fields) or refused with a 422 naming the
 * field (event bodies).
 */

/** Characters of the query text kept in a served-search record (longer queries are cut). */
export const MAX_RECORDED_QUERY_CHARS = 512;
/** Primary keys of hits kept per served-search record, in order (the first ones). */
export const MAX_RECORDED_HIT_IDS = 100;
/** Characters of one recorded primary key (Meilisearch's document ids are at most 511 bytes). */
export const MAX_HIT_ID_CHARS = 511;
/** Days a served search or an outcome event is kept, by default (`OUTCOME_RETENTION_DAYS`). */
export const DEFAULT_RETENTION_DAYS = 90;
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 3650;
/** Searches of one query needed before its click-through rate counts (quality τ, training labels). */
export const DEFAULT_MIN_IMPRESSIONS = 5;
/** Largest `minImpressions` a quality report or a training export takes. */
export const MAX_MIN_IMPRESSIONS = 1_000_000;
