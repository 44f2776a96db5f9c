/**
 * The run store's errors and the type checks every adapter applies before writing (pure; the port
 * itself, `RunStore`, and its row types are in ports.ts).
 */
import type { CloudAccountRow, CollectorRunInput, CollectorRunRow, RunStartRow } from "./ports.ts";
import { ACCOUNT_STATUSES, type AccountStatus, RUN_STATUSES, type RunStatus } from "./records.ts";

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

/** A run start's type checks (the same as a run's for the fields they share). */
export function validateStart(i: number, r: RunStartRow): RunStartRow {
  if (typeof r !== "object" || r === null) throw new RunStoreValidationError(i, "row", "must be an object");
  const runId = checkString(i, "run_id", r.run_id, true).toLowerCase();
  if (!UUID_RE.test(runId)) throw new RunStoreValidationError(i, "run_id", "must be a UUID");
  return {
    run_id: runId,
    collector: checkString(i, "collector", r.collector, true),
    cloud_account_id: checkString(i, "cloud_account_id", r.cloud_account_id, true),
    cloud_region: checkString(i, "cloud_region", r.cloud_region, true),
    started_at: checkMs(i, "started_at", r.started_at),
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
