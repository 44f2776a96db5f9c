/**
 * The monitor's registry input: an account version (`PUT /api/system/accounts/{account_id}`) and a
 * collector's spec (`PUT /api/system/collectors/{name}`, the configured collectors), as zod schemas
 * that validate, give the types and document the bodies (docs/monitor-api.md).
 */
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

const specFields = {
  name: collectorNameSchema,
  expected_interval_minutes: minutes(),
  freshness_threshold_minutes: minutes()
    .nullish()
    .transform((v) => v ?? DEFAULT_FRESHNESS_THRESHOLD_MINUTES)
    .meta({ description: `Absent: ${DEFAULT_FRESHNESS_THRESHOLD_MINUTES}.` }),
  max_duration_minutes: minutes().nullish().meta({
    description:
      "The longest a run may take before it counts as hung. Absent or null: learned from the collector's durations, else 2 × the expected interval.",
  }),
};

/** A collector's spec; `freshness_threshold_minutes` defaults to 60 when absent. */
export const CollectorSpecSchema = z.object(specFields, { error: "must be an object" });

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
