/**
 * The ports of the monitor: every interface its rules, runtime and apps depend on, declared here so
 * the core can name them (as packages/relevance/settings/src/ports.ts does for the relevance half). Types only,
 * no I/O. Adapters (ClickHouse/chDB, SQS, the embedded SQLite queue, AWS, in-memory doubles) import
 * these; this package never imports an adapter. Times are epoch milliseconds.
 *
 * The notification ports (`Channel`, `DeliveryLog`, `Notification`) are owned by `@shared/notify`,
 * which is shared with producers outside the monitor.
 */
import type { AlertState, MaintenanceWindow, Silence } from "./alerts/index.ts";
import type { AccountStatus, CollectorSpec, RegisteredBy, RunStatus } from "./records.ts";
import type { ResourceRow } from "./resource-row.ts";

// ---- Run store: the collectors' runs and the monitored accounts ----

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

/** A stored run record: every field present, `run_id` and `error` filled in. */
export type CollectorRunRow = Required<CollectorRunInput>;

/** A version of a monitored account; the latest `updated_at` wins. */
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
  /** Error text of the latest `failed` run inside the window ("" when none); absent when not read. */
  last_error?: string;
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

/**
 * The health of the run store, as the status body's `analytics_db` and the disk rule read it. Each
 * adapter measures what it can and says where each figure came from in `sources`.
 */
export interface StoreHealth {
  /** Bytes the store's data takes on disk, of every database the store's engine holds. */
  disk_used_bytes: number;
  /** The same, for the monitor's own data only. */
  svc_disk_used_bytes: number;
  /** The disk holding the data: its size and the bytes still free to the store. Null when not readable. */
  disk_total_bytes: number | null;
  disk_free_bytes: number | null;
  /** Queries running now except the one asking; null when not readable. */
  active_queries: number | null;
  /**
   * Query latency: of the queries the store's server finished in the last 15 minutes when it keeps
   * such a log, otherwise of this store's own queries, measured client-side. `sources.query_latency`
   * says which.
   */
  query_p50_ms: number | null;
  query_p95_ms: number | null;
  query_p99_ms: number | null;
  /** Queries the percentiles are taken over. */
  query_samples: number;
  /**
   * Where each figure came from, named by the adapter (the ClickHouse adapter's names are in
   * @monitor/clickhouse, CLICKHOUSE_HEALTH_SOURCES); the status body and the /system page show them
   * as they are (docs/monitor-api.md).
   */
  sources: StoreHealthSources;
}

export interface StoreHealthSources {
  disk: string;
  active_queries: string;
  query_latency: string;
}

/** A run's start as handed to the store (`POST /api/system/runs/start`); every field required. */
export interface RunStartRow {
  run_id: string;
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  started_at: number;
}

export interface RunStore {
  /** Apply pending versioned migrations (idempotent). Returns the versions applied by this call. */
  migrate(): Promise<number[]>;
  /** All-or-nothing: every row is validated before anything is written; a stored run_id is not stored again. */
  insertRuns(rows: readonly CollectorRunInput[]): Promise<InsertRunsResult>;
  upsertAccount(row: CloudAccountRow): Promise<void>;
  latestRunPerCollector(): Promise<LatestRunRow[]>;
  lastSuccessPerCollector(): Promise<LastSuccessRow[]>;
  /**
   * One row per collector × account × region whose last run is at or after `sinceMs`. With
   * `failingOnly`, only those whose latest run did not succeed: the others have 0 failures in a row
   * and carry nothing the status, triage, metrics or alert rules use (docs/monitor-api.md).
   */
  consecutiveFailuresPerCollectorAccountRegion(
    sinceMs: number,
    opts?: { failingOnly?: boolean },
  ): Promise<FailureStreakRow[]>;
  accountsLatest(): Promise<CloudAccountRow[]>;
  lastSucceededRunPerAccount(sinceMs: number): Promise<AccountLastSuccessRow[]>;
  /** Dense: one row per known collector per UTC day (oldest first), zero-filled. */
  failuresPerCollectorPerDay(days?: number, nowMs?: number): Promise<FailuresPerDayRow[]>;
  /** The health of the store itself: disk, running queries, query latency. */
  dbHealth(): Promise<StoreHealth>;
  /** The latest runs of one collector, newest first (at most `limit`, default 20, at most 200). */
  recentRuns(
    collector: string,
    opts?: { limit?: number; cloud_account_id?: string; cloud_region?: string },
  ): Promise<CollectorRunRow[]>;
  /**
   * Stores run starts; a run_id already started keeps its first start (a resend changes nothing).
   * Validated like runs: a bad row and nothing of the call is written.
   */
  recordStarts(starts: readonly RunStartRow[]): Promise<void>;
  /**
   * The starts at or after `sinceMs` that have no run record of the same run_id: the runs still
   * running (or hung). Newest start first, at most `limit` (default and most: MAX_OPEN_RUNS_READ).
   */
  openStarts(sinceMs: number, opts?: { limit?: number }): Promise<RunStartRow[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// ---- Collector registry ----

/**
 * The collector registry: the configured collectors, overridable at run time through
 * `PUT /api/system/collectors/{name}`. Overrides are persisted, so a restart keeps them.
 *
 * Every collector carries its registration (`registered_at`, `registered_by`): when the registry
 * first knew it. That starts the grace of a collector that never ran (`new`), so it is stored beside
 * the overrides and neither a restart nor a second registration moves it.
 */
export interface CollectorRegistry {
  /**
   * Every collector: configured ones with their overrides applied, plus collectors added by PUT. A
   * collector listed for the first time is registered by this call.
   */
  list(): Promise<CollectorSpec[]>;
  get(name: string): Promise<CollectorSpec | null>;
  /** Creates or replaces one collector's intervals; registers it if it was not yet. */
  put(spec: CollectorSpec): Promise<void>;
  /**
   * Adds a collector the registry does not know, with `spec`'s intervals, registered now and marked
   * `by` (auto-registration: `first_run`). A known collector (configured, put, or registered before)
   * is left as it is. Resolves true when it added the collector.
   */
  registerIfAbsent(spec: CollectorSpec, by: RegisteredBy): Promise<boolean>;
  /**
   * Removes a collector and its registration (`DELETE /api/system/collectors/{name}`). A configured
   * collector cannot be removed (the configuration would bring it back): `configured`, nothing
   * changed. Its runs stay; a later run of an unknown collector registers it again.
   */
  delete(name: string): Promise<CollectorDeleteOutcome>;
}

export type CollectorDeleteOutcome = "deleted" | "not_found" | "configured";

// ---- Collectors and the runtime clock ----

export interface CollectorAccount {
  account_id: string;
  account_name: string;
  /** When given, only `active` accounts are scanned. */
  svc_status?: AccountStatus;
}

export interface CollectorContext {
  account: { account_id: string; account_name: string };
  region: string;
  /** Aborted when the run times out (or the runtime stops); pass it to every network call. */
  signal: AbortSignal;
  /** The runtime's clock (epoch ms). */
  now(): number;
  /**
   * The run_id of the run record the runtime will write (the Scheduler always sets it), so rows the
   * collector writes can name their run. Absent when a collector is called outside a scheduler.
   */
  run_id?: string;
}

/** What a collector reports. Throwing (or rejecting) means the run failed. */
export interface CollectorResult {
  status: "succeeded" | "partial";
  events_produced: number;
  rows_inserted: number;
  /** For `partial`: what was missed. */
  error?: string;
}

export interface Collector {
  readonly name: string;
  run(ctx: CollectorContext): Promise<CollectorResult>;
}

/** Injectable time: tests pass a fake clock. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

// ---- Alert state ----

export interface AlertStateStore {
  /** The stored state, or `emptyState()` when none was saved. */
  load(): Promise<AlertState>;
  /** Replaces the stored state; a later save always wins over an earlier one. */
  save(state: AlertState): Promise<void>;
}

// ---- Ended `/system` page sessions ----

/**
 * The page sessions ended by a logout, kept where every instance reads them (SQLite in DATA_DIR for
 * the embedded stack, an item per session in the alerts' DynamoDB table on AWS), so a copy of the
 * cookie taken before the logout is refused everywhere and after a restart. A session is kept until
 * the time its cookie expires anyway; no more than that is ever needed.
 */
export interface EndedSessionStore {
  /** Records that session `id` ended; kept at least until `expiresAt` (epoch ms). Idempotent. */
  end(id: string, expiresAt: number): Promise<void>;
  /** Whether session `id` was ended (a record past its `expiresAt` may be forgotten). */
  ended(id: string): Promise<boolean>;
  /** Forgets sessions whose cookie expired before `before`; returns how many (0 where the store expires them itself). */
  prune(before: number): Promise<number>;
}

// ---- Silences ----

/**
 * Where silences are kept: beside the alert state (SQLite in DATA_DIR for the embedded stack, in
 * memory for tests). Ended silences are kept (listed with their end) until `prune`.
 */
export interface SilenceStore {
  /** Adds a silence; false (and nothing changed) when its id exists. */
  create(silence: Silence): Promise<boolean>;
  /** Every kept silence, by `createdAt` then `id`. */
  list(): Promise<Silence[]>;
  /**
   * Ends the silence at `at` (its `endsAt` becomes `at` if later; a pending one also starts at `at`).
   * Returns it as now stored, or null when no silence has that id. Expiring an ended one changes nothing.
   */
  expire(id: string, at: number): Promise<Silence | null>;
  /** Removes silences that ended before `before`; returns how many. */
  prune(before: number): Promise<number>;
}

// ---- Maintenance windows ----

/**
 * Where maintenance windows are kept, beside the silences (SQLite in DATA_DIR for the embedded stack,
 * one item of the alerts' transitions table on AWS, in memory for tests). A port of its own rather
 * than more of `SilenceStore`: a window has a scope and a timing (one-off or recurring) where a
 * silence has matchers and two instants, and ending one sets `endedAt` rather than moving `endsAt`.
 * Windows over are kept (listed, and their end still anchors freshness) until `prune`.
 */
export interface MaintenanceStore {
  /** Adds a window; false (and nothing changed) when its id exists. */
  create(window: MaintenanceWindow): Promise<boolean>;
  /** Every kept window, by `createdAt` then `id`. */
  list(): Promise<MaintenanceWindow[]>;
  /**
   * Ends the window at `at` (its `endedAt` becomes `at`, or stays when earlier). Returns it as now
   * stored, or null when no window has that id.
   */
  end(id: string, at: number): Promise<MaintenanceWindow | null>;
  /** Removes windows over before `before` (ended early, or a one-off past its end); returns how many. */
  prune(before: number): Promise<number>;
}

// ---- Status changes as rows, claimed before sending (docs/monitor-alerts.md "Transitions") ----

/**
 * One row of the transitions table: a status change of an alert (`flip`, history) or a notification
 * owed to the channels (`notification`, claimed before it is sent). Plain JSON.
 */
export interface Transition {
  /**
   * Idempotency key. A flip: `flip|<rule>|<subject>|<episode>|<to>`; a notification: its intent id
   * (content-derived, so the same items emitted again, by a retry or by another evaluator, share it).
   */
  id: string;
  /**
   * `flip`: a status change (history). `notification`: a message owed to the channels. `delivery`: one
   * alert's item in a notification (`delivery|<item identity>`), claimed before it is sent, so a
   * notification grouped differently by another evaluator never sends the same item twice.
   */
  kind: "flip" | "notification" | "delivery";
  rule: string;
  /** The alert's subject (a notification of several alerts: `<n> subjects`). */
  subject: string;
  /** When it was recorded (epoch ms). */
  at: number;
  /** The flip or the notification intent, as JSON. */
  data: unknown;
}

export interface TransitionRow extends Transition {
  /** Who holds (or last held) the claim; null when never claimed. */
  claimedBy: string | null;
  /** The claim is held until then (epoch ms); after it another sender may claim it again. */
  leaseUntil: number | null;
  /** When it was confirmed sent; null until then. */
  sentAt: number | null;
  /** When it was retired unsent (its items were re-emitted in a newer notification); null if not. */
  retiredAt: number | null;
}

export type ClaimResult =
  | { ok: true }
  /** `sent`: already sent (by anyone); otherwise `heldBy` holds a live lease. */
  | { ok: false; sent: boolean; heldBy: string | null };

export type PutStateResult = { ok: true; version: number } | { ok: false; conflict: true; version: number };

/**
 * Where the alert engine keeps its status changes and notifications as rows and its state under
 * optimistic concurrency (healthchecks' Flip and Notification). Every write is conditional: in
 * DynamoDB a `ConditionExpression`, in SQLite one transaction, in memory a synchronous check.
 */
export interface TransitionStore {
  /** Adds the row if its id is new (true); an existing id is left as it is (false). */
  record(t: Transition): Promise<boolean>;
  /**
   * Takes the row for sending until `now + leaseMs`. Succeeds for exactly one caller while the row is
   * unsent and not under another claimant's live lease; the same claimant may claim again. An unknown
   * id fails (`sent: false, heldBy: null`).
   */
  claim(id: string, claimant: string, now: number, leaseMs: number): Promise<ClaimResult>;
  /** Confirms the row sent; only its current claimant may (false otherwise). */
  markSent(id: string, claimant: string, now: number): Promise<boolean>;
  /** Gives a claim back (the send failed): claimable again at once. Only its claimant may. */
  release(id: string, claimant: string): Promise<boolean>;
  /**
   * The notification will not be sent under this id: its items were re-emitted in a newer one (a
   * retry grouped differently). Leaves `unsent`; false when it was sent (or is unknown, or retired).
   */
  retire(id: string, now: number): Promise<boolean>;
  /** Notifications not sent, not retired and not under a live lease at `now`, oldest first. */
  unsent(now: number): Promise<TransitionRow[]>;
  /** Rows recorded at or after `since`, oldest first (`kind` filters). */
  list(opts?: { since?: number; kind?: Transition["kind"]; limit?: number }): Promise<TransitionRow[]>;
  get(id: string): Promise<TransitionRow | null>;
  /** The alert state and its version (0 and `emptyState()` when none was saved). */
  readState(): Promise<{ state: AlertState; version: number }>;
  /**
   * Saves `state` if the stored version is still `expectedVersion` (the new version is that + 1);
   * otherwise nothing is written and the result is a conflict with the stored version.
   */
  putState(state: AlertState, expectedVersion: number): Promise<PutStateResult>;
}

// ---- Queue health ----

export interface QueueHealth {
  /** The queue's name (SQS: the last segment of its URL). */
  name: string;
  /** Which adapter read it, e.g. `sqs` or `embedded-sqlite`. */
  source: string;
  /** When it was read (epoch ms). */
  read_at: number;
  /** Messages available for retrieval (SQS ApproximateNumberOfMessages); null when unreadable. */
  depth: number | null;
  /** Messages received and not yet deleted (ApproximateNumberOfMessagesNotVisible); null when unreadable. */
  in_flight: number | null;
  /** The queue's dead-letter queue; null when it has none (or when the queue itself could not be read). */
  dead_letter_queue: string | null;
  /** Messages held by the dead-letter queue (visible + in flight); null when there is none or it is unreadable. */
  dead_letter_depth: number | null;
  /** Why something above could not be read; null when everything was. */
  error: string | null;
}

export interface QueueHealthSource {
  /** The queues this source reports, known without I/O (a failed read still names them). */
  readonly queues: readonly string[];
  /**
   * One entry per queue of `queues`, in that order. A queue that cannot be read becomes an entry with
   * `error` set; the promise rejects only on a bug, never because a queue is unreadable.
   */
  read(signal?: AbortSignal): Promise<QueueHealth[]>;
}

// ---- Event queue ----

/**
 * The collectors' event queue, as two small ports: collectors only send (`EventQueue`), the ingest
 * consumer only receives and acknowledges (`ConsumableQueue`). Semantics are SQS's: a received message
 * is invisible for the visibility timeout and comes back unless acknowledged; a queue with a redrive
 * policy moves a message to its dead-letter queue once it was received `maxReceives` times.
 */
export interface EventQueue {
  /** Sends one message per body (a batch); resolves to the number the queue accepted. */
  send(bodies: readonly string[], signal?: AbortSignal): Promise<number>;
}

export interface ReceivedMessage {
  message_id: string;
  body: string;
  /** Handle of this receipt: acknowledging with an older receipt does nothing. */
  receipt: string;
  /** Times received, this one included (SQS ApproximateReceiveCount). */
  receive_count: number;
  /** Epoch ms the message was sent. */
  sent_at: number;
}

export interface ReceiveOptions {
  /** At most this many messages. */
  max: number;
  /** Received messages stay invisible this long unless acknowledged. */
  visibilityTimeoutMs: number;
}

export interface ConsumableQueue {
  receive(opts: ReceiveOptions): Promise<ReceivedMessage[]>;
  /** Deletes the messages of these receipts; resolves to how many were deleted (stale receipts: none). */
  ack(receipts: readonly string[]): Promise<number>;
}

// ---- Resource events ----

export interface ResourceEvent {
  kind: "resource_observed";
  /** The collector that observed it, e.g. `config_ec2`. */
  collector: string;
  account_id: string;
  region: string;
  /** e.g. `ec2_instance`, `ebs_volume`, `vpc`, `hierarchy_node`. */
  resource_type: string;
  resource_id: string;
  /** Epoch ms of the observation. */
  observed_at: number;
  /** What the collector saw, as plain JSON. */
  attributes: Record<string, unknown>;
}
export interface StoredResourceEvent extends ResourceEvent {
  /** `resourceEventId(event)`. */
  event_id: string;
  /** Epoch ms the store received it (the first time). */
  received_at: number;
}

export interface AppendResult {
  /** Events stored by this call. */
  stored: number;
  /** Events already stored, or repeated within the call: not stored again. */
  duplicates: number;
}

export interface ResourceEventFilter {
  account_id?: string;
  resource_id?: string;
  /** Default 1000. */
  limit?: number;
}

export interface ResourceEventStore {
  /**
   * Stores the events not stored yet, all or nothing: a batch with an invalid event is refused with
   * RunStoreValidationError (naming the event's index and field) and stores nothing.
   */
  append(events: readonly ResourceEvent[]): Promise<AppendResult>;
  /** Stored events, each once: the newest observation first, then by account, region, type, resource, id. */
  list(filter?: ResourceEventFilter): Promise<StoredResourceEvent[]>;
}

// ---- Resource inventory (svc.resources) and the hierarchy ----

/** Where simulated collectors write their rows (the count becomes `rows_inserted`). */
export interface RowSink {
  write(table: string, rows: readonly Record<string, unknown>[]): Promise<number>;
}

export interface HierarchyRow {
  cloud_account_id: string;
  cloud_region: string;
  resource_type: string;
  resource_id: string;
  arn: string;
  node: string;
  /** What placed it: `svc:purpose`, `rules[i]` or `unassigned`. */
  rule: string;
  /** Non-empty when the resource looks like the service's own but lacks svc:purpose. */
  untagged_service_reason: string;
}

/** What the hierarchy builder needs (ClickHouseHierarchyStore; tests can pass another). */
export interface HierarchyStore {
  /**
   * The latest state of every resource of the account and region that the latest succeeded run of
   * its collector saw (observed at or after that run started).
   */
  latestResources(accountId: string, region: string): Promise<ResourceRow[]>;
  /** Writes one build: its rows, then its record (so a reader never sees a build without rows). */
  writeBuild(
    accountId: string,
    region: string,
    builtAt: number,
    rows: readonly HierarchyRow[],
  ): Promise<number>;
  /** The rows of the latest build of every account and region. */
  latestHierarchy(opts?: { untaggedOnly?: boolean }): Promise<(HierarchyRow & { built_at: number })[]>;
}

// ---- The collector runtime ----

export interface RuntimeLogEvent {
  level: "debug" | "info" | "warn" | "error";
  msg: string;
  collector?: string;
  account?: string;
  region?: string;
  run_id?: string;
}

/** The regions to scan in one account. */
export type RegionSource = (account: CollectorAccount) => Promise<readonly string[]>;

// ---- The alert engine's own ticks ----

/**
 * One round of the alert engine, written after it completed (docs/monitor-alerts.md "The monitor
 * watched"). Times are epoch ms.
 */
export interface EngineTick {
  /** When the round started. */
  tick_at: number;
  /** When it ended, whether it succeeded or not. */
  completed_at: number;
  duration_ms: number;
  /** False: the round threw (the store unreachable, the state not saved...); `error` says why. */
  ok: boolean;
  error: string | null;
  /** The engine that ran it (`AlertEngine.claimant`). */
  claimant: string;
  /** The engine's interval between rounds, so a reader elsewhere can tell a late engine. */
  interval_ms: number;
}

/**
 * The alert engine's rounds, kept where the status endpoint (another process, another Lambda) reads
 * them: svc.engine_ticks (7 days) in ClickHouse, process memory in tests.
 */
export interface EngineTickStore {
  record(tick: EngineTick): Promise<void>;
  /** The round completed last (highest `completed_at`) of any engine; null when none was recorded. */
  latest(): Promise<EngineTick | null>;
}
