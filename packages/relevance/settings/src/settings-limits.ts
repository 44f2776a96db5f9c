/**
 * Bounds of the eight customer settings (Meilisearch's settings object), checked by
 * settings-mapping.ts before anything is stored; their rows in docs/limits.md are declared by the
 * admin API that serves them.
 */

/** Items in each of searchableAttributes, displayedAttributes, filterableAttributes, sortableAttributes. */
export const MAX_ATTRIBUTES = 1000;
/** Characters of one attribute name. */
export const MAX_ATTRIBUTE_CHARS = 256;
/** Keys of `synonyms`. */
export const MAX_SYNONYM_KEYS = 10_000;
/** Words in one synonym list (`synonyms.<word>`). */
export const MAX_SYNONYM_WORDS = 100;
/** Items of `stopWords`. */
export const MAX_STOP_WORDS = 10_000;
/** Characters of one synonym key, synonym or stop word. */
export const MAX_WORD_CHARS = 256;
/** Items of `typoTolerance.disableOnWords`. */
export const MAX_TYPO_DISABLED_WORDS = 1000;
/** `typoTolerance.minWordSizeForTypos.oneTypo` / `twoTypos`: whole numbers from 0 to this. */
export const MAX_TYPO_WORD_SIZE = 255;
/** Items of `rankingRules` (the only lists accepted are the default six, `sort` at any position). */
export const MAX_RANKING_RULES = 20;
/**
 * The eight customer settings together, as stored (UTF-8 JSON bytes), after a PATCH is applied. The
 * record is one DynamoDB item (at most 400 KB with the internal attributes) and its KV copy is read
 * by the search proxy, so the per-field bounds alone (which multiply out to megabytes) are not enough.
 */
export const MAX_SETTINGS_BYTES = 256 * 1024;
