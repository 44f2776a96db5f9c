/**
 * Timestamps of run records and account versions: ISO 8601 with a zone, or epoch milliseconds, read
 * into epoch ms within 1970-2299 UTC. Pure: no clock.
 */
import type { EpochMs } from "./records.ts";

/** Earliest and latest accepted timestamps: 1970-01-01T00:00:00.000Z to 2299-12-31T23:59:59.999Z. */
export const MIN_TIMESTAMP_MS = 0;
export const MAX_TIMESTAMP_MS = Date.UTC(2300, 0, 1) - 1;

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/i;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The value of `count` ASCII digits of `s` from `at`, or -1 when one of them is not a digit. */
function digits(s: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * `YYYY-MM-DDTHH:MM:SS.sssZ` (what `Date.prototype.toISOString` writes, years 1970–2299) read
 * without a regular expression or a Date: the form nearly every collector sends, parsed a thousand
 * times per batch. null for anything else, which the general parser then reads (same answer).
 */
function canonicalIsoMs(s: string): number | null {
  if (s.length !== 24) return null;
  const c = (i: number) => s.charCodeAt(i);
  // - - T : : . Z
  if (
    c(4) !== 45 ||
    c(7) !== 45 ||
    c(10) !== 84 ||
    c(13) !== 58 ||
    c(16) !== 58 ||
    c(19) !== 46 ||
    c(23) !== 90
  )
    return null;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const sec = digits(s, 17, 2);
  const frac = digits(s, 20, 3);
  if (y < 1970 || y > 2299 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59) return null;
  if (sec < 0 || sec > 59 || frac < 0) return null;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (mo === 2 && leap ? 29 : (DAYS_IN_MONTH[mo - 1] as number))) return null;
  return Date.UTC(y, mo - 1, d, h, mi, sec, frac);
}

/**
 * Parses an ISO 8601 timestamp with a zone designator (`Z` or `±hh:mm`; `T` or a space between date
 * and time; seconds and up to 9 fractional digits optional, truncated to milliseconds), or an epoch
 * milliseconds integer. Returns epoch ms or an error message.
 */
export function parseTimestamp(value: unknown): { ok: true; ms: EpochMs } | { ok: false; message: string } {
  let ms: number;
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return { ok: false, message: "epoch milliseconds must be an integer" };
    ms = value;
  } else if (typeof value === "string") {
    const fast = canonicalIsoMs(value);
    if (fast !== null) return { ok: true, ms: fast };
    const m = ISO_RE.exec(value);
    if (m === null) {
      return {
        ok: false,
        message:
          "unparsable timestamp: expected ISO 8601 with a zone (e.g. 2025-01-31T12:00:00.000Z) or epoch ms",
      };
    }
    const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => Number(x ?? 0)) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const frac = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3));
    const oh = Number(m[10] ?? 0);
    const om = Number(m[11] ?? 0);
    if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59 || oh > 23 || om > 59) {
      return { ok: false, message: "unparsable timestamp: a date or time field is out of range" };
    }
    const date = new Date(0);
    date.setUTCFullYear(y, mo - 1, d);
    if (date.getUTCDate() !== d || date.getUTCMonth() !== mo - 1) {
      return { ok: false, message: "unparsable timestamp: no such day" };
    }
    const offset = (m[9] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
    ms = date.getTime() + ((h * 60 + mi) * 60 + s) * 1000 + frac - offset;
  } else {
    return { ok: false, message: "must be an ISO 8601 string or epoch milliseconds" };
  }
  if (ms < MIN_TIMESTAMP_MS || ms > MAX_TIMESTAMP_MS) {
    return { ok: false, message: "timestamp out of range (1970-01-01 to 2299-12-31 UTC)" };
  }
  return { ok: true, ms };
}
