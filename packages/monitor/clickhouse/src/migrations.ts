/**
 * Versioned schema of the run store. Every statement is idempotent on its own (IF NOT EXISTS, or an
 * aggregate backfill whose states are duplicate-insensitive), so a migration interrupted half-way is
 * simply applied again. Applied versions are recorded in svc.schema_migrations.
 * Design notes: docs/monitor-tables.md.
 */

export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
}

export const MIGRATIONS_BOOTSTRAP: readonly string[] = [
  "CREATE DATABASE IF NOT EXISTS svc",
  `CREATE TABLE IF NOT EXISTS svc.schema_migrations
(
    version UInt32,
    name String,
    applied_at DateTime64(3)
)
ENGINE = ReplacingMergeTree(applied_at)
ORDER BY version`,
];

/** Tuple stored by the "latest run" aggregate states of svc.collector_latest. */
const RUN_TUPLE_TYPE =
  "Tuple(run_id UUID, cloud_account_id String, cloud_region String, status String, error String, " +
  "duration_ms UInt32, events_produced UInt32, rows_inserted UInt32, started_at DateTime64(3), completed_at DateTime64(3))";

const RUN_TUPLE_EXPR =
  "CAST((run_id, cloud_account_id, cloud_region, status, error, duration_ms, events_produced, rows_inserted, " +
  `started_at, completed_at), '${RUN_TUPLE_TYPE}')`;

/**
 * Order of "latest" (docs/monitor-rules.md): completed_at, then started_at, then the worse status
 * counts as later (succeeded < partial < failed), then run_id.
 */
export const LATEST_KEY_EXPR =
  "(completed_at, started_at, multiIf(status = 'failed', 2, status = 'partial', 1, 0), run_id)";
const LATEST_KEY_TYPE = "Tuple(DateTime64(3), DateTime64(3), UInt8, UUID)";

const LATEST_SELECT = `SELECT
    collector,
    cloud_account_id,
    cloud_region,
    max(completed_at) AS last_completed_at,
    max(if(status = 'succeeded', completed_at, toDateTime64(0, 3))) AS last_success_at,
    argMaxState(${RUN_TUPLE_EXPR}, ${LATEST_KEY_EXPR}) AS latest,
    argMaxIfState(${RUN_TUPLE_EXPR}, ${LATEST_KEY_EXPR}, status = 'succeeded') AS latest_success
FROM svc.collector_runs
GROUP BY collector, cloud_account_id, cloud_region`;

const FIRST_ACTIVE_SELECT = `SELECT account_id, min(updated_at) AS first_active_at
FROM svc.cloud_accounts
WHERE svc_status = 'active'
GROUP BY account_id`;

/**
 * Per collector × account × region: the maxima the failure-streak query needs (docs/monitor-tables.md,
 * "Latest state"). Every column is a max, so duplicates and out-of-order inserts give the same answer.
 * latest_key packs LATEST_KEY_EXPR's order into one number (completed ms, started ms, status rank).
 */
const STREAK_SELECT = `SELECT
    collector,
    cloud_account_id,
    cloud_region,
    max(completed_at) AS last_run_at,
    max(toUInt128(toUnixTimestamp64Milli(completed_at)) * 18014398509481984
        + toUInt128(toUnixTimestamp64Milli(started_at)) * 4
        + multiIf(status = 'failed', 2, status = 'partial', 1, 0)) AS latest_key,
    max(if(status = 'succeeded', completed_at, toDateTime64(0, 3))) AS last_success_at,
    max(if(status != 'failed', completed_at, toDateTime64(0, 3))) AS last_non_failed_at
FROM svc.collector_runs
GROUP BY collector, cloud_account_id, cloud_region`;

/**
 * STREAK_SELECT and, per series, the latest succeeded run's key (the same packing as latest_key, 0
 * when none): its started_at is what svc.collector_latest's argMaxIf state gave `resourcesLatest`
 * (docs/monitor-tables.md, "Latest state"). Migration 14's view (svc.collector_series), which
 * replaces two.
 */
const SERIES_SELECT = `SELECT
    collector,
    cloud_account_id,
    cloud_region,
    max(completed_at) AS last_run_at,
    max(toUInt128(toUnixTimestamp64Milli(completed_at)) * 18014398509481984
        + toUInt128(toUnixTimestamp64Milli(started_at)) * 4
        + multiIf(status = 'failed', 2, status = 'partial', 1, 0)) AS latest_key,
    max(if(status = 'succeeded', completed_at, toDateTime64(0, 3))) AS last_success_at,
    max(if(status != 'failed', completed_at, toDateTime64(0, 3))) AS last_non_failed_at,
    max(if(status = 'succeeded',
        toUInt128(toUnixTimestamp64Milli(completed_at)) * 18014398509481984
            + toUInt128(toUnixTimestamp64Milli(started_at)) * 4,
        toUInt128(0))) AS latest_success_key
FROM svc.collector_runs
GROUP BY collector, cloud_account_id, cloud_region`;

/**
 * The started_at (epoch ms) packed in a latest_key / latest_success_key column expression: the key is
 * completed ms · 2⁵⁴ + started ms · 4 + status rank.
 */
export function keyStartedMs(key: string): string {
  return `toInt64(intDiv(${key}, 4) % 4503599627370496)`;
}

/** LATEST_SELECT per collector only: a few rows per part for the per-collector reads. */
const BY_COLLECTOR_SELECT = `SELECT
    collector,
    max(completed_at) AS last_completed_at,
    max(if(status = 'succeeded', completed_at, toDateTime64(0, 3))) AS last_success_at,
    argMaxState(${RUN_TUPLE_EXPR}, ${LATEST_KEY_EXPR}) AS latest,
    argMaxIfState(${RUN_TUPLE_EXPR}, ${LATEST_KEY_EXPR}, status = 'succeeded') AS latest_success
FROM svc.collector_runs
GROUP BY collector`;

/** The failed runs only (about 2 % of the rows): what streaks and the failures chart count. */
const FAILED_SELECT = `SELECT run_id, collector, cloud_account_id, cloud_region, started_at, completed_at, error
FROM svc.collector_runs
WHERE status = 'failed'`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "create_collector_runs",
    statements: [
      `CREATE TABLE IF NOT EXISTS svc.collector_runs
(
    run_id UUID DEFAULT generateUUIDv4(),
    collector LowCardinality(String),
    cloud_account_id String,
    cloud_region LowCardinality(String),
    started_at DateTime64(3),
    completed_at DateTime64(3),
    status LowCardinality(String),
    events_produced UInt32,
    rows_inserted UInt32,
    error String DEFAULT '',
    duration_ms UInt32,
    INDEX idx_run_id run_id TYPE bloom_filter(0.001) GRANULARITY 1,
    CONSTRAINT status_known CHECK status IN ('succeeded', 'failed', 'partial'),
    CONSTRAINT completed_after_started CHECK completed_at >= started_at
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(started_at)
ORDER BY (collector, completed_at, cloud_account_id, cloud_region, run_id)
TTL toDateTime(started_at) + INTERVAL 90 DAY`,
    ],
  },
  {
    version: 2,
    name: "create_cloud_accounts",
    statements: [
      `CREATE TABLE IF NOT EXISTS svc.cloud_accounts
(
    account_id String,
    account_name String,
    svc_status LowCardinality(String),
    updated_at DateTime64(3)
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY account_id`,
    ],
  },
  {
    version: 3,
    name: "collector_latest_view",
    statements: [
      `CREATE TABLE IF NOT EXISTS svc.collector_latest
(
    collector LowCardinality(String),
    cloud_account_id String,
    cloud_region LowCardinality(String),
    last_completed_at SimpleAggregateFunction(max, DateTime64(3)),
    last_success_at SimpleAggregateFunction(max, DateTime64(3)),
    latest AggregateFunction(argMax, ${RUN_TUPLE_TYPE}, ${LATEST_KEY_TYPE}),
    latest_success AggregateFunction(argMaxIf, ${RUN_TUPLE_TYPE}, ${LATEST_KEY_TYPE}, UInt8)
)
ENGINE = AggregatingMergeTree
ORDER BY (collector, cloud_account_id, cloud_region)
TTL toDateTime(last_completed_at) + INTERVAL 90 DAY`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS svc.collector_latest_mv TO svc.collector_latest AS
${LATEST_SELECT}`,
      // Backfill rows stored before the view existed. max/argMax states ignore duplicates, so
      // re-running this (or overlapping with the view) does not change any answer.
      `INSERT INTO svc.collector_latest
${LATEST_SELECT}`,
    ],
  },
  {
    version: 4,
    name: "create_collectors",
    statements: [
      // The collector registry's overrides (PUT /api/system/collectors/{name}); the latest
      // updated_at per name wins (argMax on read, ReplacingMergeTree collapses on merge).
      `CREATE TABLE IF NOT EXISTS svc.collectors
(
    name String,
    expected_interval_minutes UInt32,
    freshness_threshold_minutes UInt32,
    updated_at DateTime64(3)
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY name`,
    ],
  },
  {
    version: 5,
    name: "create_alert_state",
    statements: [
      // The alert engine's state (plain JSON, docs/monitor-alerts.md): one row per key ("monitor");
      // the highest version wins (argMax on read, ReplacingMergeTree collapses on merge).
      `CREATE TABLE IF NOT EXISTS svc.alert_state
(
    key String,
    state String,
    version UInt64,
    updated_at DateTime64(3)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY key`,
    ],
  },
  {
    version: 6,
    name: "create_notification_attempts",
    statements: [
      // Every delivery attempt of every notification on every channel (@shared/notify's DeliveryLog,
      // docs/notifications.md): an append-only log read by notification id, so it leads the key.
      `CREATE TABLE IF NOT EXISTS svc.notification_attempts
(
    notification_id String,
    channel LowCardinality(String),
    attempt UInt32,
    at DateTime64(3),
    ok Bool,
    error Nullable(String),
    duration_ms UInt32,
    recorded_at DateTime64(3) DEFAULT now64(3)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(at)
ORDER BY (notification_id, at, attempt, channel)
TTL toDateTime(at) + INTERVAL 90 DAY`,
    ],
  },
  {
    version: 7,
    name: "create_resources",
    statements: [
      // The resource inventory written by the config_* collectors (docs/monitor-tables.md): one row
      // per observation; the latest state is argMax over observed_at per key (merges keep the newest).
      `CREATE TABLE IF NOT EXISTS svc.resources
(
    resource_id String,
    resource_type LowCardinality(String),
    arn String DEFAULT '',
    cloud_account_id String,
    cloud_region LowCardinality(String),
    tags Map(String, String),
    attributes String DEFAULT '{}',
    observed_at DateTime64(3, 'UTC'),
    run_id UUID,
    collector LowCardinality(String)
)
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (cloud_account_id, cloud_region, resource_type, resource_id)
TTL toDateTime(observed_at) + INTERVAL 90 DAY`,
    ],
  },
  {
    version: 8,
    name: "create_hierarchy_and_cost",
    statements: [
      // The resource hierarchy and the cost tables (docs/monitor-cost.md). A build of one account and
      // region is recorded here; only the rows of the latest build count (a resource missing from it
      // is gone), the latest build being max(built_at).
      `CREATE TABLE IF NOT EXISTS svc.hierarchy_builds
(
    cloud_account_id String,
    cloud_region LowCardinality(String),
    built_at DateTime64(3, 'UTC'),
    resources UInt32
)
ENGINE = ReplacingMergeTree(built_at)
ORDER BY (cloud_account_id, cloud_region)
TTL toDateTime(built_at) + INTERVAL 90 DAY`,
      // One row per resource per build, collapsed to the newest build by merges.
      `CREATE TABLE IF NOT EXISTS svc.resource_hierarchy
(
    cloud_account_id String,
    cloud_region LowCardinality(String),
    resource_type LowCardinality(String),
    resource_id String,
    arn String DEFAULT '',
    node String,
    rule LowCardinality(String),
    untagged_service_reason String DEFAULT '',
    built_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(built_at)
ORDER BY (cloud_account_id, cloud_region, resource_type, resource_id)
TTL toDateTime(built_at) + INTERVAL 90 DAY`,
      // Cost report lines. A partition is one billing period of one payer account: a re-delivered
      // report replaces its partition (ALTER TABLE ... REPLACE PARTITION from a validated staging table).
      `CREATE TABLE IF NOT EXISTS svc.cost_line_items
(
    billing_period Date,
    payer_account_id String,
    usage_account_id String,
    line_item_id String DEFAULT '',
    line_item_type LowCardinality(String),
    usage_start DateTime64(3, 'UTC'),
    day Date,
    product_code LowCardinality(String),
    service_code LowCardinality(String) DEFAULT '',
    resource_id String DEFAULT '',
    unblended_cost Decimal(38, 10),
    currency LowCardinality(String),
    tags Map(LowCardinality(String), String),
    source_file String,
    source_row UInt64,
    ingested_at DateTime64(3, 'UTC')
)
ENGINE = MergeTree
PARTITION BY (toYYYYMM(billing_period), payer_account_id)
ORDER BY (usage_account_id, day, resource_id)`,
      // Cost per hierarchy node per day (node '' = outside any node, with its reason), derived from
      // the lines of the same partition and replaced with them.
      `CREATE TABLE IF NOT EXISTS svc.cost_node_daily
(
    billing_period Date,
    payer_account_id String,
    day Date,
    node String,
    outside_reason LowCardinality(String),
    currency LowCardinality(String),
    cost Decimal(38, 10),
    lines UInt64,
    computed_at DateTime64(3, 'UTC')
)
ENGINE = MergeTree
PARTITION BY (toYYYYMM(billing_period), payer_account_id)
ORDER BY (node, day, outside_reason, currency)`,
      // Resources of the cost lines that look like the service's own but lack svc:purpose.
      `CREATE TABLE IF NOT EXISTS svc.cost_untagged_service
(
    billing_period Date,
    payer_account_id String,
    usage_account_id String,
    resource_id String,
    reason String,
    last_day Date
)
ENGINE = MergeTree
PARTITION BY (toYYYYMM(billing_period), payer_account_id)
ORDER BY (usage_account_id, resource_id)`,
      // The latest ingest of each partition.
      `CREATE TABLE IF NOT EXISTS svc.cost_reports
(
    billing_period Date,
    payer_account_id String,
    files Array(String),
    lines UInt64,
    first_day Date,
    last_day Date,
    ingested_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY (billing_period, payer_account_id)`,
    ],
  },
  {
    version: 9,
    name: "create_resource_events",
    statements: [
      // The ingest consumer's log of the collectors' events (docs/monitor-tables.md). Queues deliver at
      // least once: the key ends with the event's content id, so a duplicate that got past the
      // consumer's check collapses on merge (reads use FINAL). Partitioned by the observation, which
      // duplicates share, so they always meet in one partition.
      `CREATE TABLE IF NOT EXISTS svc.resource_events
(
    event_id String,
    kind LowCardinality(String),
    collector LowCardinality(String),
    account_id String,
    region LowCardinality(String),
    resource_type LowCardinality(String),
    resource_id String,
    observed_at DateTime64(3, 'UTC'),
    attributes String DEFAULT '{}',
    received_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (account_id, region, resource_type, resource_id, observed_at, event_id)
TTL toDateTime(received_at) + INTERVAL 30 DAY`,
    ],
  },
  {
    version: 10,
    name: "create_collector_registrations",
    statements: [
      // When the registry first knew each collector (docs/monitor-tables.md): the start of a new
      // collector's grace, so it must survive restarts and re-registrations. A row is written only for
      // a name without one, and reads take the earliest (min / argMin), so a second row from a race
      // between two processes changes nothing. Plain MergeTree: no merge may drop the earliest row.
      `CREATE TABLE IF NOT EXISTS svc.collector_registrations
(
    name String,
    registered_at DateTime64(3),
    registered_by LowCardinality(String)
)
ENGINE = MergeTree
ORDER BY (name, registered_at)`,
      // Collectors stored by PUT before this table existed: registered at their earliest surviving
      // override (merges of svc.collectors keep only the latest). Reads take the earliest row, so
      // running this again changes nothing that matters.
      `INSERT INTO svc.collector_registrations (name, registered_at, registered_by)
SELECT name, min(updated_at), 'api' FROM svc.collectors GROUP BY name`,
    ],
  },
  {
    version: 11,
    name: "account_first_active_view",
    statements: [
      // When each account was first known as active: the start of the grace of a never-scanned
      // account (docs/monitor-rules.md). svc.cloud_accounts cannot tell: its merges keep only the
      // latest version. The view keeps the earliest active updated_at, which merges never move.
      `CREATE TABLE IF NOT EXISTS svc.account_first_active
(
    account_id String,
    first_active_at SimpleAggregateFunction(min, DateTime64(3))
)
ENGINE = AggregatingMergeTree
ORDER BY account_id`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS svc.account_first_active_mv TO svc.account_first_active AS
${FIRST_ACTIVE_SELECT}`,
      // Backfill what svc.cloud_accounts still holds (min ignores duplicates: re-running is harmless).
      `INSERT INTO svc.account_first_active
${FIRST_ACTIVE_SELECT}`,
    ],
  },
  {
    version: 12,
    name: "notification_attempts_muted",
    statements: [
      // A notification held back by a mute is recorded too (muted, not sent: channel '*', attempt 0):
      // what muted it and why (docs/notifications.md, "The delivery log"). Empty on real attempts.
      `ALTER TABLE svc.notification_attempts
    ADD COLUMN IF NOT EXISTS muted_by Nullable(String) AFTER duration_ms,
    ADD COLUMN IF NOT EXISTS muted_reason Nullable(String) AFTER muted_by`,
    ],
  },
  {
    version: 13,
    name: "collector_streaks_and_failed_runs",
    statements: [
      `CREATE TABLE IF NOT EXISTS svc.collector_latest_by_collector
(
    collector LowCardinality(String),
    last_completed_at SimpleAggregateFunction(max, DateTime64(3)),
    last_success_at SimpleAggregateFunction(max, DateTime64(3)),
    latest AggregateFunction(argMax, ${RUN_TUPLE_TYPE}, ${LATEST_KEY_TYPE}),
    latest_success AggregateFunction(argMaxIf, ${RUN_TUPLE_TYPE}, ${LATEST_KEY_TYPE}, UInt8)
)
ENGINE = AggregatingMergeTree
ORDER BY collector
TTL toDateTime(last_completed_at) + INTERVAL 90 DAY`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS svc.collector_latest_by_collector_mv TO svc.collector_latest_by_collector AS
${BY_COLLECTOR_SELECT}`,
      `CREATE TABLE IF NOT EXISTS svc.collector_streaks
(
    collector LowCardinality(String),
    cloud_account_id String,
    cloud_region LowCardinality(String),
    last_run_at SimpleAggregateFunction(max, DateTime64(3)),
    latest_key SimpleAggregateFunction(max, UInt128),
    last_success_at SimpleAggregateFunction(max, DateTime64(3)),
    last_non_failed_at SimpleAggregateFunction(max, DateTime64(3))
)
ENGINE = AggregatingMergeTree
ORDER BY (collector, cloud_account_id, cloud_region)
TTL toDateTime(last_run_at) + INTERVAL 90 DAY`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS svc.collector_streaks_mv TO svc.collector_streaks AS
${STREAK_SELECT}`,
      `CREATE TABLE IF NOT EXISTS svc.collector_failed_runs
(
    run_id UUID,
    collector LowCardinality(String),
    cloud_account_id String,
    cloud_region LowCardinality(String),
    started_at DateTime64(3),
    completed_at DateTime64(3),
    error String
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(started_at)
ORDER BY (collector, completed_at, cloud_account_id, cloud_region, run_id)
TTL toDateTime(started_at) + INTERVAL 90 DAY`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS svc.collector_failed_runs_mv TO svc.collector_failed_runs AS
${FAILED_SELECT}`,
      // Backfills. max states ignore duplicates, and every read of collector_failed_runs counts
      // distinct run_ids, so re-running these (or overlapping with the views) changes no answer.
      `INSERT INTO svc.collector_latest_by_collector
${BY_COLLECTOR_SELECT}`,
      `INSERT INTO svc.collector_streaks
${STREAK_SELECT}`,
      `INSERT INTO svc.collector_failed_runs
${FAILED_SELECT}`,
    ],
  },
  {
    version: 14,
    name: "collector_series_one_view",
    statements: [
      // svc.collector_latest's view cost more per INSERT than the other three together (argMax
      // states of the whole run, per series). svc.collector_series replaces it and svc.collector_streaks
      // with one view: the streak maxima, and the latest success's key for the reads that used
      // svc.collector_latest (the per-account last success, the latest success's started_at).
      `CREATE TABLE IF NOT EXISTS svc.collector_series
(
    collector LowCardinality(String),
    cloud_account_id String,
    cloud_region LowCardinality(String),
    last_run_at SimpleAggregateFunction(max, DateTime64(3)),
    latest_key SimpleAggregateFunction(max, UInt128),
    last_success_at SimpleAggregateFunction(max, DateTime64(3)),
    last_non_failed_at SimpleAggregateFunction(max, DateTime64(3)),
    latest_success_key SimpleAggregateFunction(max, UInt128)
)
ENGINE = AggregatingMergeTree
ORDER BY (collector, cloud_account_id, cloud_region)
TTL toDateTime(last_run_at) + INTERVAL 90 DAY`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS svc.collector_series_mv TO svc.collector_series AS
${SERIES_SELECT}`,
      // Backfill after the view exists: no insert is missed in between (max ignores duplicates, so
      // running it again, or overlapping with the view, changes nothing).
      `INSERT INTO svc.collector_series
${SERIES_SELECT}`,
      "DROP VIEW IF EXISTS svc.collector_streaks_mv",
      "DROP VIEW IF EXISTS svc.collector_latest_mv",
      "DROP TABLE IF EXISTS svc.collector_streaks",
      "DROP TABLE IF EXISTS svc.collector_latest",
    ],
  },
  {
    version: 15,
    name: "per_collector_latest_from_series",
    statements: [
      // The per-collector reads (latest run, latest success) now take the highest key of each
      // collector from svc.collector_series and read that run from svc.collector_runs by its primary
      // key: one part and one view less per INSERT (about 5 ms each at 59 M rows), the same answers
      // (latest-state.test.ts). No data moves: svc.collector_series already holds the keys.
      "DROP VIEW IF EXISTS svc.collector_latest_by_collector_mv",
      "DROP TABLE IF EXISTS svc.collector_latest_by_collector",
    ],
  },
  {
    version: 16,
    name: "collector_cron_schedules",
    statements: [
      // A collector on a cron schedule instead of an interval: its expression, time zone and grace.
      // '' (the default) is an interval collector, so every stored override keeps its meaning; a
      // cron collector stores expected_interval_minutes 0 (it has none).
      "ALTER TABLE svc.collectors ADD COLUMN IF NOT EXISTS schedule String DEFAULT ''",
      "ALTER TABLE svc.collectors ADD COLUMN IF NOT EXISTS timezone String DEFAULT ''",
      "ALTER TABLE svc.collectors ADD COLUMN IF NOT EXISTS grace_minutes UInt32 DEFAULT 0",
    ],
  },
  {
    version: 17,
    name: "collector_duration_knobs",
    statements: [
      // The duration rules' knobs per collector; 0 (the default) stands for "unset: the rule's default".
      "ALTER TABLE svc.collectors ADD COLUMN IF NOT EXISTS duration_too_long_factor Float64 DEFAULT 0",
      "ALTER TABLE svc.collectors ADD COLUMN IF NOT EXISTS duration_too_short_factor Float64 DEFAULT 0",
      "ALTER TABLE svc.collectors ADD COLUMN IF NOT EXISTS runs_too_often_factor Float64 DEFAULT 0",
      "ALTER TABLE svc.collectors ADD COLUMN IF NOT EXISTS duration_baseline_runs UInt32 DEFAULT 0",
    ],
  },
  {
    version: 18,
    name: "create_engine_ticks",
    statements: [
      // Every round of the alert engine, written after it completed (docs/monitor-alerts.md "The
      // monitor watched"): the status endpoint, another process, reads the latest to tell a late or
      // failing engine. One row a minute per engine; a week is more than any reader needs.
      `CREATE TABLE IF NOT EXISTS svc.engine_ticks
(
    tick_at DateTime64(3),
    completed_at DateTime64(3),
    duration_ms UInt32,
    ok Bool,
    error Nullable(String),
    claimant String,
    interval_ms UInt32
)
ENGINE = MergeTree
ORDER BY (completed_at, claimant)
TTL toDateTime(completed_at) + INTERVAL 7 DAY`,
    ],
  },
  {
    version: 19,
    name: "run_starts_and_max_duration",
    statements: [
      // Run starts (POST /api/system/runs/start), paired with svc.collector_runs by run_id on read
      // (docs/monitor-tables.md, "Run starts"). The first start of a run_id wins: `keep` falls as
      // starts arrive, so merges (the highest `keep`) and reads (argMax by it) keep the first. A
      // start older than 7 days is ignored by the reads; the TTL drops it a day later.
      `CREATE TABLE IF NOT EXISTS svc.run_starts
(
    run_id UUID,
    collector LowCardinality(String),
    cloud_account_id String,
    cloud_region LowCardinality(String),
    started_at DateTime64(3),
    keep UInt64
)
ENGINE = ReplacingMergeTree(keep)
ORDER BY run_id
TTL toDateTime(started_at) + INTERVAL 8 DAY`,
      `ALTER TABLE svc.collectors
    ADD COLUMN IF NOT EXISTS max_duration_minutes Nullable(UInt32)`,
    ],
  },
];
