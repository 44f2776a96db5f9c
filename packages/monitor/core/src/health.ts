/**
 * Collector health, evaluated at `now` over the collector's runs across all its
 * accounts and regions. See docs/monitor-rules.md for the boundaries.
 *
 * A collector that never ran is `new` (healthchecks' term) during its grace, 2 × its expected interval
 * after its registration: a fresh install has had no chance to run anything, so it must not page.
 */
import { cronDeadline, nextExpectedRun } from "@monitor/jobs";
import { cronOf, scheduleText } from "./collector-schedule.ts";
import { failingSubjects } from "./failures.ts";
import {
  CONSECUTIVE_FAILURES_THRESHOLD,
  type CollectorSpec,
  type EpochMs,
  lastOf,
  MINUTE_MS,
  NEW_GRACE_INTERVAL_FACTOR,
  type RunRecord,
  type RunStatus,
  runsAsOf,
  STALE_INTERVAL_FACTOR,
  UPSTREAM_COLLECTORS,
  wholeMinutes,
} from "./records.ts";

/** `new`: waiting for its first run, within its grace; never alerted on. Then green, amber, red. */
export const HEALTH_STATES = ["new", "green", "amber", "red"] as const;
export type Health = (typeof HEALTH_STATES)[number];

/** Collectors whose runs wait for upstream collectors (`hierarchy_builder`). */
export const DEFAULT_DEPENDENCIES: Readonly<Record<string, readonly string[]>> = {
  hierarchy_builder: UPSTREAM_COLLECTORS,
};

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
  /** `registered_at` of the spec, or null when unknown. */
  registered_at: EpochMs | null;
  /** While `new`: the end of its grace (after it, with no run yet, red). Null otherwise. */
  new_until: EpochMs | null;
  /** A cron collector's schedule and time zone (`0 2 * * 1-5 Europe/Berlin`); null for an interval collector. */
  schedule?: string | null;
  /** A cron collector's next expected run after `now`; null for an interval collector, or when none is due. */
  next_expected_run?: EpochMs | null;
}

/**
 * The end of a collector's grace, or null when its registration time is unknown: 2 × its interval
 * after its registration, or for a cron collector its first expected run after its registration plus
 * its grace (null too when the schedule runs no more).
 */
export function graceEnd(spec: CollectorSpec): EpochMs | null {
  const at = spec.registered_at ?? null;
  if (at === null) return null;
  const cron = cronOf(spec);
  if (cron !== null) return cronDeadline(cron, at)?.overdue ?? null;
  return at + NEW_GRACE_INTERVAL_FACTOR * (spec.expected_interval_minutes ?? 0) * MINUTE_MS;
}

/** How a collector's success ages: when it is late (amber) and stale (red), with the words for each. */
interface Expectation {
  lateAt(lastSuccess: EpochMs): EpochMs | null;
  staleAt(lastSuccess: EpochMs): EpochMs | null;
  /** `from`: where freshness counts from (the last success, or a later window end); `last`: the last success. */
  late(from: EpochMs, last: EpochMs, now: EpochMs): string;
  stale(from: EpochMs, last: EpochMs, now: EpochMs): string;
  /** The span of the grace, in words: "30 min (2 × 15 min)". */
  grace: string;
}

function intervalExpectation(interval: number): Expectation {
  const staleMinutes = STALE_INTERVAL_FACTOR * interval;
  return {
    lateAt: (last) => last + interval * MINUTE_MS,
    staleAt: (last) => last + staleMinutes * MINUTE_MS,
    late: (_from, last, now) =>
      `last success ${wholeMinutes(now - last)} min ago, older than the ${interval} min interval`,
    stale: (_from, last, now) =>
      `stale: no succeeded run within ${staleMinutes} min (${STALE_INTERVAL_FACTOR} × ${interval} min); ` +
      `last success ${wholeMinutes(now - last)} min ago`,
    grace: `${staleMinutes} min (${STALE_INTERVAL_FACTOR} × ${interval} min)`,
  };
}

function cronExpectation(spec: CollectorSpec): Expectation | null {
  const cron = cronOf(spec);
  if (cron === null) return null;
  const on = scheduleText(cron);
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    lateAt: (last) => cronDeadline(cron, last)?.due ?? null,
    staleAt: (last) => cronDeadline(cron, last)?.overdue ?? null,
    late: (from, _last, now) =>
      `late: the run expected at ${iso(cronDeadline(cron, from)?.due ?? now)} (${on}) has not succeeded yet; ` +
      `stale at ${iso(cronDeadline(cron, from)?.overdue ?? now)}`,
    stale: (from, last, now) =>
      `stale: no succeeded run since the one expected at ${iso(cronDeadline(cron, from)?.due ?? now)} (${on}) ` +
      `and its ${cron.graceMinutes} min grace; last success ${wholeMinutes(now - last)} min ago`,
    grace: `its first expected run (${on}) plus ${cron.graceMinutes} min`,
  };
}

/**
 * `runs` may be in any order and may contain other collectors (ignored), duplicate `run_id`s
 * (counted once) and runs completed after `now` (ignored).
 */
export function collectorHealth(
  spec: CollectorSpec,
  runs: readonly RunRecord[],
  now: EpochMs,
  anchor?: FreshnessAnchorFn,
): CollectorHealth {
  const own = runsAsOf(
    runs.filter((r) => r.collector === spec.name),
    now,
  );
  const latest = lastOf(own);
  const lastSuccess = lastOf(own.filter((r) => r.status === "succeeded"));
  const cron = cronOf(spec);
  const expect = cronExpectation(spec) ?? intervalExpectation(spec.expected_interval_minutes ?? 0);
  const onSchedule =
    cron === null ? {} : { schedule: scheduleText(cron), next_expected_run: nextExpectedRun(cron, now) };

  const registeredAt = spec.registered_at ?? null;
  const graceUntil = graceEnd(spec);
  // Within the grace is inclusive, like every "within" of these rules: at exactly 2 × interval
  // after registration the collector is still new.
  if (latest === null && graceUntil !== null && now <= graceUntil) {
    return {
      name: spec.name,
      last_run: null,
      status: null,
      minutes_ago: null,
      health: "new",
      reasons: [
        `new: waiting for its first run (registered ${wholeMinutes(Math.max(0, now - (registeredAt as number)))} min ago; ` +
          `stale if none by ${new Date(graceUntil).toISOString()})`,
      ],
      registered_at: registeredAt,
      new_until: graceUntil,
      ...onSchedule,
    };
  }

  const red: string[] = [];
  const amber: string[] = [];
  if (latest === null) {
    red.push(
      registeredAt === null ? "never ran" : `never ran: no run within ${expect.grace} of its registration`,
    );
  } else if (lastSuccess === null) {
    // It ran and never succeeded: failing, not waiting. Stale, as any collector, once its grace
    // has passed with no success, counted from its registration (it had no earlier chance): until
    // then its failures are what it reports (amber; 3 in a row somewhere are a collector_failure),
    // not a second, critical alert for the same cause.
    if (graceUntil !== null && now <= graceUntil) {
      amber.push(
        `failing: no run has succeeded yet (registered ${wholeMinutes(Math.max(0, now - (registeredAt as number)))} min ago; ` +
          `stale if none succeeds by ${new Date(graceUntil).toISOString()})`,
      );
    } else {
      red.push(
        registeredAt === null
          ? "stale: it has run but never succeeded (no registration time, so no grace)"
          : `stale: no succeeded run within ${expect.grace} of its registration; it has run but never succeeded`,
      );
    }
  } else {
    // Freshness counts from the last success, or from the end of a maintenance window that covered
    // the collector and ended after it (staleness accrued during planned work is not held against it).
    const last = lastSuccess.completed_at;
    const from = freshFrom(spec, last, anchor);
    const staleAt = expect.staleAt(from);
    const lateAt = expect.lateAt(from);
    if (staleAt !== null && now > staleAt) red.push(expect.stale(from, last, now));
    else if (lateAt !== null && now > lateAt) amber.push(expect.late(from, last, now));
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
    registered_at: registeredAt,
    new_until: null,
    ...onSchedule,
  };
}

/**
 * Health of every collector of the registry, in registry order.
 *
 * Dependencies: a collector whose runs wait for upstream collectors (`hierarchy_builder` waits for a
 * success of a `config_*`) records its gated runs as failed. While an upstream is itself
 * `new` and none has ever succeeded, those failures say only "upstream has not run yet", so the
 * collector is `new` too (within its own grace) rather than red: it is waiting, not broken.
 */
export function collectorsHealth(
  specs: readonly CollectorSpec[],
  runs: readonly RunRecord[],
  now: EpochMs,
  dependencies: Readonly<Record<string, readonly string[]>> = DEFAULT_DEPENDENCIES,
  anchor?: FreshnessAnchorFn,
): CollectorHealth[] {
  const health = specs.map((spec) => collectorHealth(spec, runs, now, anchor));
  const byName = new Map(health.map((h) => [h.name, h]));
  const succeeded = new Set(
    runsAsOf(runs, now)
      .filter((r) => r.status === "succeeded")
      .map((r) => r.collector),
  );
  return specs.map((spec, i) => {
    const h = health[i] as CollectorHealth;
    const upstream = dependencies[spec.name] ?? [];
    const graceUntil = graceEnd(spec);
    if (
      h.health === "new" ||
      upstream.length === 0 ||
      succeeded.has(spec.name) ||
      graceUntil === null ||
      now > graceUntil ||
      upstream.some((u) => succeeded.has(u))
    )
      return h;
    const waitingFor = upstream.filter((u) => byName.get(u)?.health === "new");
    if (waitingFor.length === 0) return h;
    return {
      ...h,
      health: "new",
      reasons: [
        `new: waiting for its upstream collectors (${waitingFor.join(", ")} have not run yet); ` +
          `stale if no success by ${new Date(graceUntil).toISOString()}`,
      ],
      new_until: graceUntil,
    };
  });
}

/**
 * Where a collector's freshness counts from, given its last success: later when a maintenance window
 * covering it ended after that success (`freshnessAnchors`), so staleness accrued during the window
 * is not held against it. Absent: the last success.
 */
export type FreshnessAnchorFn = (collector: string, lastSuccessAt: EpochMs) => EpochMs;

function freshFrom(
  spec: CollectorSpec,
  lastSuccessAt: EpochMs,
  anchor: FreshnessAnchorFn | undefined,
): EpochMs {
  return anchor === undefined ? lastSuccessAt : anchor(spec.name, lastSuccessAt);
}

const RANK: Record<Health, number> = { new: 0, green: 1, amber: 2, red: 3 };

/**
 * The worst health of the collectors, where `new` counts below green: waiting for a first run never
 * makes the system unhealthy. `new` only when every collector is new (or there are none).
 */
export function overallHealth(health: readonly Pick<CollectorHealth, "health">[]): Health {
  let worst: Health = "new";
  for (const h of health) if (RANK[h.health] > RANK[worst]) worst = h.health;
  return worst;
}
