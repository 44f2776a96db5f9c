/**
 * The time range of a quality report or a training export, as their query strings give it:
 * `since` and `until` are each a duration (`30d`, `12h`, `90m`) or an ISO time. A duration of
 * `until` counts back from now, one of `since` back from `until`. One reading for both routes, so
 * `--since 7d` means the same range in `relevance quality` and `relevance features export`.
 */
import type { Issue } from "@shared/kernel";

export const DAY_MS = 86_400_000;
/** Characters of `since` and `until` (an ISO time with offset and nanoseconds is 35). */
export const MAX_TIME_CHARS = 40;
const DURATION = /^([1-9][0-9]{0,6})([dhm])$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const UNIT_MS = { d: DAY_MS, h: 3_600_000, m: 60_000 } as const;
const FORM = "must be a duration (7d, 24h, 90m) or an ISO time such as 2026-11-28T12:00:00Z";

/** A duration back from `reference`, or an ISO time; null when it is neither. */
export function parseInstant(raw: string, reference: number): number | null {
  const duration = DURATION.exec(raw);
  if (duration !== null)
    return reference - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
  if (!ISO_TIME.test(raw)) return null;
  const at = Date.parse(raw);
  return Number.isFinite(at) ? at : null;
}

/** `{since, until}` in epoch ms, or an issue naming each bad parameter. */
export function parseTimeRange(
  raw: { since?: string | undefined; until?: string | undefined },
  now: number,
  bounds: { defaultSince: string; maxDays: number },
): { ok: true; value: { since: number; until: number } } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  const read = (field: "since" | "until", text: string, reference: number): number | null => {
    if (text.length > MAX_TIME_CHARS) {
      issues.push({ path: field, message: `must be at most ${MAX_TIME_CHARS} characters` });
      return null;
    }
    const at = parseInstant(text, reference);
    if (at === null) issues.push({ path: field, message: FORM });
    return at;
  };
  const until = raw.until === undefined ? now : read("until", raw.until, now);
  const since = read("since", raw.since ?? bounds.defaultSince, until ?? now);
  if (since !== null && until !== null) {
    if (since >= until) issues.push({ path: "since", message: "must be before until" });
    else if (until - since > bounds.maxDays * DAY_MS)
      issues.push({ path: "since", message: `must be at most ${bounds.maxDays} days before until` });
  }
  if (issues.length > 0 || since === null || until === null) return { ok: false, issues };
  return { ok: true, value: { since, until } };
}
