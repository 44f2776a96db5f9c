/**
 * Freshness check: collectors whose whole minutes since the latest `completed_at`
 * exceed their threshold, oldest first. A collector that never ran is listed before all others
 * with `minutes: null` (never-ran collectors ordered by name), once its registration is older than
 * its threshold: one registered a minute ago is waiting for its first run, not late (unknown
 * registration: listed).
 *
 * A cron collector has no fixed threshold: it is listed once the first expected run after its latest
 * run, plus its grace, has passed (its `threshold_minutes` is that span, from the latest run), and a
 * never-ran one once its first expected run after its registration plus the grace has passed.
 */
import { cronDeadline } from "@monitor/jobs";
import { cronOf } from "./collector-schedule.ts";
import { graceEnd } from "./health.ts";
import {
  type CollectorSpec,
  type EpochMs,
  lastOf,
  type RunRecord,
  type RunStatus,
  runsAsOf,
  wholeMinutes,
} from "./records.ts";

export interface FreshnessEntry {
  name: string;
  threshold_minutes: number;
  last_run: EpochMs | null;
  /** Whole minutes (floor) since `last_run`; null when the collector never ran. */
  minutes: number | null;
  status: RunStatus | null;
  error: string | null;
}

/** `runs` may hold any runs of any collectors, in any order; collectors not in `specs` are ignored. */
export function freshnessList(
  specs: readonly CollectorSpec[],
  runs: readonly RunRecord[],
  now: EpochMs,
): FreshnessEntry[] {
  const visible = runsAsOf(runs, now);
  const out: FreshnessEntry[] = [];
  for (const spec of specs) {
    const latest = lastOf(visible.filter((r) => r.collector === spec.name));
    const cron = cronOf(spec);
    if (latest === null) {
      const registeredAt = spec.registered_at ?? null;
      if (cron !== null) {
        const until = graceEnd(spec);
        if (registeredAt !== null && (until === null || now <= until)) continue;
      } else if (
        registeredAt !== null &&
        wholeMinutes(now - registeredAt) <= spec.freshness_threshold_minutes
      )
        continue;
      out.push({
        name: spec.name,
        threshold_minutes: spec.freshness_threshold_minutes,
        last_run: null,
        minutes: null,
        status: null,
        error: null,
      });
      continue;
    }
    const minutes = wholeMinutes(now - latest.completed_at);
    let threshold = spec.freshness_threshold_minutes;
    let over = minutes > threshold;
    if (cron !== null) {
      const deadline = cronDeadline(cron, latest.completed_at);
      threshold = deadline === null ? threshold : wholeMinutes(deadline.overdue - latest.completed_at);
      over = deadline !== null && now > deadline.overdue;
    }
    if (over) {
      out.push({
        name: spec.name,
        threshold_minutes: threshold,
        last_run: latest.completed_at,
        minutes,
        status: latest.status,
        error: latest.error,
      });
    }
  }
  return out.sort((a, b) => {
    if (a.last_run === null || b.last_run === null) {
      if (a.last_run !== b.last_run) return a.last_run === null ? -1 : 1;
    } else if (a.last_run !== b.last_run) {
      return a.last_run - b.last_run;
    }
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}
