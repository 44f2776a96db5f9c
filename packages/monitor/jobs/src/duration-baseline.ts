/**
 * A collector's duration baseline: the median and a high quantile of its last successful runs'
 * durations. The hung rule learns a collector's `max_duration` from it when none is set, and the
 * duration rules judge a finished run against it (far above: too long; far below: too short, the
 * backup that "finished" in 2 seconds). Pure.
 */

/** Successful runs a baseline is taken over, by default (newest first). */
export const DEFAULT_BASELINE_RUNS = 20;
/** Fewer successful runs than this: no baseline yet (nothing learned, nothing judged). */
export const MIN_BASELINE_RUNS = 5;
/** The high quantile of a baseline. */
export const BASELINE_HIGH_QUANTILE = 0.9;

export interface DurationBaseline {
  /** Successful runs it was taken over. */
  runs: number;
  median_ms: number;
  /** The 90th percentile (nearest rank). */
  p90_ms: number;
}

/** Nearest-rank quantile of sorted values (q in 0..1). */
function quantile(sorted: readonly number[], q: number): number {
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1] as number;
}

/**
 * The baseline over successful runs' durations (ms, any order; negative or non-finite values are
 * ignored), or null below `MIN_BASELINE_RUNS`.
 */
export function durationBaseline(durationsMs: readonly number[]): DurationBaseline | null {
  const sorted = durationsMs.filter((d) => Number.isFinite(d) && d >= 0).sort((a, b) => a - b);
  if (sorted.length < MIN_BASELINE_RUNS) return null;
  return {
    runs: sorted.length,
    median_ms: quantile(sorted, 0.5),
    p90_ms: quantile(sorted, BASELINE_HIGH_QUANTILE),
  };
}
