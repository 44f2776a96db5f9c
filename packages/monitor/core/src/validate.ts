/**
 * Validation of externally reported records (spec §3: `POST /api/system/runs`) and of registry and
 * account input. Pure: no clock, no I/O. Unknown extra fields are ignored; for optional fields
 * `null` means absent.
 */

import {
  ACCOUNT_ID_CHARSET,
  ACCOUNT_ID_RE,
  COLLECTOR_NAME_CHARSET,
  COLLECTOR_NAME_RE,
  MAX_ACCOUNT_ID_CHARS,
  MAX_ACCOUNT_NAME_CHARS,
  MAX_COLLECTOR_NAME_CHARS,
  MAX_REGION_CHARS,
  MAX_REGISTRY_MINUTES,
  MAX_RUN_BATCH,
  MAX_RUN_ERROR_CHARS,
  REGION_CHARSET,
  REGION_RE,
} from "./limits.ts";
import {
  ACCOUNT_STATUSES,
  type AccountStatus,
  type CollectorSpec,
  DEFAULT_FRESHNESS_THRESHOLD_MINUTES,
  type EpochMs,
  type NewRunRecord,
  RUN_STATUSES,
  type RunStatus,
  UINT32_MAX,
} from "./records.ts";
import { at, type Issue, isPlainObject, type Result } from "./result.ts";

/** Earliest and latest accepted timestamps: 1970-01-01T00:00:00.000Z to 2299-12-31T23:59:59.999Z. */
export const MIN_TIMESTAMP_MS = 0;
export const MAX_TIMESTAMP_MS = Date.UTC(2300, 0, 1) - 1;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
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

function uint32(value: unknown, path: string, errors: Issue[]): number | undefined {
  if (typeof value !== "number") {
    errors.push({ path, message: "must be a number" });
  } else if (!Number.isInteger(value)) {
    errors.push({ path, message: "must be an integer" });
  } else if (value < 0) {
    errors.push({ path, message: "must not be negative" });
  } else if (value > UINT32_MAX) {
    errors.push({ path, message: "must be below 2^32 (at most 4294967295)" });
  } else {
    return value === 0 ? 0 : value; // normalises -0
  }
  return undefined;
}

function text(value: unknown, path: string, errors: Issue[]): string | undefined {
  if (value === undefined || value === null) errors.push({ path, message: "is required" });
  else if (typeof value !== "string") errors.push({ path, message: "must be a string" });
  else if (value.trim() === "") errors.push({ path, message: "must not be empty" });
  else return value;
  return undefined;
}

/**
 * Characters (code points) of `s`, counted only up to `stopAfter + 1`: enough to tell whether it is
 * over a limit without walking a long string twice. A string whose UTF-16 length is within the
 * limit cannot hold more code points than that.
 */
export function charCount(s: string, stopAfter = Number.POSITIVE_INFINITY): number {
  if (s.length <= stopAfter) {
    let n = 0;
    for (const _ of s) n++;
    return n;
  }
  let n = 0;
  for (const _ of s) {
    n++;
    if (n > stopAfter) break;
  }
  return n;
}

/**
 * The last `max` characters of `s` (whole code points): for an error text taken from the end of a
 * stream, the end is the part that says what went wrong.
 */
export function keepLastChars(s: string, max: number): string {
  if (charCount(s, max) <= max) return s;
  const points = Array.from(s);
  return points.slice(points.length - max).join("");
}

function bounded(value: string | undefined, max: number, path: string, errors: Issue[]): string | undefined {
  if (value === undefined) return undefined;
  if (charCount(value, max) > max) {
    errors.push({ path, message: `must be at most ${max} characters` });
    return undefined;
  }
  return value;
}

/** A required identifier: non-blank text within `max` characters of the charset `re`. */
function identifier(
  value: unknown,
  max: number,
  re: RegExp,
  charset: string,
  path: string,
  errors: Issue[],
): string | undefined {
  const s = bounded(text(value, path, errors), max, path, errors);
  if (s === undefined) return undefined;
  if (!re.test(s)) {
    errors.push({ path, message: `must be ${charset}` });
    return undefined;
  }
  return s;
}

const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;

function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  path: string,
  errors: Issue[],
): T | undefined {
  if (value === undefined || value === null) errors.push({ path, message: "is required" });
  else if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    errors.push({ path, message: `must be one of ${allowed.join(", ")}` });
  } else return value as T;
  return undefined;
}

function timestamp(value: unknown, path: string, errors: Issue[]): EpochMs | undefined {
  if (value === undefined || value === null) {
    errors.push({ path, message: "is required" });
    return undefined;
  }
  const parsed = parseTimestamp(value);
  if (parsed.ok) return parsed.ms;
  errors.push({ path, message: parsed.message });
  return undefined;
}

/** Validates one run record; field paths are prefixed with `path` (e.g. `[3]` → `[3].completed_at`). */
export function validateRunRecord(input: unknown, path = ""): Result<NewRunRecord> {
  if (!isPlainObject(input)) return { ok: false, errors: [{ path, message: "must be an object" }] };
  const errors: Issue[] = [];

  let runId: string | undefined;
  if (input.run_id !== undefined && input.run_id !== null) {
    if (typeof input.run_id !== "string" || !UUID_RE.test(input.run_id)) {
      errors.push({ path: at(path, "run_id"), message: "must be a UUID" });
    } else runId = input.run_id.toLowerCase();
  }
  const collector = collectorName(input.collector, at(path, "collector"), errors);
  const account = accountId(input.cloud_account_id, at(path, "cloud_account_id"), errors);
  const region = identifier(
    input.cloud_region,
    MAX_REGION_CHARS,
    REGION_RE,
    REGION_CHARSET,
    at(path, "cloud_region"),
    errors,
  );
  const startedAt = timestamp(input.started_at, at(path, "started_at"), errors);
  const completedAt = timestamp(input.completed_at, at(path, "completed_at"), errors);
  if (startedAt !== undefined && completedAt !== undefined && completedAt < startedAt) {
    errors.push({ path: at(path, "completed_at"), message: "must not be before started_at" });
  }
  const status = oneOf<RunStatus>(input.status, RUN_STATUSES, at(path, "status"), errors);
  const events = requiredUint32(input.events_produced, at(path, "events_produced"), errors);
  const rows = requiredUint32(input.rows_inserted, at(path, "rows_inserted"), errors);

  let error = "";
  if (input.error !== undefined && input.error !== null) {
    if (typeof input.error !== "string")
      errors.push({ path: at(path, "error"), message: "must be a string" });
    else if (charCount(input.error, MAX_RUN_ERROR_CHARS) > MAX_RUN_ERROR_CHARS) {
      // Refused, not cut: the API stores what it was sent or nothing (svcmon cuts before sending).
      errors.push({ path: at(path, "error"), message: `must be at most ${MAX_RUN_ERROR_CHARS} characters` });
    } else error = input.error;
  }

  let duration: number | undefined;
  if (input.duration_ms !== undefined && input.duration_ms !== null) {
    duration = uint32(input.duration_ms, at(path, "duration_ms"), errors);
  } else if (startedAt !== undefined && completedAt !== undefined && completedAt >= startedAt) {
    duration = completedAt - startedAt;
    if (duration > UINT32_MAX) {
      errors.push({
        path: at(path, "duration_ms"),
        message: "defaults to completed_at − started_at, which exceeds 2^32 − 1 ms",
      });
    }
  }

  if (errors.length > 0) return { ok: false, errors };
  const value: NewRunRecord = {
    collector: collector as string,
    cloud_account_id: account as string,
    cloud_region: region as string,
    started_at: startedAt as number,
    completed_at: completedAt as number,
    status: status as RunStatus,
    events_produced: events as number,
    rows_inserted: rows as number,
    error,
    duration_ms: duration as number,
  };
  if (runId !== undefined) value.run_id = runId;
  return { ok: true, value };
}

function requiredUint32(value: unknown, path: string, errors: Issue[]): number | undefined {
  if (value === undefined || value === null) {
    errors.push({ path, message: "is required" });
    return undefined;
  }
  return uint32(value, path, errors);
}

function collectorName(value: unknown, path: string, errors: Issue[]): string | undefined {
  return identifier(value, MAX_COLLECTOR_NAME_CHARS, COLLECTOR_NAME_RE, COLLECTOR_NAME_CHARSET, path, errors);
}

function accountId(value: unknown, path: string, errors: Issue[]): string | undefined {
  return identifier(value, MAX_ACCOUNT_ID_CHARS, ACCOUNT_ID_RE, ACCOUNT_ID_CHARSET, path, errors);
}

/**
 * Validates one record or an array of them, all or nothing: any error rejects the whole batch and
 * every error is reported (`[i].field` for arrays, `field` for a single record). An empty array is
 * valid. Duplicate `run_id`s are not an error (the store keeps one). An array of more than
 * `MAX_RUN_BATCH` records is refused before any record is looked at.
 */
export function validateRunBatch(input: unknown): Result<NewRunRecord[]> {
  if (!Array.isArray(input)) {
    const one = validateRunRecord(input, "");
    return one.ok ? { ok: true, value: [one.value] } : one;
  }
  if (input.length > MAX_RUN_BATCH) {
    return {
      ok: false,
      errors: [{ path: "", message: `must hold at most ${MAX_RUN_BATCH} run records (got ${input.length})` }],
    };
  }
  const values: NewRunRecord[] = [];
  const errors: Issue[] = [];
  input.forEach((item, i) => {
    const r = validateRunRecord(item, at("", i));
    if (r.ok) values.push(r.value);
    else errors.push(...r.errors);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: values };
}

/** An account version to store; `updated_at` is set by the store when absent. */
export interface AccountUpdate {
  account_id: string;
  account_name: string;
  svc_status: AccountStatus;
  updated_at?: EpochMs;
}

export function validateAccountUpdate(input: unknown, path = ""): Result<AccountUpdate> {
  if (!isPlainObject(input)) return { ok: false, errors: [{ path, message: "must be an object" }] };
  const errors: Issue[] = [];
  const id = accountId(input.account_id, at(path, "account_id"), errors);
  let name = bounded(
    text(input.account_name, at(path, "account_name"), errors),
    MAX_ACCOUNT_NAME_CHARS,
    at(path, "account_name"),
    errors,
  );
  if (name !== undefined && CONTROL_RE.test(name)) {
    errors.push({ path: at(path, "account_name"), message: "must not contain control characters" });
    name = undefined;
  }
  const status = oneOf<AccountStatus>(input.svc_status, ACCOUNT_STATUSES, at(path, "svc_status"), errors);
  let updatedAt: EpochMs | undefined;
  if (input.updated_at !== undefined && input.updated_at !== null) {
    updatedAt = timestamp(input.updated_at, at(path, "updated_at"), errors);
  }
  if (errors.length > 0) return { ok: false, errors };
  const value: AccountUpdate = {
    account_id: id as string,
    account_name: name as string,
    svc_status: status as AccountStatus,
  };
  if (updatedAt !== undefined) value.updated_at = updatedAt;
  return { ok: true, value };
}

function positiveMinutes(value: unknown, path: string, errors: Issue[]): number | undefined {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    errors.push({ path, message: "must be a positive integer number of minutes" });
    return undefined;
  }
  if (value > MAX_REGISTRY_MINUTES) {
    errors.push({ path, message: `must be at most ${MAX_REGISTRY_MINUTES} minutes (one year)` });
    return undefined;
  }
  return value;
}

/** `freshness_threshold_minutes` defaults to 60 when absent. */
export function validateCollectorSpec(input: unknown, path = ""): Result<CollectorSpec> {
  if (!isPlainObject(input)) return { ok: false, errors: [{ path, message: "must be an object" }] };
  const errors: Issue[] = [];
  const name = collectorName(input.name, at(path, "name"), errors);
  let interval: number | undefined;
  if (input.expected_interval_minutes === undefined || input.expected_interval_minutes === null) {
    errors.push({ path: at(path, "expected_interval_minutes"), message: "is required" });
  } else {
    interval = positiveMinutes(
      input.expected_interval_minutes,
      at(path, "expected_interval_minutes"),
      errors,
    );
  }
  const threshold =
    input.freshness_threshold_minutes === undefined || input.freshness_threshold_minutes === null
      ? DEFAULT_FRESHNESS_THRESHOLD_MINUTES
      : positiveMinutes(input.freshness_threshold_minutes, at(path, "freshness_threshold_minutes"), errors);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      name: name as string,
      expected_interval_minutes: interval as number,
      freshness_threshold_minutes: threshold as number,
    },
  };
}
