/**
 * The time arithmetic of maintenance windows: a one-off window (`startsAt`..`endsAt`) or a recurring
 * one (a cron expression read by croner in an IANA time zone, each occurrence lasting
 * `durationMinutes`, DST-correct: the duration is elapsed time, an occurrence at a local time that a
 * spring change skips starts at the first valid time after it). A window ended early (`endedAt`) has
 * no occurrence after that instant and the one in progress stops there. Pure: `now` is given.
 */
import { Cron } from "croner";

const MINUTE_MS = 60_000;

export type MaintenanceTiming =
  | { kind: "once"; startsAt: number; endsAt: number }
  | { kind: "recurring"; schedule: string; timezone: string; durationMinutes: number };

/** What the arithmetic reads of a window: its timing, when it was created, and an early end. */
export interface WindowTimes {
  timing: MaintenanceTiming;
  /** A recurring window's occurrences count from its creation (one in progress then is active from then). */
  createdAt: number;
  /** Ended early at (DELETE); null while it runs its course. */
  endedAt: number | null;
}

/** One occurrence of a window: in effect from `startsAt` (inclusive) to `endsAt` (exclusive). */
export interface WindowSpan {
  startsAt: number;
  endsAt: number;
}

/** A recurring occurrence lasts at most a day. */
export const MAX_RECURRING_DURATION_MINUTES = 24 * 60;

function cron(t: Extract<MaintenanceTiming, { kind: "recurring" }>): Cron {
  // domAndDow false: Vixie cron's rule, as for collector schedules (cron-schedule.ts).
  return new Cron(t.schedule, { timezone: t.timezone, paused: true, domAndDow: false });
}

/** The latest cron start at or before `at`, or null. */
function startAtOrBefore(t: Extract<MaintenanceTiming, { kind: "recurring" }>, at: number): number | null {
  const [previous] = cron(t).previousRuns(1, new Date(at + 1000));
  if (previous === undefined) return null;
  // croner's previousRuns is second-granular: a start in the last second after `at` is not "at or before".
  const p = previous.getTime();
  return p <= at ? p : startAtOrBefore(t, p - 1);
}

/** A span cut by the window's creation (recurring) and its early end; null when nothing is left. */
function clip(w: WindowTimes, s: WindowSpan): WindowSpan | null {
  const from = w.timing.kind === "recurring" ? Math.max(s.startsAt, w.createdAt) : s.startsAt;
  const to = w.endedAt === null ? s.endsAt : Math.min(s.endsAt, w.endedAt);
  return from < to ? { startsAt: from, endsAt: to } : null;
}

/**
 * The occurrence in effect at `now`, or null. Recurring occurrences may overlap (a schedule firing
 * more often than the duration); the latest start ends last, so it is the one reported.
 */
export function windowActiveAt(w: WindowTimes, now: number): WindowSpan | null {
  const t = w.timing;
  if (t.kind === "once") {
    const s = clip(w, { startsAt: t.startsAt, endsAt: t.endsAt });
    return s !== null && s.startsAt <= now && now < s.endsAt ? s : null;
  }
  const start = startAtOrBefore(t, now);
  if (start === null) return null;
  const s = clip(w, { startsAt: start, endsAt: start + t.durationMinutes * MINUTE_MS });
  return s !== null && s.startsAt <= now && now < s.endsAt ? s : null;
}

/** The next occurrence starting after `now` (not the one in effect), or null when none will. */
export function nextWindow(w: WindowTimes, now: number): WindowSpan | null {
  const t = w.timing;
  if (t.kind === "once") {
    const s = clip(w, { startsAt: t.startsAt, endsAt: t.endsAt });
    return s !== null && s.startsAt > now ? s : null;
  }
  let from = now;
  // A start before the window's creation is clipped to it; at most a few such steps.
  for (let i = 0; i < 3; i++) {
    const next = cron(t).nextRun(new Date(from))?.getTime() ?? null;
    if (next === null) return null;
    const s = clip(w, { startsAt: next, endsAt: next + t.durationMinutes * MINUTE_MS });
    if (s === null) return null;
    if (s.startsAt > now) return s;
    from = next;
  }
  return null;
}

/**
 * The end of the latest occurrence that ended at or before `now` (an early end included), or null
 * when none has: where a collector's staleness counts from after the window (`freshnessAnchor`).
 */
export function lastWindowEnd(w: WindowTimes, now: number): number | null {
  const t = w.timing;
  if (t.kind === "once") {
    const s = clip(w, { startsAt: t.startsAt, endsAt: t.endsAt });
    return s !== null && s.endsAt <= now ? s.endsAt : null;
  }
  const duration = t.durationMinutes * MINUTE_MS;
  let best: number | null = null;
  // The latest occurrence that ran its full course by now started at or before now - duration.
  const full = startAtOrBefore(t, now - duration);
  if (full !== null) {
    const s = clip(w, { startsAt: full, endsAt: full + duration });
    if (s !== null) best = s.endsAt;
  }
  // One cut short by an early end before now.
  if (w.endedAt !== null && w.endedAt <= now) {
    const cut = startAtOrBefore(t, w.endedAt);
    if (cut !== null) {
      const s = clip(w, { startsAt: cut, endsAt: cut + duration });
      if (s !== null && s.endsAt <= now && (best === null || s.endsAt > best)) best = s.endsAt;
    }
  }
  return best;
}

/**
 * Where a collector's freshness counts from at `now`: its last success, or the end of a window that
 * covered it and ended after that success (staleness accrued during planned work is not held
 * against it; it is stale again only with no success 2 × interval after the window's end).
 * `windowEnds`: `lastWindowEnd` of each window in the collector's scope (null: none ended yet).
 */
export function freshnessAnchor(
  lastSuccessAt: number,
  windowEnds: readonly (number | null)[],
  now: number,
): number {
  let anchor = lastSuccessAt;
  for (const end of windowEnds) if (end !== null && end <= now && end > anchor) anchor = end;
  return anchor;
}

/** A window has run its course at `now`: ended early, or a one-off past its end. */
export function windowOver(w: WindowTimes, now: number): boolean {
  if (w.endedAt !== null && w.endedAt <= now) return true;
  return w.timing.kind === "once" && w.timing.endsAt <= now;
}
