/**
 * A collector's run record, as `POST /api/system/runs` and the `collector_run` queue message carry
 * it (docs/monitor-api.md): one zod schema that validates, normalises (epoch ms, lower-case run_id,
 * the defaults) and documents it. Unknown extra fields are ignored; for optional fields `null` means
 * absent.
 */
import { z } from "zod";
import {
  ACCOUNT_ID_CHARSET,
  ACCOUNT_ID_RE,
  COLLECTOR_NAME_CHARSET,
  COLLECTOR_NAME_RE,
  MAX_ACCOUNT_ID_CHARS,
  MAX_COLLECTOR_NAME_CHARS,
  MAX_REGION_CHARS,
  MAX_RUN_BATCH,
  MAX_RUN_ERROR_CHARS,
  REGION_CHARSET,
  REGION_RE,
} from "../limits.ts";
import { type NewRunRecord, RUN_STATUSES, UINT32_MAX } from "../records.ts";
import type { Issue, Result } from "../result.ts";
import { identifier, issuesOf, maxChars, oneOf, timestamp, uint32 } from "./fields.ts";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const fields = {
  run_id: z
    .string({ error: "must be a UUID" })
    .refine((v) => UUID_RE.test(v), { error: "must be a UUID" })
    .meta({ format: "uuid", description: "Absent: the store makes one. Sent twice: stored once." })
    .nullish(),
  collector: identifier(MAX_COLLECTOR_NAME_CHARS, COLLECTOR_NAME_RE, COLLECTOR_NAME_CHARSET),
  cloud_account_id: identifier(MAX_ACCOUNT_ID_CHARS, ACCOUNT_ID_RE, ACCOUNT_ID_CHARSET),
  cloud_region: identifier(MAX_REGION_CHARS, REGION_RE, REGION_CHARSET),
  started_at: timestamp(),
  completed_at: timestamp(),
  status: oneOf(RUN_STATUSES),
  events_produced: uint32(),
  rows_inserted: uint32(),
  // Refused, not cut: the API stores what it was sent or nothing (svcmon cuts before sending).
  error: maxChars(z.string({ error: "must be a string" }), MAX_RUN_ERROR_CHARS).nullish(),
  duration_ms: uint32().meta({ description: "Absent: completed_at − started_at." }).nullish(),
};
/** The fields in the order their problems are listed. */
const FIELD_ORDER = Object.keys(fields);

export const RunRecordSchema = z
  .object(fields, { error: "must be an object" })
  .superRefine(
    (v, ctx) => {
      if (typeof v !== "object" || v === null || Array.isArray(v)) return;
      const failed = new Set(ctx.issues.map((i) => i.path?.[0]));
      const time = (k: "started_at" | "completed_at") =>
        !failed.has(k) && typeof v[k] === "number" ? v[k] : undefined;
      const started = time("started_at");
      const completed = time("completed_at");
      if (started === undefined || completed === undefined) return;
      if (completed < started) {
        ctx.addIssue({ code: "custom", path: ["completed_at"], message: "must not be before started_at" });
      } else if (v.duration_ms == null && !failed.has("duration_ms") && completed - started > UINT32_MAX) {
        ctx.addIssue({
          code: "custom",
          path: ["duration_ms"],
          message: "defaults to completed_at − started_at, which exceeds 2^32 − 1 ms",
        });
      }
    },
    // Times are compared even when another field failed: every problem is listed at once.
    { when: () => true },
  )
  .transform((v): NewRunRecord => {
    const record: NewRunRecord = {
      collector: v.collector,
      cloud_account_id: v.cloud_account_id,
      cloud_region: v.cloud_region,
      started_at: v.started_at,
      completed_at: v.completed_at,
      status: v.status,
      events_produced: v.events_produced,
      rows_inserted: v.rows_inserted,
      error: v.error ?? "",
      duration_ms: v.duration_ms ?? v.completed_at - v.started_at,
    };
    if (v.run_id != null) record.run_id = v.run_id.toLowerCase();
    return record;
  })
  .meta({ id: "RunRecord" });

/** What a client sends: one record, or an array of at most `MAX_RUN_BATCH`. */
export const RunBatchSchema = z.union([RunRecordSchema, z.array(RunRecordSchema).max(MAX_RUN_BATCH)]);

/** The run record's wire form (what a collector sends). */
export type RunRecordInput = z.input<typeof RunRecordSchema>;

/** Problems listed by record, then by field in the record's order (the times' comparison under its field). */
const byRecordThenField = (a: Issue, b: Issue) => recordOf(a) - recordOf(b) || fieldRank(a) - fieldRank(b);
const recordOf = (i: Issue): number => Number(/^\[(\d+)\]/.exec(i.path)?.[1] ?? 0);
function fieldRank(i: Issue): number {
  const key = /(?:^|\.)([a-z_]+)$/.exec(i.path)?.[1];
  return key === undefined ? -1 : FIELD_ORDER.indexOf(key);
}

/** A batch is checked in one pass: one error object for all its records, not one per record. */
const RunArraySchema = z.array(RunRecordSchema);

/** Validates one run record; field paths are prefixed with `path` (e.g. `[3]` → `[3].completed_at`). */
export function validateRunRecord(input: unknown, path = ""): Result<NewRunRecord> {
  const r = RunRecordSchema.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  // The times' comparison is listed under its field, not after every other field.
  return { ok: false, errors: issuesOf(r.error, path).sort(byRecordThenField) };
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
  const r = RunArraySchema.safeParse(input);
  return r.success
    ? { ok: true, value: r.data }
    : { ok: false, errors: issuesOf(r.error).sort(byRecordThenField) };
}
