/**
 * The run store port, owned by the monitor. Times are epoch milliseconds (numbers) on this side;
 * the adapter keeps them as DateTime64(3) in SQL. Row types are local on purpose (monitor-core is
 * being written in parallel; these can be swapped for its record types later).
 */

export const RUN_STATUSES = ["succeeded", "failed", "partial"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const ACCOUNT_STATUSES = ["active", "pending_setup", "no_access"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** A run record as handed to the store. `run_id` is generated (UUID v4) when absent; `error` defaults to "". */
export interface CollectorRunInput {
  run_id?: string;
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  started_at: number;
  completed_at: number;
  status: RunStatus;
  events_produced: number;
  rows_inserted: number;
  error?: string;
  duration_ms: number;
}

/** A stored run record (svc.collector_runs): every field present, `run_id` and `error` filled in. */
export type CollectorRunRow = Required<CollectorRunInput>;

/** A version of a monitored account (svc.cloud_accounts); the latest `updated_at` wins. */
export interface CloudAccountRow {
  account_id: string;
  account_name: string;
  svc_status: AccountStatus;
  updated_at: number;
  /**
   * `accountsLatest()` only: `updated_at` of the account's first `active` version, null when it was
   * never active. The grace of a never-scanned account starts there (docs/monitor-rules.md).
   */
  first_active_at?: number | null;
}

export interface InsertRunsResult {
  /** Rows written by this call. */
  inserted: number;
  /** run_ids not written because they were already stored or repeated inside the batch. */
  duplicates: string[];
}

/** The latest run of a collector, across all its accounts and regions. */
export type LatestRunRow = CollectorRunRow;

export interface LastSuccessRow {
  collector: string;
  /** completed_at of the latest `succeeded` run. Collectors that never succeeded are absent. */
  last_success_at: number;
  run_id: string;
  cloud_account_id: string;
  cloud_region: string;
}

/** Per collector × account × region, over the runs completed since `sinceMs`. */
export interface FailureStreakRow {
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  last_run_at: number;
  last_status: RunStatus;
  /** Latest `succeeded` completed_at inside the window, or null when none. */
  last_success_at: number | null;
  /** `failed` runs after the last non-failed run (succeeded or partial) inside the window. */
  consecutive_failures: number;
}

export interface AccountLastSuccessRow {
  cloud_account_id: string;
  last_success_at: number;
}

export interface FailuresPerDayRow {
  collector: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  failures: number;
}

export interface DbHealth {
  /** Sum of bytes_on_disk of active parts of all databases (system.parts). */
  disk_used_bytes: number;
  /** The same, for the `svc` database only. */
  svc_disk_used_bytes: number;
  /** Sum over system.disks; null when not readable. */
  disk_total_bytes: number | null;
  disk_free_bytes: number | null;
  /** Queries running now except this one (system.processes); null when not readable. */
  active_queries: number | null;
  /**
   * Query latency: on a server, of the queries finished in the last 15 minutes (system.query_log);
   * otherwise (chDB has no system.query_log; or it is unreadable or empty) of this store's own
   * queries, measured client-side. `sources.query_latency` says which.
   */
  query_p50_ms: number | null;
  query_p95_ms: number | null;
  query_p99_ms: number | null;
  /** Queries the percentiles are taken over. */
  query_samples: number;
  sources: {
    disk: "system.parts+system.disks";
    active_queries: "system.processes" | "unavailable";
    query_latency: "system.query_log" | "client-timings";
  };
}

export interface RunStore {
  /** Apply pending versioned migrations (idempotent). Returns the versions applied by this call. */
  migrate(): Promise<number[]>;
  /** All-or-nothing: every row is validated before anything is written; a stored run_id is not stored again. */
  insertRuns(rows: readonly CollectorRunInput[]): Promise<InsertRunsResult>;
  upsertAccount(row: CloudAccountRow): Promise<void>;
  latestRunPerCollector(): Promise<LatestRunRow[]>;
  lastSuccessPerCollector(): Promise<LastSuccessRow[]>;
  consecutiveFailuresPerCollectorAccountRegion(sinceMs: number): Promise<FailureStreakRow[]>;
  accountsLatest(): Promise<CloudAccountRow[]>;
  lastSucceededRunPerAccount(sinceMs: number): Promise<AccountLastSuccessRow[]>;
  /** Dense: one row per known collector per UTC day (oldest first), zero-filled. */
  failuresPerCollectorPerDay(days?: number, nowMs?: number): Promise<FailuresPerDayRow[]>;
  dbHealth(): Promise<DbHealth>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class RunStoreError extends Error {
  override name = "RunStoreError";
}

/** The analytics database did not answer (refused, unreachable, timed out). */
export class RunStoreUnavailable extends RunStoreError {
  override name = "RunStoreUnavailable";
}

/** The database answered with an error (SQL, constraint, permissions). */
export class RunStoreQueryError extends RunStoreError {
  override name = "RunStoreQueryError";
}

/** A row failed the store's type checks; nothing of the batch was written. */
export class RunStoreValidationError extends RunStoreError {
  override name = "RunStoreValidationError";
  readonly index: number;
  readonly field: string;
  constructor(index: number, field: string, message: string) {
    super(`row ${index}: ${field}: ${message}`);
    this.index = index;
    this.field = field;
  }
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const U32_MAX = 0xffff_ffff;
/** DateTime64(3) range used by the store: 1970-01-01 .. 2299-12-31. */
const MAX_MS = 10_413_791_999_999;

function checkString(i: number, field: string, v: unknown, nonEmpty: boolean): string {
  if (typeof v !== "string") throw new RunStoreValidationError(i, field, "must be a string");
  if (nonEmpty && v.length === 0) throw new RunStoreValidationError(i, field, "must not be empty");
  return v;
}

function checkU32(i: number, field: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > U32_MAX) {
    throw new RunStoreValidationError(i, field, "must be an integer in 0..4294967295");
  }
  return v;
}

function checkMs(i: number, field: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > MAX_MS) {
    throw new RunStoreValidationError(i, field, "must be epoch milliseconds (integer)");
  }
  return v;
}

/** Type checks of one run; returns a complete row (run_id generated when absent). */
export function validateRun(i: number, r: CollectorRunInput): CollectorRunRow {
  if (typeof r !== "object" || r === null) throw new RunStoreValidationError(i, "row", "must be an object");
  let runId: string;
  if (r.run_id === undefined) runId = crypto.randomUUID();
  else {
    runId = checkString(i, "run_id", r.run_id, true).toLowerCase();
    if (!UUID_RE.test(runId)) throw new RunStoreValidationError(i, "run_id", "must be a UUID");
  }
  const status = checkString(i, "status", r.status, true);
  if (!(RUN_STATUSES as readonly string[]).includes(status)) {
    throw new RunStoreValidationError(i, "status", `must be one of ${RUN_STATUSES.join(", ")}`);
  }
  const started = checkMs(i, "started_at", r.started_at);
  const completed = checkMs(i, "completed_at", r.completed_at);
  if (completed < started) throw new RunStoreValidationError(i, "completed_at", "is before started_at");
  return {
    run_id: runId,
    collector: checkString(i, "collector", r.collector, true),
    cloud_account_id: checkString(i, "cloud_account_id", r.cloud_account_id, true),
    cloud_region: checkString(i, "cloud_region", r.cloud_region, true),
    started_at: started,
    completed_at: completed,
    status: status as RunStatus,
    events_produced: checkU32(i, "events_produced", r.events_produced),
    rows_inserted: checkU32(i, "rows_inserted", r.rows_inserted),
    error: r.error === undefined ? "" : checkString(i, "error", r.error, false),
    duration_ms: checkU32(i, "duration_ms", r.duration_ms),
  };
}

export function validateAccount(a: CloudAccountRow): CloudAccountRow {
  if (typeof a !== "object" || a === null) throw new RunStoreValidationError(0, "row", "must be an object");
  const status = checkString(0, "svc_status", a.svc_status, true);
  if (!(ACCOUNT_STATUSES as readonly string[]).includes(status)) {
    throw new RunStoreValidationError(0, "svc_status", `must be one of ${ACCOUNT_STATUSES.join(", ")}`);
  }
  return {
    account_id: checkString(0, "account_id", a.account_id, true),
    account_name: checkString(0, "account_name", a.account_name, false),
    svc_status: status as AccountStatus,
    updated_at: checkMs(0, "updated_at", a.updated_at),
  };
}
