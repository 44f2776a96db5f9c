/**
 * How a collector is expected to run: every `expected_interval_minutes`, or on a cron `schedule` in a
 * time zone with a grace (@monitor/jobs reads the expression). The rules ask this module rather than
 * the spec's fields, so an interval collector keeps the seed's rules unchanged.
 */
import { type CronSchedule, longestGapMs, shortestGapMs } from "@monitor/jobs";
import { type CollectorSpec, MINUTE_MS } from "./records.ts";

/** The cron schedule of a collector, or null for an interval collector. */
export function cronOf(spec: CollectorSpec): CronSchedule | null {
  if (spec.schedule === undefined || spec.schedule === null || spec.schedule === "") return null;
  return { schedule: spec.schedule, timezone: spec.timezone ?? "UTC", graceMinutes: spec.grace_minutes ?? 0 };
}

/** A day: the cadence of a schedule that no longer runs twice (the rules still need a span). */
const FALLBACK_CADENCE_MINUTES = 24 * 60;

/**
 * The span between a collector's expected runs, in minutes: its interval, or for a cron collector the
 * longest gap between two expected runs (a weekday job's weekend). It sizes the windows the rules read
 * over (failure streaks), never a cron collector's freshness.
 */
export function cadenceMinutes(spec: CollectorSpec, now: number): number {
  const cron = cronOf(spec);
  if (cron === null) return spec.expected_interval_minutes ?? FALLBACK_CADENCE_MINUTES;
  const gap = longestGapMs(cron, now);
  return gap === null ? FALLBACK_CADENCE_MINUTES : Math.ceil(gap / MINUTE_MS);
}

/**
 * The gap expected between two runs of one series (ms): the interval, or a cron schedule's shortest
 * gap (an hourly weekday job: an hour). "Runs too often" is measured against it; null: unknown.
 */
export function expectedGapMs(spec: CollectorSpec, now: number): number | null {
  const cron = cronOf(spec);
  if (cron === null)
    return spec.expected_interval_minutes === null ? null : spec.expected_interval_minutes * MINUTE_MS;
  return shortestGapMs(cron, now);
}

/** "0 2 * * 1-5 Europe/Berlin", for reasons and pages. */
export function scheduleText(cron: CronSchedule): string {
  return `${cron.schedule} ${cron.timezone}`;
}
