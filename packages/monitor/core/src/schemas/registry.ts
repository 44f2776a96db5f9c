/**
 * The monitor's registry input: an account version (`PUT /api/system/accounts/{account_id}`) and a
 * collector's spec (`PUT /api/system/collectors/{name}`, the configured collectors), as zod schemas
 * that validate, give the types and document the bodies (docs/monitor-api.md).
 */
import {
  cronScheduleIssues,
  DEFAULT_BASELINE_RUNS,
  DEFAULT_GRACE_MINUTES,
  DEFAULT_TOO_LONG_FACTOR,
  DEFAULT_TOO_OFTEN_FACTOR,
  DEFAULT_TOO_SHORT_FACTOR,
  MAX_BASELINE_RUNS,
  MAX_CRON_CHARS,
  MAX_DURATION_FACTOR,
  MAX_GRACE_MINUTES,
  MAX_TIMEZONE_CHARS,
  MIN_BASELINE_RUNS,
} from "@monitor/jobs";
import { z } from "zod";
import {
  ACCOUNT_ID_CHARSET,
  ACCOUNT_ID_RE,
  COLLECTOR_NAME_CHARSET,
  COLLECTOR_NAME_RE,
  MAX_ACCOUNT_ID_CHARS,
  MAX_ACCOUNT_NAME_CHARS,
  MAX_COLLECTOR_NAME_CHARS,
  MAX_REGISTRY_MINUTES,
} from "../limits.ts";
import { ACCOUNT_STATUSES, type CollectorSpec, DEFAULT_FRESHNESS_THRESHOLD_MINUTES } from "../records.ts";
import type { Result } from "../result.ts";
import { identifier, issuesOf, oneOf, requiredOr, requiredText, timestamp, unfailed } from "./fields.ts";

const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;

export const accountIdSchema = identifier(MAX_ACCOUNT_ID_CHARS, ACCOUNT_ID_RE, ACCOUNT_ID_CHARSET);
export const collectorNameSchema = identifier(
  MAX_COLLECTOR_NAME_CHARS,
  COLLECTOR_NAME_RE,
  COLLECTOR_NAME_CHARSET,
);

const accountFields = {
  account_id: accountIdSchema,
  account_name: requiredText(MAX_ACCOUNT_NAME_CHARS).refine((v) => !CONTROL_RE.test(v), {
    error: "must not contain control characters",
  }),
  svc_status: oneOf(ACCOUNT_STATUSES),
};

/** An account version to store; `updated_at` is set by the store when absent. */
export const AccountUpdateSchema = z.object(
  { ...accountFields, updated_at: timestamp().nullish() },
  { error: "must be an object" },
);
export type AccountUpdate = {
  account_id: string;
  account_name: string;
  svc_status: z.output<typeof AccountUpdateSchema>["svc_status"];
  updated_at?: number;
};

/** The body of `PUT /api/system/accounts/{account_id}`: the path names the account. */
export const AccountBodySchema = z
  .object({
    ...accountFields,
    account_id: accountIdSchema.optional().meta({ description: "Absent, or the path's." }),
  })
  .meta({ id: "AccountUpdate" });

export function validateAccountUpdate(input: unknown, path = ""): Result<AccountUpdate> {
  const r = AccountUpdateSchema.safeParse(input);
  if (!r.success) return { ok: false, errors: issuesOf(r.error, path) };
  const { updated_at, ...value } = r.data;
  return { ok: true, value: updated_at == null ? value : { ...value, updated_at } };
}

const POSITIVE_MINUTES = "must be a positive integer number of minutes";
const minutes = () =>
  z
    .number({ error: requiredOr(POSITIVE_MINUTES) })
    .refine((v) => Number.isSafeInteger(v) && v >= 1, { error: POSITIVE_MINUTES, when: unfailed })
    .refine((v) => v <= MAX_REGISTRY_MINUTES, {
      error: `must be at most ${MAX_REGISTRY_MINUTES} minutes (one year)`,
      when: unfailed,
    })
    .meta({ type: "integer", minimum: 1, maximum: MAX_REGISTRY_MINUTES });

/** A factor strictly above `low` and at most `high`. */
const factor = (low: number, high: number) =>
  z
    .number({ error: `must be a number above ${low} and at most ${high}` })
    .refine((v) => Number.isFinite(v) && v > low && v <= high, {
      error: `must be a number above ${low} and at most ${high}`,
    })
    .nullish();

const specFields = {
  name: collectorNameSchema,
  expected_interval_minutes: minutes()
    .nullish()
    .meta({ description: "Minutes between runs. Exactly one of this and `schedule`." }),
  freshness_threshold_minutes: minutes()
    .nullish()
    .transform((v) => v ?? DEFAULT_FRESHNESS_THRESHOLD_MINUTES)
    .meta({ description: `Absent: ${DEFAULT_FRESHNESS_THRESHOLD_MINUTES}. Interval collectors only.` }),
  schedule: z.string({ error: "must be a cron expression such as 0 2 * * 1-5" }).nullish().meta({
    maxLength: MAX_CRON_CHARS,
    description:
      "A cron expression (5 fields, or 6 with seconds first), read in `timezone`: the runs the collector is expected to make. Exactly one of this and `expected_interval_minutes`.",
  }),
  timezone: z
    .string({ error: "must be an IANA time zone such as Europe/Berlin" })
    .nullish()
    .meta({ maxLength: MAX_TIMEZONE_CHARS, description: "IANA time zone of `schedule`. Absent: UTC." }),
  grace_minutes: z
    .number({ error: `must be a whole number from 0 to ${MAX_GRACE_MINUTES}` })
    .nullish()
    .meta({
      type: "integer",
      minimum: 0,
      maximum: MAX_GRACE_MINUTES,
      description: `Minutes after an expected run before its absence makes the collector stale. Absent: ${DEFAULT_GRACE_MINUTES}.`,
    }),
  duration_too_long_factor: factor(1, MAX_DURATION_FACTOR).meta({
    description: `A successful run longer than this × the 90th percentile of the ones before it is too long (collector_duration). Absent: ${DEFAULT_TOO_LONG_FACTOR}.`,
  }),
  duration_too_short_factor: factor(0, 1).meta({
    description: `A successful run shorter than this × their median is too short. Absent: ${DEFAULT_TOO_SHORT_FACTOR}.`,
  }),
  runs_too_often_factor: factor(0, 1).meta({
    description: `Runs of one account and region closer than this × the expected gap are too often. Absent: ${DEFAULT_TOO_OFTEN_FACTOR}.`,
  }),
  duration_baseline_runs: z
    .number({ error: `must be a whole number from ${MIN_BASELINE_RUNS} to ${MAX_BASELINE_RUNS}` })
    .refine((v) => Number.isInteger(v) && v >= MIN_BASELINE_RUNS && v <= MAX_BASELINE_RUNS, {
      error: `must be a whole number from ${MIN_BASELINE_RUNS} to ${MAX_BASELINE_RUNS}`,
    })
    .nullish()
    .meta({
      type: "integer",
      minimum: MIN_BASELINE_RUNS,
      maximum: MAX_BASELINE_RUNS,
      description: `Successful runs the baseline is taken over. Absent: ${DEFAULT_BASELINE_RUNS}.`,
    }),
  max_duration_minutes: minutes().nullish().meta({
    description:
      "The longest a run may take before it counts as hung. Absent or null: learned from the collector's durations, else 2 × the expected interval.",
  }),
};

type SpecInput = {
  expected_interval_minutes?: unknown;
  schedule?: unknown;
  timezone?: unknown;
  grace_minutes?: unknown;
};

const given = (v: unknown) => v !== undefined && v !== null;

/**
 * Interval or schedule, exactly one; a schedule's fields checked together (the expression is read in its
 * time zone). Runs even when another field failed, so every problem is listed at once.
 */
function checkCadence(v: SpecInput, ctx: z.RefinementCtx): void {
  const cron = given(v.schedule);
  if (!cron && !given(v.expected_interval_minutes)) {
    ctx.addIssue({
      code: "custom",
      path: ["expected_interval_minutes"],
      message: "is required (or give a cron schedule)",
    });
  }
  if (cron && given(v.expected_interval_minutes)) {
    ctx.addIssue({
      code: "custom",
      path: ["schedule"],
      message: "must not be given with expected_interval_minutes (a collector runs on one or the other)",
    });
  }
  if (!cron) {
    for (const field of ["timezone", "grace_minutes"] as const)
      if (given(v[field]))
        ctx.addIssue({ code: "custom", path: [field], message: "is only read with a schedule" });
    return;
  }
  for (const issue of cronScheduleIssues({
    schedule: v.schedule,
    timezone: v.timezone ?? "UTC",
    graceMinutes: v.grace_minutes ?? DEFAULT_GRACE_MINUTES,
  }))
    ctx.addIssue({ code: "custom", path: [issue.path], message: issue.message });
}

/** The stored shape: an interval collector has no schedule fields; a cron one has all three, defaults filled. */
function normalized(v: z.output<z.ZodObject<typeof specFields>>): CollectorSpec {
  const base = {
    name: v.name,
    freshness_threshold_minutes: v.freshness_threshold_minutes,
    // The duration knobs only when set: an entry without them reads as before.
    ...Object.fromEntries(DURATION_KNOBS.filter((k) => v[k] != null).map((k) => [k, v[k]])),
    ...(v.max_duration_minutes == null ? {} : { max_duration_minutes: v.max_duration_minutes }),
  };
  if (v.schedule === undefined || v.schedule === null)
    return { ...base, expected_interval_minutes: v.expected_interval_minutes ?? null };
  return {
    ...base,
    expected_interval_minutes: null,
    schedule: v.schedule.trim(),
    timezone: v.timezone ?? "UTC",
    grace_minutes: v.grace_minutes ?? DEFAULT_GRACE_MINUTES,
  };
}

/** The knobs of the duration rules, in the order the API lists them. */
export const DURATION_KNOBS = [
  "duration_too_long_factor",
  "duration_too_short_factor",
  "runs_too_often_factor",
  "duration_baseline_runs",
] as const;

/** A collector's spec; `freshness_threshold_minutes` defaults to 60 when absent. */
export const CollectorSpecSchema = z
  .object(specFields, { error: "must be an object" })
  .superRefine(checkCadence, { when: (p) => typeof p.value === "object" && p.value !== null })
  .transform(normalized);

/** The body of `PUT /api/system/collectors/{name}`: the path names the collector. */
export const CollectorSpecBodySchema = z
  .object({
    ...specFields,
    name: collectorNameSchema.optional().meta({ description: "Absent, or the path's." }),
  })
  .meta({ id: "CollectorSpecUpdate" });

export function validateCollectorSpec(input: unknown, path = ""): Result<CollectorSpec> {
  const r = CollectorSpecSchema.safeParse(input);
  if (!r.success) return { ok: false, errors: issuesOf(r.error, path) };
  // An absent max duration stays absent: specs without it read exactly as before.
  const { max_duration_minutes, ...spec } = r.data;
  return { ok: true, value: max_duration_minutes == null ? spec : { ...spec, max_duration_minutes } };
}
