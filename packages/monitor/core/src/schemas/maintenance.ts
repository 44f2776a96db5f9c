/**
 * The body of `POST /api/system/maintenance` (and `svcmon maintenance add`): a scope, an author and
 * a reason, then either a one-off window (`ends_at`, optional `starts_at`) or a recurring one
 * (`schedule` read in `timezone` with `duration_minutes`). Every problem is listed at once, each
 * naming its field; what depends on the clock and on the windows kept is checked in
 * `parseMaintenanceInput`.
 */
import { cronScheduleIssues, type MaintenanceTiming } from "@monitor/jobs";
import { z } from "zod";
import {
  MAINTENANCE_AUTHOR_MAX,
  MAINTENANCE_MAX_LIVE,
  MAINTENANCE_MAX_ONCE_MS,
  MAINTENANCE_MAX_RECURRING_MINUTES,
  MAINTENANCE_REASON_MAX,
  MAINTENANCE_SCOPE_MAX,
  type MaintenanceScope,
} from "../alerts/maintenance.ts";
import {
  ACCOUNT_ID_CHARSET,
  ACCOUNT_ID_RE,
  COLLECTOR_NAME_CHARSET,
  COLLECTOR_NAME_RE,
  MAX_ACCOUNT_ID_CHARS,
  MAX_COLLECTOR_NAME_CHARS,
} from "../limits.ts";
import type { EpochMs } from "../records.ts";
import { type Issue, isPlainObject, type Result } from "../result.ts";
import { identifier, issuesOf, requiredText, timestamp, unfailed } from "./fields.ts";

const names = (item: z.ZodType<string>) =>
  z
    .array(item, { error: "must be an array of names" })
    .min(1, { error: "must name at least one" })
    .max(MAINTENANCE_SCOPE_MAX, { error: `must name at most ${MAINTENANCE_SCOPE_MAX}` })
    .meta({ maxItems: MAINTENANCE_SCOPE_MAX });

const scopeSchema = z
  .object(
    {
      collectors: names(
        identifier(MAX_COLLECTOR_NAME_CHARS, COLLECTOR_NAME_RE, COLLECTOR_NAME_CHARSET),
      ).optional(),
      accounts: names(identifier(MAX_ACCOUNT_ID_CHARS, ACCOUNT_ID_RE, ACCOUNT_ID_CHARSET)).optional(),
      all: z.literal(true, { error: "must be true" }).optional(),
    },
    { error: "must be an object: {collectors: [...]}, {accounts: [...]} or {all: true}" },
  )
  .strict()
  .superRefine((s, ctx) => {
    const given = [s.collectors, s.accounts, s.all].filter((v) => v !== undefined).length;
    if (given !== 1)
      ctx.addIssue({ code: "custom", message: "must hold exactly one of collectors, accounts or all" });
  })
  .meta({ description: "{collectors: [names]}, {accounts: [ids]} or {all: true}." });

const minutes = z
  .number({ error: "must be a whole number of minutes" })
  .refine(Number.isInteger, { error: "must be a whole number of minutes" })
  .refine((v) => v >= 1 && v <= MAINTENANCE_MAX_RECURRING_MINUTES, {
    error: `must be from 1 to ${MAINTENANCE_MAX_RECURRING_MINUTES} (24 hours)`,
    when: unfailed,
  })
  .meta({ type: "integer", minimum: 1, maximum: MAINTENANCE_MAX_RECURRING_MINUTES });

export const MaintenanceRequestSchema = z
  .object(
    {
      scope: scopeSchema,
      author: requiredText(MAINTENANCE_AUTHOR_MAX),
      reason: requiredText(MAINTENANCE_REASON_MAX),
      starts_at: timestamp().nullish().meta({ description: "One-off: default now." }),
      ends_at: timestamp().nullish().meta({ description: "One-off: at most 30 days ahead." }),
      schedule: z
        .string({ error: "must be a cron expression" })
        .nullish()
        .meta({ description: "Recurring: when each occurrence starts (cron, e.g. 0 2 * * 0)." }),
      timezone: z
        .string({ error: "must be an IANA time zone" })
        .nullish()
        .meta({ description: "Recurring: the schedule's IANA time zone; default UTC." }),
      duration_minutes: minutes.nullish().meta({ description: "Recurring: each occurrence's length." }),
    },
    { error: "must be an object" },
  )
  .meta({ id: "MaintenanceRequest" });

export interface MaintenanceInput {
  scope: MaintenanceScope;
  author: string;
  reason: string;
  timing: MaintenanceTiming;
}

/**
 * Validates a request to create a window (`MaintenanceRequestSchema`), then its timing against `now`
 * (a one-off ends in the future, at most 30 days ahead, after its start; a recurring one has a valid
 * schedule and time zone and a duration) and the bound on windows not over (`live` of them now).
 */
export function parseMaintenanceInput(raw: unknown, now: EpochMs, live = 0): Result<MaintenanceInput> {
  const parsed = MaintenanceRequestSchema.safeParse(raw);
  const errors: Issue[] = parsed.success ? [] : issuesOf(parsed.error);
  let timing: MaintenanceTiming | null = null;
  if (isPlainObject(raw)) {
    const recurring = raw.schedule != null;
    if (recurring) {
      for (const f of ["starts_at", "ends_at"] as const)
        if (raw[f] != null) errors.push({ path: f, message: "is for a one-off window, not with schedule" });
      if (raw.duration_minutes == null)
        errors.push({ path: "duration_minutes", message: "is required with schedule" });
      const timezone = raw.timezone ?? "UTC";
      const issues = cronScheduleIssues({ schedule: raw.schedule, timezone, graceMinutes: 0 });
      errors.push(...issues);
      if (issues.length === 0 && parsed.success && parsed.data.duration_minutes != null)
        timing = {
          kind: "recurring",
          schedule: String(raw.schedule).trim(),
          timezone: String(timezone),
          durationMinutes: parsed.data.duration_minutes,
        };
    } else {
      for (const f of ["timezone", "duration_minutes"] as const)
        if (raw[f] != null) errors.push({ path: f, message: "is for a recurring window, with schedule" });
      const ends = timestamp().safeParse(raw.ends_at);
      const starts =
        raw.starts_at == null ? { success: true as const, data: now } : timestamp().safeParse(raw.starts_at);
      if (raw.ends_at == null) errors.push({ path: "ends_at", message: "is required (or a schedule)" });
      else if (ends.success) {
        const endsAt = ends.data;
        if (endsAt <= now) errors.push({ path: "ends_at", message: "must be in the future" });
        else if (endsAt - now > MAINTENANCE_MAX_ONCE_MS)
          errors.push({ path: "ends_at", message: "must be at most 30 days from now" });
        else if (starts.success && endsAt <= starts.data)
          errors.push({ path: "ends_at", message: "must be after starts_at" });
        else if (starts.success) timing = { kind: "once", startsAt: starts.data, endsAt };
      }
    }
  }
  if (live >= MAINTENANCE_MAX_LIVE)
    errors.push({
      path: "",
      message: `at most ${MAINTENANCE_MAX_LIVE} maintenance windows may be active, pending or recurring; end one first`,
    });
  if (!parsed.success || errors.length > 0 || timing === null) return { ok: false, errors };
  const v = parsed.data;
  const scope: MaintenanceScope =
    v.scope.collectors !== undefined
      ? { collectors: [...new Set(v.scope.collectors)] }
      : v.scope.accounts !== undefined
        ? { accounts: [...new Set(v.scope.accounts)] }
        : { all: true };
  return { ok: true, value: { scope, author: v.author.trim(), reason: v.reason.trim(), timing } };
}
