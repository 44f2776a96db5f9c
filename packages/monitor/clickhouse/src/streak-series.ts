/**
 * The failure streaks as the read cache keeps them: series read for a window starting at `since`
 * answer for any later start too (pure), so a cached read stays exact as `now` moves.
 */
import type { FailureStreakRow, RunStatus } from "@monitor/core";

/**
 * One series of the streak query as read for a window starting at `since`: what it takes to answer
 * for that window and for any later start (streakRowsAt), so a cached read stays exact as `now` moves.
 */
export interface StreakSeries {
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  last_run_at: number;
  last_status: RunStatus;
  /** Latest `succeeded` completed_at of all time; 0 when none. */
  last_success_at: number;
  /** completed_at of the failed runs (distinct run_ids) after the last non-failed run, in the window. */
  streak: number[];
  /** The latest failed run in the window and its error; 0 and "" when none. */
  last_failure_at: number;
  last_error: string;
}

/**
 * The rows of `consecutiveFailuresPerCollectorAccountRegion(since)` from series read for a window
 * starting at or before `since`: the same answer as reading them for `since` (pure).
 */
export function streakRowsAt(series: readonly StreakSeries[], since: number): FailureStreakRow[] {
  const out: FailureStreakRow[] = [];
  for (const s of series) {
    if (s.last_run_at < since) continue;
    out.push({
      collector: s.collector,
      cloud_account_id: s.cloud_account_id,
      cloud_region: s.cloud_region,
      last_run_at: s.last_run_at,
      last_status: s.last_status,
      last_success_at: s.last_success_at > 0 && s.last_success_at >= since ? s.last_success_at : null,
      consecutive_failures: s.streak.reduce((n, at) => (at >= since ? n + 1 : n), 0),
      last_error: s.last_failure_at > 0 && s.last_failure_at >= since ? s.last_error : "",
    });
  }
  return out;
}
