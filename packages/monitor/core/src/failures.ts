/**
 * Consecutive failures per (collector, account, region) since the last success.
 * A streak is the number of `failed` runs at the end of the subject's history: `succeeded` resets
 * it to 0, and so does `partial` (a partial run is not a failure, so the failures around it are not
 * consecutive; it is not a success either, so `last_success_at` does not move).
 */
import { CONSECUTIVE_FAILURES_THRESHOLD, type EpochMs, lastOf, type RunRecord, runsAsOf } from "./records.ts";

export interface FailureStreak {
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  consecutive_failures: number;
  /** `completed_at` of the subject's latest `succeeded` run, or null when it never succeeded. */
  last_success_at: EpochMs | null;
  /** Error text of the latest run in the streak ("" when the streak is 0). */
  last_error: string;
}

/** One entry per (collector, account, region) seen in `runs`, sorted by those three keys. */
export function failureStreaks(runs: readonly RunRecord[], now: EpochMs): FailureStreak[] {
  const bySubject = new Map<string, RunRecord[]>();
  for (const run of runsAsOf(runs, now)) {
    const key = JSON.stringify([run.collector, run.cloud_account_id, run.cloud_region]);
    const list = bySubject.get(key);
    if (list === undefined) bySubject.set(key, [run]);
    else list.push(run);
  }
  const out: FailureStreak[] = [];
  for (const list of bySubject.values()) {
    let streak = 0;
    let lastSuccess: EpochMs | null = null;
    for (const run of list) {
      if (run.status === "failed") streak += 1;
      else streak = 0;
      if (run.status === "succeeded") lastSuccess = run.completed_at;
    }
    const first = list[0] as RunRecord;
    out.push({
      collector: first.collector,
      cloud_account_id: first.cloud_account_id,
      cloud_region: first.cloud_region,
      consecutive_failures: streak,
      last_success_at: lastSuccess,
      last_error: streak > 0 ? (lastOf(list) as RunRecord).error : "",
    });
  }
  return out.sort(
    (a, b) =>
      cmp(a.collector, b.collector) ||
      cmp(a.cloud_account_id, b.cloud_account_id) ||
      cmp(a.cloud_region, b.cloud_region),
  );
}

/** Subjects with at least `threshold` (default 3) consecutive failures. */
export function failingSubjects(
  runs: readonly RunRecord[],
  now: EpochMs,
  threshold: number = CONSECUTIVE_FAILURES_THRESHOLD,
): FailureStreak[] {
  return failureStreaks(runs, now).filter((s) => s.consecutive_failures >= threshold);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
