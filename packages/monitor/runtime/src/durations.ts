/**
 * Each collector's durations judged (@monitor/jobs duration-rules.ts) over its latest runs, as the
 * status body, the metrics and the alert rules read them.
 */
import { type CollectorRunRow, type CollectorSpec, expectedGapMs, type RunStore } from "@monitor/core";
import {
  DEFAULT_BASELINE_RUNS,
  type DurationBaseline,
  type DurationJudgement,
  durationBaseline,
  judgeDurations,
} from "@monitor/jobs";

/** Runs per collector the judgement reads (the run store's most): enough for 20 baseline runs and the cadence of each series. */
export const DURATION_RUNS_READ = 200;

export interface CollectorDurations extends DurationJudgement {
  collector: string;
}

/** The latest runs of every collector, newest first (one bounded, cached read each). */
export async function readRecentRuns(
  store: RunStore,
  specs: readonly CollectorSpec[],
): Promise<Record<string, CollectorRunRow[]>> {
  const lists = await Promise.all(specs.map((s) => store.recentRuns(s.name, { limit: DURATION_RUNS_READ })));
  return Object.fromEntries(specs.map((s, i) => [s.name, lists[i] ?? []]));
}

export function judgeCollectorDurations(
  specs: readonly CollectorSpec[],
  recent: Readonly<Record<string, readonly CollectorRunRow[]>>,
  now: number,
): CollectorDurations[] {
  return specs.map((spec) => ({
    collector: spec.name,
    ...judgeDurations(
      (recent[spec.name] ?? [])
        .filter((r) => r.completed_at <= now)
        .map((r) => ({
          series: `${r.cloud_account_id}/${r.cloud_region}`,
          status: r.status,
          completed_at: r.completed_at,
          duration_ms: r.duration_ms,
        })),
      expectedGapMs(spec, now),
      {
        tooLongFactor: spec.duration_too_long_factor ?? null,
        tooShortFactor: spec.duration_too_short_factor ?? null,
        tooOftenFactor: spec.runs_too_often_factor ?? null,
        baselineRuns: spec.duration_baseline_runs ?? null,
      },
    ),
  }));
}

/**
 * Each collector's duration baseline over its latest successful runs (its `duration_baseline_runs`):
 * what a run that has not finished is measured against when no max_duration_minutes is set.
 */
export function recentBaselines(
  specs: readonly CollectorSpec[],
  recent: Readonly<Record<string, readonly CollectorRunRow[]>>,
): Map<string, DurationBaseline | null> {
  return new Map(
    specs.map((spec) => [
      spec.name,
      durationBaseline(
        (recent[spec.name] ?? [])
          .filter((r) => r.status === "succeeded")
          .slice(0, spec.duration_baseline_runs ?? DEFAULT_BASELINE_RUNS)
          .map((r) => r.duration_ms),
      ),
    ]),
  );
}
