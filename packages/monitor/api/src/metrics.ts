/**
 * `GET /metrics` and `GET /api/system/metrics`: the monitor's state in Prometheus' text exposition
 * format, with prom-client. Nothing here is measured or counted on its own: every sample comes from
 * one status evaluation — the same function, reads and rules as `GET /api/system/status` (the
 * evaluation's parts and the status body it produced) — so the two never disagree. Plus the
 * process's own metrics (prom-client's default metrics: CPU, memory, event loop, GC).
 *
 * Each app has its own `Registry` (not prom-client's global one) for the process metrics; each
 * scrape builds the state gauges in a fresh registry and merges the two, so concurrent scrapes never
 * see each other's half-set values. Names and labels: docs/monitor-api.md#metrics.
 */

import {
  ACCOUNT_STATUSES,
  type CollectorHealth,
  type CollectorSpec,
  type Coverage,
  HEALTH_STATES,
  type Health,
  RUN_STATUSES,
  type StoreHealth,
} from "@monitor/core";
import type { OpenRunState } from "@monitor/jobs";
import type {
  AlertEngineStatusJson,
  CollectorDurations,
  FiringAlertJson,
  StoreSnapshot,
} from "@monitor/runtime";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";

/** What one status evaluation read and decided (the status body is built from it). */
export interface StatusEvaluation {
  now: number;
  specs: readonly CollectorSpec[];
  snapshot: StoreSnapshot;
  db: StoreHealth;
  alerts: readonly FiringAlertJson[];
  health: readonly CollectorHealth[];
  coverage: Coverage;
  overall: Health;
  /** The alert engine's health (the status body's `alert_engine`); absent without a tick store. */
  engine?: AlertEngineStatusJson;
  /** Each collector's durations judged, as the status body gives them (absent: not evaluated). */
  durations?: readonly CollectorDurations[];
  /** Runs started and not ended, judged running or hung (absent: not evaluated). */
  open_runs?: readonly OpenRunState[];
}

const ENGINE_STATES = ["ok", "late", "failing", "never_ran"] as const;

/** The parts of the status body read here (the body is the status endpoint's own answer). */
export interface StatusBodyParts {
  queues?: {
    name: string;
    depth: number | null;
    in_flight: number | null;
    dead_letter_queue: string | null;
    dead_letter_depth: number | null;
    error: string | null;
  }[];
  queues_error?: string;
}

/**
 * Runs the status evaluation (the status handler's own) and hands over its parts and the status
 * body it built, as objects in this process (never an HTTP response parsed back). `evaluation` is
 * undefined when the database could not be read (the body is then the 503 body, which still lists
 * the queues).
 */
export type EvaluateStatus = (
  c: Context,
) => Promise<{ body: StatusBodyParts; evaluation: StatusEvaluation | undefined }>;

export const METRICS_PREFIX = "svcmon_";

const seconds = (ms: number) => ms / 1000;

/** The gauges of one scrape, in a registry of their own. */
function stateRegistry(e: StatusEvaluation | undefined, body: StatusBodyParts): Registry {
  const r = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name: METRICS_PREFIX + name, help, labelNames, registers: [r] });

  const up = gauge(
    "analytics_db_up",
    "1 when the status evaluation could read the analytics database, 0 when it could not (the status endpoint's 503)",
  );
  up.set(e === undefined ? 0 : 1);

  // Queues: read beside the database, so present even when the database is not.
  const queueReadable = gauge("queue_readable", "1 when the queue's health could be read, else 0", ["queue"]);
  const queueDepth = gauge(
    "queue_depth",
    "Messages available in the queue (SQS ApproximateNumberOfMessages)",
    ["queue"],
  );
  const queueInFlight = gauge("queue_in_flight", "Messages received and not yet deleted", ["queue"]);
  const deadLetterDepth = gauge(
    "queue_dead_letter_depth",
    "Messages held by the queue's dead-letter queue (visible + in flight)",
    ["queue", "dead_letter_queue"],
  );
  const queuesReadable = gauge(
    "queues_readable",
    "1 when queue health answered (within the status deadline), 0 when it did not (queues_error)",
  );
  queuesReadable.set(body.queues_error === undefined ? 1 : 0);
  for (const q of body.queues ?? []) {
    queueReadable.set({ queue: q.name }, q.error === null ? 1 : 0);
    if (q.depth !== null) queueDepth.set({ queue: q.name }, q.depth);
    if (q.in_flight !== null) queueInFlight.set({ queue: q.name }, q.in_flight);
    if (q.dead_letter_queue !== null && q.dead_letter_depth !== null)
      deadLetterDepth.set({ queue: q.name, dead_letter_queue: q.dead_letter_queue }, q.dead_letter_depth);
  }
  if (e === undefined) return r;

  const { now, snapshot, db } = e;
  gauge("status_evaluated_timestamp_seconds", "When the status evaluation ran (Unix time)").set(seconds(now));

  // Collectors: every registered one, and any that ran without being registered.
  const lastSuccess = new Map<string, number>();
  for (const s of snapshot.successes)
    lastSuccess.set(s.collector, Math.max(s.last_success_at, lastSuccess.get(s.collector) ?? 0));
  const streak = new Map<string, number>();
  for (const s of snapshot.streaks)
    streak.set(s.collector, Math.max(s.consecutive_failures, streak.get(s.collector) ?? 0));
  const successAge = gauge(
    "collector_last_success_age_seconds",
    "Seconds since the collector's latest succeeded run completed (absent: it never succeeded)",
    ["collector"],
  );
  const runAge = gauge(
    "collector_last_run_age_seconds",
    "Seconds since the collector's latest run completed, whatever its status (absent: it never ran)",
    ["collector"],
  );
  const lastStatus = gauge(
    "collector_last_status",
    "1 for the status of the collector's latest run (succeeded, partial, failed), 0 for the others; absent when it never ran",
    ["collector", "status"],
  );
  const failures = gauge(
    "collector_consecutive_failures",
    "Failed runs in a row, in the account and region where the streak is longest (the status evaluation's window)",
    ["collector"],
  );
  const health = gauge(
    "collector_health",
    "1 for the collector's health on /system (new, green, amber, red), 0 for the others",
    ["collector", "health"],
  );
  for (const h of e.health) {
    const collector = h.name;
    const success = lastSuccess.get(collector);
    if (success !== undefined) successAge.set({ collector }, Math.max(0, seconds(now - success)));
    if (h.last_run !== null) runAge.set({ collector }, Math.max(0, seconds(now - h.last_run)));
    if (h.status !== null)
      for (const s of RUN_STATUSES) lastStatus.set({ collector, status: s }, s === h.status ? 1 : 0);
    failures.set({ collector }, streak.get(collector) ?? 0);
    for (const s of HEALTH_STATES) health.set({ collector, health: s }, s === h.health ? 1 : 0);
  }
  const overall = gauge(
    "overall_health",
    "1 for the overall health (the worst collector's), 0 for the others",
    ["health"],
  );
  for (const s of HEALTH_STATES) overall.set({ health: s }, s === e.overall ? 1 : 0);

  // Durations: each collector's baseline and its latest successful run (no baseline: not exported).
  const baseline = gauge(
    "collector_duration_baseline_seconds",
    "The collector's duration baseline over its successful runs before the latest (quantile 0.5 and 0.9)",
    ["collector", "quantile"],
  );
  const lastDuration = gauge(
    "collector_last_success_duration_seconds",
    "How long the collector's latest successful run took",
    ["collector"],
  );
  for (const d of e.durations ?? []) {
    if (d.baseline !== null) {
      baseline.set({ collector: d.collector, quantile: "0.5" }, seconds(d.baseline.median_ms));
      baseline.set({ collector: d.collector, quantile: "0.9" }, seconds(d.baseline.p90_ms));
    }
    if (d.last_ms !== null) lastDuration.set({ collector: d.collector }, seconds(d.last_ms));
  }
  // Runs started and not ended (POST /api/system/runs/start): both states always present.
  const open = gauge("runs_open", "Runs started without a final record yet, by state (running or hung)", [
    "state",
  ]);
  for (const state of ["running", "hung"] as const)
    open.set({ state }, (e.open_runs ?? []).filter((r) => r.state === state).length);

  // Accounts.
  const accounts = gauge("accounts", "Monitored cloud accounts by their latest svc_status", ["status"]);
  for (const s of ACCOUNT_STATUSES) accounts.set({ status: s }, e.coverage.counts[s] ?? 0);
  gauge("accounts_unscanned", "Accounts the status body lists as unscanned (unscanned_accounts)").set(
    e.coverage.unscanned.length,
  );

  // The analytics database.
  const bytes = (name: string, help: string, v: number | null) => {
    if (v !== null) gauge(name, help).set(v);
  };
  bytes(
    "analytics_db_disk_used_bytes",
    "Bytes on disk of the active parts of all databases",
    db.disk_used_bytes,
  );
  bytes(
    "analytics_db_svc_disk_used_bytes",
    "Bytes on disk of the svc database's active parts",
    db.svc_disk_used_bytes,
  );
  bytes(
    "analytics_db_disk_total_bytes",
    "Total bytes of the database's disks (absent: unreadable)",
    db.disk_total_bytes,
  );
  bytes(
    "analytics_db_disk_free_bytes",
    "Free bytes of the database's disks (absent: unreadable)",
    db.disk_free_bytes,
  );
  bytes("analytics_db_active_queries", "Queries running now (absent: unreadable)", db.active_queries);
  // A gauge, so not `quantile` (a summary's label): `percentile`.
  const latency = gauge(
    "analytics_db_query_latency_seconds",
    "Query latency percentiles (system.query_log over 15 minutes on a server, else this store's own queries)",
    ["percentile", "source"],
  );
  const source = db.sources.query_latency;
  for (const [p, v] of [
    ["p50", db.query_p50_ms],
    ["p95", db.query_p95_ms],
    ["p99", db.query_p99_ms],
  ] as const) {
    if (v !== null) latency.set({ percentile: p, source }, seconds(v));
  }
  gauge("analytics_db_query_samples", "Queries the latency percentiles are taken over").set(db.query_samples);

  // Alerts: the alert engine's stored state, as in the status body. `state` as Alertmanager's own
  // `alertmanager_alerts`: `active` pages someone, `suppressed` is held back by a mute or silence, so
  // a dashboard can count what pages without counting what a person already silenced.
  const firing = gauge("alerts_firing", "Firing alerts by rule, severity and state (active or suppressed)", [
    "rule",
    "severity",
    "state",
  ]);
  const byRule = new Map<string, { rule: string; severity: string; state: string; n: number }>();
  for (const a of e.alerts) {
    const state = a.muted ? "suppressed" : "active";
    const key = `${a.rule}\u0000${a.severity}\u0000${state}`;
    const entry = byRule.get(key) ?? { rule: a.rule, severity: a.severity, state, n: 0 };
    entry.n += 1;
    byRule.set(key, entry);
  }
  for (const { rule, severity, state, n } of byRule.values()) firing.set({ rule, severity, state }, n);

  // The alert engine watched: its last recorded round, from the same read as the status body.
  const engine = e.engine;
  if (engine !== undefined) {
    const state = gauge(
      "alert_engine_state",
      "1 for the alert engine's state (ok, late, failing, never_ran; the status body's alert_engine.state), 0 for the others",
      ["state"],
    );
    for (const s of ENGINE_STATES) state.set({ state: s }, s === engine.state ? 1 : 0);
    if (engine.last_completed_at !== null) {
      gauge(
        "alert_engine_last_tick_timestamp_seconds",
        "When the alert engine's last recorded round completed (Unix time; absent: none recorded)",
      ).set(seconds(Date.parse(engine.last_completed_at)));
      gauge(
        "alert_engine_last_tick_ok",
        "1 when the alert engine's last recorded round succeeded, 0 when it failed",
      ).set(engine.last_error === null ? 1 : 0);
    }
    if (engine.lag_s !== null)
      gauge("alert_engine_lag_seconds", "Seconds since the alert engine's last recorded round completed").set(
        engine.lag_s,
      );
    if (engine.interval_s !== null)
      gauge(
        "alert_engine_interval_seconds",
        "The alert engine's interval between rounds, as it recorded it",
      ).set(engine.interval_s);
  }
  return r;
}

const NOT_COUNTERS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

export interface MetricsRouteDeps {
  /** The `/api/system/*` authentication (bearer token, or a page session for reads). */
  auth: MiddlewareHandler;
  evaluate: EvaluateStatus;
}

/** Registers `GET /metrics` (behind `auth`) and `GET /api/system/metrics` (already behind it). */
export function registerMetrics(app: Hono, deps: MetricsRouteDeps): void {
  // Made at the first scrape: the default metrics start an event-loop monitor and a GC observer,
  // which an app that is never scraped (most tests, a Lambda serving only the page) does not need.
  let own: Registry | undefined;
  const processRegistry = (): Registry => {
    if (own !== undefined) return own;
    own = new Registry();
    collectDefaultMetrics({ register: own });
    // Gauges named like counters, which Prometheus' linter refuses (promtool check metrics); their
    // values are the sums of nodejs_active_handles, nodejs_active_requests, nodejs_active_resources.
    for (const name of NOT_COUNTERS) own.removeSingleMetric(name);
    return own;
  };
  const scrape = async (c: Context) => {
    const processMetrics = processRegistry();
    const { body, evaluation } = await deps.evaluate(c);
    const merged = Registry.merge([processMetrics, stateRegistry(evaluation, body)]);
    // prom-client writes a NaN value as `Nan` (the exposition format spells it `NaN`): the event-loop
    // lag gauges are NaN until the monitor has a sample, as in a scrape within 10 ms of the first.
    const text = (await merged.metrics()).replace(/ Nan$/gm, " NaN");
    c.header("Cache-Control", "no-store");
    return c.body(text, 200, { "Content-Type": merged.contentType });
  };
  app.use("/metrics", deps.auth);
  app.get("/metrics", scrape);
  app.get("/api/system/metrics", scrape);
}
