/** UTC calendar days as `YYYY-MM-DD` text: the unit of cost per day (CUR usage days are UTC). */
import type { EpochMs } from "../records.ts";

export const DAY_MS = 86_400_000;

export function utcDay(ms: EpochMs): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

export function dayStartMs(day: string): EpochMs {
  return Date.parse(`${day}T00:00:00.000Z`);
}

export function addDays(day: string, n: number): string {
  return utcDay(dayStartMs(day) + n * DAY_MS);
}

/** First day of the day's month. */
export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}
