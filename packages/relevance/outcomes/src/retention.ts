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
    field: "retention",
    limit: DEFAULT_RETENTION_DAYS,
    unit: "days",
    status: 0,
    note: `served searches and outcome events older than this are deleted (the tables' TTL, and a purge every hour); ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS} days, else the service does not start`,
    env: RETENTION_ENV,
  },
];

const DAY_MS = 86_400_000;
export const PURGE_INTERVAL_MS = 3_600_000;

export interface RetentionPurge {
  /** Purges what is older than the retention now (also what each hourly tick does). */
  runOnce(): Promise<void>;
  /** Stops the hourly purge and waits for one in flight. */
  stop(): Promise<void>;
}

/**
 * Purges `store` of rows older than `retentionDays` at once and then every `intervalMs`. A failed
 * purge is logged and retried at the next tick; it never stops the process. The clock is a
 * parameter: the cut-off is `now() - retentionDays`.
 */
export function startRetentionPurge(opts: {
  store: Pick<import("./ports.ts").OutcomeStore, "purge">;
  retentionDays: number;
  now: () => number;
  log: { warn(message: string, fields?: Record<string, unknown>): void };
  intervalMs?: number;
}): RetentionPurge {
  const days = checkRetentionDays(opts.retentionDays);
  let inFlight: Promise<void> | null = null;
  let stopped = false;
  const runOnce = (): Promise<void> => {
    inFlight ??= opts.store
      .purge(opts.now() - days * DAY_MS)
      .catch((err: unknown) => {
        opts.log.warn("outcome retention purge failed; retried at the next tick", {
          error: err instanceof Error ? err.message : String(err),
        });
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
  const timer = setInterval(() => {
    if (!stopped) void runOnce();
  }, opts.intervalMs ?? PURGE_INTERVAL_MS);
  // The hourly purge alone never keeps a process alive.
  (timer as { unref?: () => void }).unref?.();
  void runOnce();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
    },
  };
}
