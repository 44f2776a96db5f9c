/**
 * Durations judged: a collector's latest successful run against the baseline of the successful runs
 * before it (too long: far above its 90th percentile; too short: far below its median, the backup
 * that "finished" in 2 seconds), and its runs' cadence against its schedule (too often). Pure.
 */
import { DEFAULT_BASELINE_RUNS, type DurationBaseline, durationBaseline } from "./duration-baseline.ts";

/** A latest run longer than this many times the baseline's 90th percentile is too long. */
export const DEFAULT_TOO_LONG_FACTOR = 3;
/** A latest run shorter than this fraction of the baseline's median is too short. */
export const DEFAULT_TOO_SHORT_FACTOR = 0.1;
/** Runs of one series closer than this fraction of the expected gap (median of the latest gaps) are too often. */
export const DEFAULT_TOO_OFTEN_FACTOR = 0.25;
/**
 * A baseline median below this is not judged too short: a job that takes 50 ms and once takes 4 ms
 * has not skipped its work, a job that takes 10 minutes and once takes 2 seconds probably has.
 */
export const MIN_JUDGED_MEDIAN_MS = 10_000;
/** Gaps of the latest series the cadence is judged over. */
export const CADENCE_GAPS = 5;

export const MAX_BASELINE_RUNS = 200;
export const MAX_DURATION_FACTOR = 1000;

export interface DurationKnobs {
  tooLongFactor?: number | null;
  tooShortFactor?: number | null;
  tooOftenFactor?: number | null;
  baselineRuns?: number | null;
}

/** One run as the judgement reads it (any order; other collectors' runs must not be given). */
export interface TimedRun {
  series: string;
  status: string;
  completed_at: number;
  duration_ms: number;
}

export type DurationVerdict = "no_baseline" | "normal" | "too_long" | "too_short" | "too_often";

export interface DurationJudgement {
  verdict: DurationVerdict;
  baseline: DurationBaseline | null;
  /** The latest successful run's duration; null when none succeeded. */
  last_ms: number | null;
  /** Why it is not normal, in words; null when normal or unjudged. */
  detail: string | null;
}

const secs = (ms: number) =>
  ms < 60_000
    ? `${(ms / 1000).toFixed(1)} s`
    : ms < 3_600_000
      ? `${(ms / 60_000).toFixed(1)} min`
      : `${(ms / 3_600_000).toFixed(1)} h`;

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.ceil(s.length / 2) - 1] as number;
}

/**
 * The judgement of a collector's runs (`runs` newest or oldest first: they are sorted here), given the
 * expected gap between its runs (its interval, or a cron schedule's shortest gap; null: no cadence).
 */
export function judgeDurations(
  runs: readonly TimedRun[],
  expectedGapMs: number | null,
  knobs: DurationKnobs = {},
): DurationJudgement {
  const newest = [...runs].sort((a, b) => b.completed_at - a.completed_at);
  const ok = newest.filter((r) => r.status === "succeeded" && Number.isFinite(r.duration_ms));
  const n = knobs.baselineRuns ?? DEFAULT_BASELINE_RUNS;
  const latest = ok[0];
  // The latest run is judged against the runs before it: a 2-second run does not dilute its own baseline.
  const baseline = durationBaseline(ok.slice(1, 1 + n).map((r) => r.duration_ms));
  const last_ms = latest?.duration_ms ?? null;
  const judged = (verdict: DurationVerdict, detail: string | null): DurationJudgement => ({
    verdict,
    baseline,
    last_ms,
    detail,
  });
  if (latest !== undefined && baseline !== null) {
    const long = knobs.tooLongFactor ?? DEFAULT_TOO_LONG_FACTOR;
    const short = knobs.tooShortFactor ?? DEFAULT_TOO_SHORT_FACTOR;
    if (latest.duration_ms > long * baseline.p90_ms)
      return judged(
        "too_long",
        `too long: the latest successful run took ${secs(latest.duration_ms)}, over ${long} × its 90th percentile of ${secs(baseline.p90_ms)} (last ${baseline.runs} runs)`,
      );
    if (baseline.median_ms >= MIN_JUDGED_MEDIAN_MS && latest.duration_ms < short * baseline.median_ms)
      return judged(
        "too_short",
        `too short: the latest successful run took ${secs(latest.duration_ms)}, under ${short} × its median of ${secs(baseline.median_ms)} (last ${baseline.runs} runs)`,
      );
  }
  // Successful runs only: a failing job retried sooner than its schedule is failing, not running too often.
  const often = tooOften(ok, expectedGapMs, knobs.tooOftenFactor ?? DEFAULT_TOO_OFTEN_FACTOR);
  if (often !== null) return judged("too_often", often);
  return judged(baseline === null ? "no_baseline" : "normal", null);
}

/** The latest series' median gap between its latest successful runs, when it is under `factor` × the expected gap. */
function tooOften(newest: readonly TimedRun[], expectedGapMs: number | null, factor: number): string | null {
  const head = newest[0];
  if (head === undefined || expectedGapMs === null || expectedGapMs <= 0) return null;
  const series = newest.filter((r) => r.series === head.series).slice(0, CADENCE_GAPS + 1);
  if (series.length < CADENCE_GAPS + 1) return null;
  const gaps = series.slice(1).map((r, i) => (series[i] as TimedRun).completed_at - r.completed_at);
  const gap = median(gaps);
  if (gap >= factor * expectedGapMs) return null;
  return `too often: ${head.series} ran every ${secs(gap)} (median of its last ${CADENCE_GAPS} gaps), under ${factor} × the expected ${secs(expectedGapMs)}`;
}
