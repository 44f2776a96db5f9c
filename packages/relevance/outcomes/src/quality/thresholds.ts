/**
 * When a quality metric has enough data to be shown as a number. Below these the report says
 * "too_little_data" with the count it had and the count it needs, never a number that only looks
 * precise: the intervals of the approximations used here (Wilson, Fisher z, Hanley–McNeil) are
 * themselves unreliable on fewer observations.
 */

/** Searches of one model before its calibration table is shown (about 10 per decile). */
export const MIN_CALIBRATION_SEARCHES = 100;
/**
 * Queries (each with at least minImpressions searches) before τ and ρ are shown. The Fisher z
 * intervals divide by n − 4 (τ) and n − 3 (ρ); below about 10 pairs they are wider than the range.
 */
export const MIN_CORRELATION_QUERIES = 10;
/** Searches with a click, and searches without, each needed before the AUC is shown. */
export const MIN_AUC_SEARCHES_PER_CLASS = 10;
/**
 * Queries a report reads at most (QualityQuery.maxQueries): the ones with the most searches. τ is
 * computed in O(n log n) (Knight's algorithm), so the whole report stays a few ms at this size.
 */
export const MAX_QUALITY_QUERIES = 5000;
/** Width of the per-day histogram's bins over the score's range [0, 10]: ten bins, a 10 in the last. */
export const HISTOGRAM_BINS = 10;
/** Two-sided 95 % normal quantile, used by every interval of the report. */
export const Z95 = 1.959963984540054;
/**
 * Paired searches before the two models' scores are compared (MAD, ρ): about as many as the
 * Fisher z interval of ρ needs to be narrower than ±0.35.
 */
export const MIN_AGREEMENT_PAIRS = 30;
/**
 * Paired searches ρ between the two models' scores is computed over, per model pair (the most
 * recent): ranking is O(n log n) in JavaScript, and ten thousand pairs pin ρ to about ±0.02.
 */
export const MAX_AGREEMENT_SAMPLES = 10_000;
