/**
 * Cron schedules of collectors, as an alternative to a fixed `expected_interval_minutes`: a cron
 * expression read in an IANA time zone (`0 2 * * 1-5` in `Europe/Berlin`: weekdays at 02:00 Berlin
 * time), with a grace. The expressions are read by croner (DST-correct: a run at a local time that a
 * spring change skips happens at the first valid time after it, one that the autumn change repeats
 * happens once), never by a parser of our own. Pure: `now` is given.
 */

import type { Issue } from "@shared/kernel";
import { Cron } from "croner";

export interface CronSchedule {
  /** Five fields (minute hour day-of-month month day-of-week), or six with seconds first. */
  schedule: string;
  /** An IANA time zone, e.g. Europe/Berlin; UTC when absent. */
  timezone: string;
  /** Minutes after an expected run before its absence counts. */
  graceMinutes: number;
}

/** Characters of a cron expression. */
export const MAX_CRON_CHARS = 120;
/** Characters of a time zone name (the longest IANA name is 32). */
export const MAX_TIMEZONE_CHARS = 64;
/** The grace, at most a week. */
export const MAX_GRACE_MINUTES = 7 * 24 * 60;

const MINUTE_MS = 60_000;

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Every problem of a schedule at once, each naming its field; empty when it is valid. */
export function cronScheduleIssues(s: {
  schedule: unknown;
  timezone: unknown;
  graceMinutes: unknown;
}): Issue[] {
  const issues: Issue[] = [];
  if (typeof s.schedule !== "string" || s.schedule.trim() === "")
    issues.push({ path: "schedule", message: "must be a cron expression such as 0 2 * * 1-5" });
  else if (s.schedule.length > MAX_CRON_CHARS)
    issues.push({ path: "schedule", message: `must be at most ${MAX_CRON_CHARS} characters` });
  if (typeof s.timezone !== "string" || s.timezone.length > MAX_TIMEZONE_CHARS || !validTimezone(s.timezone))
    issues.push({ path: "timezone", message: "must be an IANA time zone such as Europe/Berlin" });
  if (
    typeof s.graceMinutes !== "number" ||
    !Number.isInteger(s.graceMinutes) ||
    s.graceMinutes < 0 ||
    s.graceMinutes > MAX_GRACE_MINUTES
  )
    issues.push({ path: "grace_minutes", message: `must be a whole number from 0 to ${MAX_GRACE_MINUTES}` });
  if (issues.length === 0) {
    try {
      const job = cron(s as CronSchedule);
      if (job.nextRun(new Date(0)) === null)
        issues.push({ path: "schedule", message: "never runs (no date matches it)" });
    } catch (error) {
      issues.push({
        path: "schedule",
        message: `is not a valid cron expression (${(error as Error).message})`,
      });
    }
  }
  return issues;
}

function cron(s: CronSchedule): Cron {
  // domAndDow false: Vixie cron's rule, a day matches when day-of-month OR day-of-week matches.
  return new Cron(s.schedule, { timezone: s.timezone, paused: true, domAndDow: false });
}

/** The latest expected run at or before `now` (epoch ms), or null when none was ever due. */
export function lastExpectedRun(s: CronSchedule, now: number): number | null {
  const [previous] = cron(s).previousRuns(1, new Date(now + 1000));
  return previous === undefined ? null : previous.getTime();
}

/** The next expected run after `now` (epoch ms), or null when none is due any more. */
export function nextExpectedRun(s: CronSchedule, now: number): number | null {
  return cron(s).nextRun(new Date(now))?.getTime() ?? null;
}

/**
 * When a collector on this schedule is overdue: the latest expected run plus the grace, as of `now`
 * (a success after that run keeps it fresh until the next one's deadline). Null before any run is due.
 */
export function overdueAt(s: CronSchedule, now: number): number | null {
  const last = lastExpectedRun(s, now);
  return last === null ? null : last + s.graceMinutes * MINUTE_MS;
}

/** The grace of a cron collector when none is given: one hour, healthchecks' default. */
export const DEFAULT_GRACE_MINUTES = 60;
/** Expected runs looked at for a schedule's longest gap: a month of a daily job covers its weekends. */
const GAP_SAMPLE_RUNS = 32;

/** Schedules whose gaps are remembered, at most (each costs croner about 10 ms to work out). */
const GAP_MEMO_MAX = 256;
const gapMemo = new Map<string, { longest: number; shortest: number } | null>();

/**
 * The longest and shortest gaps between two consecutive expected runs (ms), over the runs after
 * `from`, or null when it runs fewer than twice. They are a property of the schedule, so they are
 * worked out once per schedule and time zone and remembered (a DST change moves them by an hour at most).
 */
function gaps(s: CronSchedule, from: number): { longest: number; shortest: number } | null {
  const key = `${s.schedule}\u0000${s.timezone}`;
  const known = gapMemo.get(key);
  if (known !== undefined) return known;
  const runs = cron(s).nextRuns(GAP_SAMPLE_RUNS, new Date(from));
  let found: { longest: number; shortest: number } | null = null;
  for (let i = 1; i < runs.length; i++) {
    const gap = (runs[i] as Date).getTime() - (runs[i - 1] as Date).getTime();
    found =
      found === null
        ? { longest: gap, shortest: gap }
        : { longest: Math.max(found.longest, gap), shortest: Math.min(found.shortest, gap) };
  }
  if (gapMemo.size >= GAP_MEMO_MAX) gapMemo.clear();
  gapMemo.set(key, found);
  return found;
}

/**
 * The longest gap between two expected runs (ms): the span a cron collector's failure streaks are
 * measured over (a weekday job's is the weekend, about 72 h). Null when it runs fewer than twice.
 */
export function longestGapMs(s: CronSchedule, from: number): number | null {
  return gaps(s, from)?.longest ?? null;
}

/** The shortest gap between two expected runs (ms): what "runs too often" is measured against. */
export function shortestGapMs(s: CronSchedule, from: number): number | null {
  return gaps(s, from)?.shortest ?? null;
}

/**
 * When a collector on this schedule whose last success completed at `lastSuccessAt` is due again, and
 * when it is overdue (healthchecks' cron rule): due at the first expected run after that success, late
 * (amber) after it, stale (red) once the grace after it has passed too. Null `due`: the schedule runs
 * no more.
 */
export function cronDeadline(
  s: CronSchedule,
  lastSuccessAt: number,
): { due: number; overdue: number } | null {
  const due = nextExpectedRun(s, lastSuccessAt);
  return due === null ? null : { due, overdue: due + s.graceMinutes * MINUTE_MS };
}
