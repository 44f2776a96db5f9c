/**
 * The bodies of the monitor's resource routes: runs, accounts, the collector registry, freshness,
 * silences and the page's failure history (docs/monitor-api.md, docs/monitor-page.md). What the
 * clients send is defined with the rules that check it, in @monitor/core (RunRecordSchema,
 * AccountBodySchema, CollectorSpecBodySchema, SilenceRequestSchema).
 */
import { ACCOUNT_STATUSES, ALERT_RULES, REGISTERED_BY, RUN_STATUSES } from "@monitor/core/vocabulary";
import { z } from "zod";
import { isoOrNull, isoTime } from "./common.ts";
import { AccountCountsSchema, NewAccountSchema, UnscannedAccountSchema } from "./status.ts";

export const RunsStoredSchema = z.object({
  received: z.int(),
  stored: z.int(),
  duplicates: z.array(z.string()).meta({ description: "run_ids already stored (not stored again)." }),
  registered: z
    .array(z.string())
    .meta({ description: "Collectors registered by these runs (first_run); [] when none." }),
});

/** A stored run as `GET /api/system/runs` lists it. */
export const StoredRunSchema = z
  .object({
    run_id: z.string().meta({ format: "uuid" }),
    collector: z.string(),
    cloud_account_id: z.string(),
    cloud_region: z.string(),
    started_at: isoTime(),
    completed_at: isoTime(),
    status: z.enum(RUN_STATUSES),
    events_produced: z.int(),
    rows_inserted: z.int(),
    error: z.string(),
    duration_ms: z.int(),
  })
  .meta({ id: "StoredRun" });

export const RecentRunsSchema = z.object({ collector: z.string(), runs: z.array(StoredRunSchema) });

export const AccountSchema = z
  .object({
    account_id: z.string(),
    account_name: z.string(),
    svc_status: z.enum(ACCOUNT_STATUSES),
    updated_at: isoOrNull(),
  })
  .meta({ id: "Account" });

export const AccountsSchema = z.object({
  generated_at: isoTime(),
  counts: AccountCountsSchema,
  accounts: z.array(AccountSchema),
  warnings: z.array(
    z.object({
      account_id: z.string(),
      account_name: z.string(),
      svc_status: z.enum(["pending_setup", "no_access"]),
    }),
  ),
  unscanned: z.array(UnscannedAccountSchema),
  new_accounts: z.array(NewAccountSchema),
});

export const CollectorSpecSchema = z
  .object({
    name: z.string(),
    expected_interval_minutes: z
      .int()
      .nullable()
      .meta({ description: "Minutes between runs; null for a collector on a cron schedule." }),
    freshness_threshold_minutes: z.int(),
    schedule: z
      .string()
      .nullable()
      .meta({ description: "Cron expression of a collector on a schedule; null for an interval collector." }),
    timezone: z
      .string()
      .nullable()
      .meta({ description: "IANA time zone of the schedule; null without one." }),
    grace_minutes: z.int().nullable().meta({
      description: "Minutes after an expected run before it counts as missed; null without a schedule.",
    }),
    duration_too_long_factor: z.number().nullable().meta({ description: "null: the default, 3." }),
    duration_too_short_factor: z.number().nullable().meta({ description: "null: the default, 0.1." }),
    runs_too_often_factor: z.number().nullable().meta({ description: "null: the default, 0.25." }),
    duration_baseline_runs: z.int().nullable().meta({ description: "null: the default, 20." }),
    max_duration_minutes: z
      .int()
      .nullable()
      .meta({ description: "The longest a run may take before it is hung; null: learned, else a default." }),
  })
  .meta({ id: "CollectorSpec" });

export const RegisteredCollectorSchema = CollectorSpecSchema.extend({
  registered_at: isoOrNull(),
  registered_by: z.enum(REGISTERED_BY).nullable(),
}).meta({ id: "RegisteredCollector" });

export const CollectorsSchema = z.object({ collectors: z.array(RegisteredCollectorSchema) });

export const CollectorDeletedSchema = z.object({ name: z.string(), deleted: z.literal(true) });

export const FreshnessSchema = z.object({
  generated_at: isoTime(),
  collectors: z.array(
    z.object({
      name: z.string(),
      threshold_minutes: z.int(),
      last_run: isoOrNull(),
      minutes: z.int().nullable(),
      status: z.enum(RUN_STATUSES).nullable(),
      error: z.string().nullable(),
    }),
  ),
});

export const SilenceMatchersSchema = z
  .object({
    rule: z.enum(ALERT_RULES).nullable().meta({ description: "An alert rule; null: any." }),
    subject: z
      .object({
        op: z.enum(["eq", "prefix", "regex"]).meta({ description: "regex matches the whole subject." }),
        value: z.string(),
      })
      .nullable()
      .meta({ description: "null: any subject." }),
  })
  .meta({ id: "SilenceMatchers", description: "Both set: both must hold. At least one is set." });

export const SilenceSchema = z
  .object({
    id: z.string(),
    matchers: SilenceMatchersSchema,
    author: z.string(),
    reason: z.string(),
    starts_at: isoTime(),
    ends_at: isoTime(),
    created_at: isoTime(),
    state: z.enum(["active", "pending", "expired"]),
  })
  .meta({ id: "Silence" });

export const SilencesSchema = z.object({ generated_at: isoTime(), silences: z.array(SilenceSchema) });

/** A run in the card's run-history chart. */
export const RunPointSchema = z.object({
  completed_at: isoTime(),
  status: z.enum(RUN_STATUSES),
  duration_ms: z.int().nullable(),
});

export const FailuresSchema = z.object({
  generated_at: isoTime(),
  days: z.array(z.string().meta({ description: "YYYY-MM-DD" })),
  collectors: z.array(
    z.object({
      name: z.string(),
      failures: z.array(z.int()).meta({ description: "Failed runs per day of days." }),
      total: z.int(),
      latest_run: z
        .object({
          status: z.enum(RUN_STATUSES),
          completed_at: isoTime(),
          duration_ms: z.int().nullable(),
          events_produced: z.int(),
          error: z.string(),
        })
        .nullable(),
      recent_runs: z.array(RunPointSchema).meta({ description: "The latest 40 runs, oldest first." }),
    }),
  ),
});
