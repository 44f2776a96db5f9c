/**
 * Collector health (spec §4), evaluated at `now` over the collector's runs across all its
 * accounts and regions. See docs/monitor-rules.md for the boundaries.
 */
import { failingSubjects } from "./failures.ts";
import {
  CONSECUTIVE_FAILURES_THRESHOLD,
  type CollectorSpec,
  type EpochMs,
  lastOf,
  MINUTE_MS,
  type RunRecord,
  type RunStatus,
  runsAsOf,
  STALE_INTERVAL_FACTOR,
  wholeMinutes,
} from "./records.ts";

export type Health = "green" | "amber" | "red";

export interface CollectorHealth {
  name: string;
  /** `completed_at` of the latest run, or null when the collector never ran. */
  last_run: EpochMs | null;
  status: RunStatus | null;
  /** Whole minutes (floor) since `last_run`. */
  minutes_ago: number | null;
  health: Health;
  /** Why the health is not green; red reasons first. Empty when green. */
  reasons: string[];
}

/**
 * `runs` may be in any order and may contain other collectors (ignored), duplicate `run_id`s
 * (counted once) and runs completed after `now` (ignored).
 */
export function collectorHealth(
  spec: CollectorSpec,
  runs: readonly RunRecord[],
  now: EpochMs,
): CollectorHealth {
  const own = runsAsOf(
    runs.filter((r) => r.collector === spec.name),
    now,
  );
  const latest = lastOf(own);
  const lastSuccess = lastOf(own.filter((r) => r.status === "succeeded"));
  const interval = spec.expected_interval_minutes;
  const staleMinutes = STALE_INTERVAL_FACTOR * interval;

  const red: string[] = [];
  const amber: string[] = [];
  if (latest === null) {
    red.push("never ran");
  } else if (lastSuccess === null) {
    red.push("no succeeded run ever");
  } else if (now - lastSuccess.completed_at > staleMinutes * MINUTE_MS) {
    red.push(
      `stale: no succeeded run within ${staleMinutes} min (${STALE_INTERVAL_FACTOR} × ${interval} min); ` +
        `last success ${wholeMinutes(now - lastSuccess.completed_at)} min ago`,
    );
  } else if (now - lastSuccess.completed_at > interval * MINUTE_MS) {
    amber.push(
      `last success ${wholeMinutes(now - lastSuccess.completed_at)} min ago, older than the ${interval} min interval`,
    );
  }
  if (latest !== null && latest.status !== "succeeded") {
    amber.push(
      latest.error === "" ? `latest run ${latest.status}` : `latest run ${latest.status}: ${latest.error}`,
    );
  }
  for (const s of failingSubjects(own, now, CONSECUTIVE_FAILURES_THRESHOLD)) {
    amber.push(
      `${s.cloud_account_id}/${s.cloud_region}: ${s.consecutive_failures} consecutive failed runs since last success`,
    );
  }

  return {
    name: spec.name,
    last_run: latest?.completed_at ?? null,
    status: latest?.status ?? null,
    minutes_ago: latest === null ? null : wholeMinutes(now - latest.completed_at),
    health: red.length > 0 ? "red" : amber.length > 0 ? "amber" : "green",
    reasons: [...red, ...amber],
  };
}

/** Health of every collector of the registry, in registry order. */
export function collectorsHealth(
  specs: readonly CollectorSpec[],
  runs: readonly RunRecord[],
  now: EpochMs,
): CollectorHealth[] {
  return specs.map((spec) => collectorHealth(spec, runs, now));
}
