/**
 * OUTCOME_RETENTION_DAYS: how long served searches and outcome events are kept (the ClickHouse
 * tables' TTL, and the hourly purge of npm start). Checked where it is read, at start.
 */
import type { LimitRow } from "@shared/kernel";
import { DEFAULT_RETENTION_DAYS, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from "./limits.ts";

export const RETENTION_ENV = "OUTCOME_RETENTION_DAYS";

/** A retention in whole days within [MIN_RETENTION_DAYS, MAX_RETENTION_DAYS], or a RangeError. */
export function checkRetentionDays(days: number): number {
  if (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS)
    throw new RangeError(
      `${RETENTION_ENV} must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, got ${days}`,
    );
  return days;
}

/** OUTCOME_RETENTION_DAYS from an environment (absent or empty: the default). */
export function retentionDaysFromEnv(env: Record<string, string | undefined>): number {
  const raw = env[RETENTION_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_RETENTION_DAYS;
  if (!/^\d+$/.test(raw.trim()))
    throw new RangeError(
      `${RETENTION_ENV} must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, got ${JSON.stringify(raw)}`,
    );
  return checkRetentionDays(Number(raw.trim()));
}

/** The retention's row of docs/limits.md. */
export const OUTCOME_RETENTION_LIMITS: readonly LimitRow[] = [
  {
    area: "outcomes",
    field: "served searches and outcome events",
    limit: DEFAULT_RETENTION_DAYS,
    unit: "days",
    status: 0,
    note: `kept this many days (${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}), then deleted: the tables' TTL and an hourly purge`,
    env: RETENTION_ENV,
  },
];
