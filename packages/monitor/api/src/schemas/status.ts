/**
 * The status body (`GET /api/system/status`, `GET /api/v1/system/status`), which the /system page
 * renders too: collector health, account coverage, the analytics database, queues, firing alerts,
 * triage and the service's own cost. docs/monitor-api.md.
 */
import { ACCOUNT_STATUSES, REGISTERED_BY, RUN_STATUSES } from "@monitor/core/vocabulary";
import { z } from "zod";
import { HealthSchema, isoOrNull, isoTime } from "./common.ts";
import { MaintenanceWindowSchema } from "./maintenance.ts";

export const DurationStatusSchema = z
  .object({
    baseline: z
      .object({ runs: z.int(), median_ms: z.number(), p90_ms: z.number() })
      .nullable()
      .meta({ description: "Over the successful runs before the latest one; null below 5 of them." }),
    last_ms: z.number().nullable().meta({ description: "The latest successful run's duration." }),
    verdict: z.enum(["no_baseline", "normal", "too_long", "too_short", "too_often"]),
    detail: z
      .string()
      .nullable()
      .meta({ description: "Why it is not normal (also a warning, and collector_duration)." }),
  })
  .meta({ id: "DurationStatus" });

export const CollectorStatusSchema = z
  .object({
    name: z.string(),
    last_run: isoOrNull("null: never ran."),
    status: z.enum(RUN_STATUSES).nullable(),
    minutes_ago: z
      .int()
      .nullable()
      .meta({ description: "Whole minutes since its last run; null: never ran." }),
    health: HealthSchema,
    registered_at: isoOrNull(
      "When the registry first knew the collector; kept across restarts and re-registrations.",
    ),
    new_until: isoOrNull(
      "While health is new: the end of its grace; with no run by then, red. Otherwise null.",
    ),
    registered_by: z
      .enum(REGISTERED_BY)
      .nullable()
      .meta({
        description:
          "How it came into the registry: config (configured), api (PUT /api/system/collectors/{name}), " +
          "first_run (registered by the first run of an unknown collector, with the deployment's defaults: " +
          "AUTO_REGISTER_INTERVAL_MINUTES, AUTO_REGISTER_FRESHNESS_MINUTES; adjust it with PUT or remove it with DELETE). null: unknown.",
      }),
    schedule: z.string().nullable().meta({
      description:
        "A cron collector's schedule and time zone (`0 2 * * 1-5 Europe/Berlin`); null: an interval collector.",
    }),
    next_expected_run: isoOrNull("A cron collector's next expected run; null for an interval collector."),
    duration: DurationStatusSchema,
    in_maintenance: z.literal(true).optional().meta({
      description: "Present while a maintenance window covering it is in effect (its alerts are muted).",
    }),
  })
  .meta({ id: "CollectorStatus" });

/** Accounts per status (`active`, `pending_setup`, `no_access`). */
export const AccountCountsSchema = z.object(
  Object.fromEntries(ACCOUNT_STATUSES.map((s) => [s, z.int()])) as Record<
    (typeof ACCOUNT_STATUSES)[number],
    z.ZodInt
  >,
);

export const AnalyticsDbSchema = z
  .object({
    disk_used_gb: z.number(),
    query_p95_ms: z.number(),
    source: z.object({ disk: z.string(), query_latency: z.string() }),
    query_p50_ms: z.number().nullable(),
    query_p99_ms: z.number().nullable(),
    query_samples: z.number(),
    active_queries: z.number().nullable(),
    disk_total_gb: z.number().nullable(),
    disk_free_gb: z.number().nullable(),
    svc_disk_used_gb: z.number().nullable(),
    disk_used_ratio: z
      .number()
      .nullable()
      .meta({ description: "Used fraction (0..1) of the disk holding the data; null when unknown." }),
  })
  .meta({ id: "AnalyticsDb" });

export const UnscannedAccountSchema = z.object({
  account_id: z.string(),
  account_name: z.string(),
  last_scanned_at: isoOrNull("Its latest succeeded run of any collector; null: never."),
});

export const NewAccountSchema = z
  .object({
    account_id: z.string(),
    account_name: z.string(),
    first_active_at: isoTime(),
    new_until: isoTime(),
  })
  .meta({
    id: "NewAccount",
    description:
      "An active account never scanned, within 24 h of its first active version: not unscanned yet.",
  });

export const WarningSchema = z.object({
  kind: z.enum(["collector", "account", "unregistered_collector"]),
  subject: z.string(),
  message: z.string(),
});

const fingerprint = z.string().regex(/^[0-9a-f]{16}$/);

export const MutedBySchema = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("alert"), rule: z.string(), subject: z.string(), fingerprint }),
    z.object({
      kind: z.literal("silence"),
      id: z.string(),
      author: z.string(),
      reason: z.string(),
      endsAt: z.int().meta({ description: "When the silence ends (epoch ms)." }),
    }),
    z.object({
      kind: z.literal("maintenance"),
      id: z.string(),
      author: z.string(),
      reason: z.string(),
      endsAt: z.int().meta({ description: "When the window's current occurrence ends (epoch ms)." }),
    }),
  ])
  .meta({
    id: "MutedBy",
    description:
      "What holds a muted alert back: another alert that is its cause (kind alert; e.g. an account in no_access mutes the collector failures in it), a silence (kind silence; notified when it ends if still firing), or a maintenance window (kind maintenance: in maintenance; notified when it ends if still firing).",
  });

export const AlertSchema = z
  .object({
    rule: z.string(),
    subject: z.string(),
    severity: z.enum(["warning", "critical"]),
    since: isoTime().meta({ description: "When it started firing." }),
    notified: z.boolean().meta({ description: "Its start notification was confirmed delivered." }),
    fingerprint: fingerprint.meta({
      description: "The stable key its notifications carry (a hash of rule and subject).",
    }),
    summary: z.string().meta({ description: "One line: why it fires." }),
    last_error: z.string().nullable().meta({
      description: "The last error text of the failing collector behind it; null when none is known.",
    }),
    muted: z.boolean().meta({ description: "Held back: stored and shown here, never notified while muted." }),
    muted_by: MutedBySchema.nullable(),
    reason: z.string().nullable().meta({ description: "Why it is muted, in words; null when not muted." }),
  })
  .meta({
    id: "Alert",
    description:
      "A firing alert of the alert engine's stored state, muted ones included (docs/monitor-alerts.md).",
  });

export const TriageSubjectSchema = z.object({
  cloud_account_id: z.string(),
  cloud_region: z.string(),
  consecutive_failures: z.int(),
  last_status: z.string(),
  last_run_at: isoTime(),
  last_success_at: isoOrNull(),
});

export const TriageSchema = z
  .object({
    collector: z.string(),
    health: z.enum(["red", "amber"]),
    reasons: z.array(z.string()),
    since: isoOrNull(
      "Its last success, else its registration or its earliest run; null when neither is known.",
    ),
    last_success_at: isoOrNull(),
    last_error: z.string().nullable(),
    last_error_at: isoOrNull(),
    at_fault: z.array(TriageSubjectSchema).meta({
      description: "The accounts and regions whose latest run did not succeed, most failures first.",
    }),
    runs: z.object({ href: z.string(), command: z.string() }),
  })
  .meta({
    id: "Triage",
    description: "A red or amber collector (red first): where it fails, since when, why.",
  });

export const QueueStatusSchema = z
  .object({
    name: z.string(),
    depth: z.int().nullable(),
    in_flight: z.int().nullable(),
    dead_letter_queue: z.string().nullable(),
    dead_letter_depth: z.int().nullable(),
    status: z.string(),
    error: z.string().nullable(),
    source: z.string(),
    read_at: isoTime(),
  })
  .meta({ id: "QueueStatus" });

/** The queues, read beside the database under their own deadline (present in the 503 body too). */
export const QueuesPartSchema = z.object({
  queues: z.array(QueueStatusSchema),
  queues_error: z.string().optional().meta({ description: "Why the queues could not be read." }),
});

const currencyAmount = z.number();
export const OwnCostSchema = z
  .object({
    currency: z.string().nullable(),
    month_to_date: currencyAmount,
    last_30_days_total: currencyAmount,
    daily: z.array(z.object({ day: z.string(), cost: currencyAmount })),
    other_currencies: z.array(z.object({ currency: z.string(), month_to_date: currencyAmount })),
    node: z.string(),
    untagged_service_resources: z.array(
      z.object({
        cloud_account_id: z.string(),
        cloud_region: z.string(),
        resource_id: z.string(),
        resource_type: z.string(),
        reason: z.string(),
        source: z.enum(["inventory", "cost_report"]),
      }),
    ),
    outside_any_node: z.object({
      currency: z.string().nullable(),
      month_to_date: currencyAmount,
      last_30_days_total: currencyAmount,
      by_reason: z.array(
        z.object({ reason: z.string(), month_to_date: currencyAmount, last_30_days_total: currencyAmount }),
      ),
    }),
    as_of: isoOrNull("When the latest cost report was ingested."),
    data_through: z.string().nullable().meta({ description: "The latest usage day (YYYY-MM-DD)." }),
  })
  .meta({ id: "OwnCost", description: "The service's own cost (docs/monitor-cost.md)." });

export const AlertEngineStatusSchema = z
  .object({
    last_tick_at: isoOrNull("When the round recorded last started; null: none recorded."),
    last_completed_at: isoOrNull("When it ended (succeeded or failed)."),
    lag_s: z
      .int()
      .nullable()
      .meta({ description: "Seconds from last_completed_at to generated_at; null: none recorded." }),
    interval_s: z
      .number()
      .nullable()
      .meta({ description: "The engine's interval between rounds, as it recorded it." }),
    state: z.enum(["ok", "late", "failing", "never_ran"]).meta({
      description:
        "never_ran: no round recorded; late: the last round completed more than 3 × interval_s ago (the loop is not running; wins over failing); " +
        "failing: the last round, in time, failed (last_error); ok. late and failing make overall_health at least amber.",
    }),
    last_error: z
      .string()
      .nullable()
      .meta({ description: "Why the last round failed; null when it did not." }),
  })
  .meta({
    id: "AlertEngineStatus",
    description:
      "The alert engine's own health, from the round it recorded last (docs/monitor-alerts.md, The monitor watched).",
  });
export const OpenRunSchema = z
  .object({
    run_id: z.string().meta({ format: "uuid" }),
    collector: z.string(),
    cloud_account_id: z.string(),
    cloud_region: z.string(),
    state: z
      .enum(["running", "hung"])
      .meta({ description: "hung: started longer ago than its max duration." }),
    started_at: isoTime(),
    elapsed_ms: z.int().min(0),
    max_duration_ms: z.int().min(0),
    max_duration_source: z.enum(["set", "learned", "default"]).meta({
      description:
        "set: the collector's max_duration_minutes; learned: from its duration baseline; default: 2 × its expected interval (docs/monitor-rules.md).",
    }),
  })
  .meta({ id: "OpenRun", description: "A run that has started and not ended (no final record yet)." });

export const StatusSchema = z
  .object({
    collectors: z.array(CollectorStatusSchema),
    accounts: AccountCountsSchema,
    analytics_db: AnalyticsDbSchema,
    generated_at: isoTime(),
    overall_health: HealthSchema.meta({
      description:
        "The worst collector health, new counting below green: waiting for first runs never makes the system unhealthy (new only when every collector is new). " +
        "At least amber while the alert engine is late or failing (alert_engine.state).",
    }),
    unscanned_accounts: z.array(UnscannedAccountSchema),
    new_accounts: z.array(NewAccountSchema),
    warnings: z.array(WarningSchema),
    alerts: z.array(AlertSchema),
    triage: z.array(TriageSchema),
    open_runs: z.array(OpenRunSchema).meta({
      description:
        "Runs started (POST /api/system/runs/start) without a final record yet, oldest start first; starts older than 7 days are left out.",
    }),
    ...QueuesPartSchema.shape,
    own_cost: OwnCostSchema.nullable()
      .optional()
      .meta({ description: "Only with a cost store; null when it could not be read (own_cost_error)." }),
    own_cost_error: z.string().optional(),
    alert_engine: AlertEngineStatusSchema.optional().meta({
      description:
        "Where the alert engine records its rounds; absent otherwise (or when unreadable: alert_engine_error).",
    }),
    alert_engine_error: z
      .string()
      .optional()
      .meta({ description: "Why the alert engine's rounds could not be read." }),
    maintenance: z
      .array(MaintenanceWindowSchema)
      .optional()
      .meta({ description: "Only with a maintenance store: the windows in effect now." }),
  })
  .meta({ id: "Status" });

/** The 503 answer: the database could not be read; the queues still are. */
export const StatusUnavailableSchema = z
  .object({
    error: z.object({ code: z.literal("analytics_db_unavailable"), message: z.string() }),
    analytics_db: z.object({ status: z.literal("unreachable"), error: z.string() }),
    generated_at: isoTime(),
    ...QueuesPartSchema.shape,
  })
  .meta({ id: "StatusUnavailable" });

export type StatusBody = z.infer<typeof StatusSchema>;
export type StatusUnavailableBody = z.infer<typeof StatusUnavailableSchema>;
