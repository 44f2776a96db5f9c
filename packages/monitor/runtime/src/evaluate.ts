/**
 * The status, freshness and coverage answers, computed by the pure rules of `@monitor/core` from the
 * run store's aggregate rows (the store never hands out raw runs). The rules take runs, so this module
 * rebuilds the smallest set of runs that carries exactly the evidence the rules look at (see
 * docs/monitor-api.md, "How the answers are computed"):
 *
 * - per collector: its latest run (a real row) and its latest `succeeded` run;
 * - per (collector, account, region) whose latest run did not succeed: its trailing streak of
 *   `failed` runs inside the window;
 * - per account: its latest `succeeded` run of any collector.
 *
 * Evidence runs carry `started_at = 0`, so on an equal `completed_at` they always order before the
 * store's real latest run and never take its place as "latest".
 */
import {
  type AccountLastSuccessRow,
  type AccountRecord,
  type AlertInput,
  type AlertState,
  alertFingerprint,
  type CloudAccountRow,
  CONSECUTIVE_FAILURES_THRESHOLD,
  type CollectorHealth,
  type CollectorRunRow,
  type CollectorSpec,
  type Coverage,
  cadenceMinutes,
  collectorsHealth,
  coverage,
  type FailureStreakRow,
  type FreshnessAnchorFn,
  type FreshnessEntry,
  freshnessList,
  HOUR_MS,
  type LastSuccessRow,
  type LatestRunRow,
  MINUTE_MS,
  type QueueHealth,
  type RunRecord,
  type RunStartRow,
  type RunStore,
  type StoreHealth,
  UNSCANNED_WINDOW_HOURS,
} from "@monitor/core";
import {
  type DurationBaseline,
  MAX_OPEN_RUN_MS,
  type MaxDurationSpec,
  type OpenRunState,
  openRunStates,
} from "@monitor/jobs";
import { deadLetterDepths, deadLetterUnread } from "@monitor/queues";
import { judgeCollectorDurations, readRecentRuns, recentBaselines } from "./durations.ts";

/** Floor of the failure-streak window: 24 h. */
export const MIN_STREAK_WINDOW_MS = 24 * HOUR_MS;

/**
 * The window of `consecutiveFailuresPerCollectorAccountRegion`: the larger of 24 h and
 * (3 + 1) × the largest expected interval (a cron collector's longest gap between expected runs), so a
 * streak of 3 failed runs on schedule always fits.
 */
export function streakWindowMs(specs: readonly CollectorSpec[], now: number): number {
  const largest = Math.max(0, ...specs.map((s) => cadenceMinutes(s, now)));
  return Math.max(MIN_STREAK_WINDOW_MS, (CONSECUTIVE_FAILURES_THRESHOLD + 1) * largest * MINUTE_MS);
}

/** What the store said, read once per request. */
export interface StoreSnapshot {
  latest: LatestRunRow[];
  successes: LastSuccessRow[];
  streaks: FailureStreakRow[];
  accounts: CloudAccountRow[];
  /** Latest `succeeded` run per account, all time (`lastSucceededRunPerAccount(0)`). */
  scans: AccountLastSuccessRow[];
  /** Each collector's latest runs, newest first (the durations' judgement reads them). */
  recent?: Record<string, CollectorRunRow[]>;
  /** Starts without a final record, within MAX_OPEN_RUN_HOURS (`openStarts`); absent: not read. */
  open?: RunStartRow[];
  /**
   * Each collector's duration baseline, by name, for the learned max duration of its open runs.
   * Absent or a collector missing: none (the set max duration or the default applies).
   */
  baselines?: ReadonlyMap<string, DurationBaseline | null>;
}

/**
 * The open runs of a snapshot as running or hung at `now` (docs/monitor-rules.md, "Running and hung
 * runs"): against each collector's max_duration_minutes, else its learned limit, else the default.
 */
export function evaluateOpenRuns(
  specs: readonly CollectorSpec[],
  s: Pick<StoreSnapshot, "open" | "baselines">,
  now: number,
): OpenRunState[] {
  const bySpec = new Map<string, MaxDurationSpec>(specs.map((sp) => [sp.name, sp]));
  return openRunStates(s.open ?? [], bySpec, s.baselines ?? new Map(), now);
}

function evidence(
  collector: string,
  account: string,
  region: string,
  completedAt: number,
  status: RunRecord["status"],
  id: string,
): RunRecord {
  return {
    run_id: id,
    collector,
    cloud_account_id: account,
    cloud_region: region,
    started_at: 0,
    completed_at: completedAt,
    status,
    events_produced: 0,
    rows_inserted: 0,
    error: "",
    duration_ms: 0,
  };
}

/** The runs the health and freshness rules need, rebuilt from the aggregates (real latest runs first). */
export function evidenceRuns(s: Pick<StoreSnapshot, "latest" | "successes" | "streaks">): RunRecord[] {
  const runs: RunRecord[] = [...s.latest];
  const latestOf = new Map(s.latest.map((r) => [r.collector, r]));
  for (const ok of s.successes) {
    runs.push(
      evidence(
        ok.collector,
        ok.cloud_account_id,
        ok.cloud_region,
        ok.last_success_at,
        "succeeded",
        ok.run_id,
      ),
    );
  }
  for (const st of s.streaks) {
    const latest = latestOf.get(st.collector);
    // The collector's real latest run is already in the list; when it ends this subject's streak, it
    // counts as one of the failures.
    const latestInStreak =
      latest !== undefined &&
      latest.status === "failed" &&
      latest.cloud_account_id === st.cloud_account_id &&
      latest.cloud_region === st.cloud_region &&
      latest.completed_at === st.last_run_at;
    const n = st.consecutive_failures - (latestInStreak ? 1 : 0);
    for (let i = 0; i < n; i++) {
      runs.push(
        evidence(
          st.collector,
          st.cloud_account_id,
          st.cloud_region,
          st.last_run_at,
          "failed",
          `streak-${i}-${JSON.stringify([st.collector, st.cloud_account_id, st.cloud_region])}`,
        ),
      );
    }
  }
  return runs;
}

/** `anchor`: where freshness counts from after a maintenance window (`freshnessAnchors`); absent, the last success. */
export function evaluateHealth(
  specs: readonly CollectorSpec[],
  s: Pick<StoreSnapshot, "latest" | "successes" | "streaks">,
  now: number,
  anchor?: FreshnessAnchorFn,
): CollectorHealth[] {
  return collectorsHealth(specs, evidenceRuns(s), now, undefined, anchor);
}

export function evaluateFreshness(
  specs: readonly CollectorSpec[],
  latest: readonly LatestRunRow[],
  now: number,
): FreshnessEntry[] {
  return freshnessList(specs, latest, now);
}

/**
 * Coverage from the store's latest account versions. The store has already picked the latest version,
 * so `updated_at` is clamped to `now` (a version written a few ms "ahead", see the account PUT, must
 * not make its account disappear).
 */
export function evaluateCoverage(
  accounts: readonly CloudAccountRow[],
  scans: readonly AccountLastSuccessRow[],
  now: number,
): Coverage {
  const current: AccountRecord[] = accounts.map((a) => ({
    account_id: a.account_id,
    account_name: a.account_name,
    svc_status: a.svc_status,
    updated_at: Math.min(a.updated_at, now),
  }));
  // The first active version, as evidence for the grace of a never-scanned account. It is never
  // later than the latest version, so it never takes its place (clamped to `now` like it).
  for (const a of accounts) {
    if (a.first_active_at === undefined || a.first_active_at === null) continue;
    current.push({
      account_id: a.account_id,
      account_name: a.account_name,
      svc_status: "active",
      updated_at: Math.min(a.first_active_at, a.updated_at, now),
    });
  }
  const runs = scans.map((sc) =>
    evidence("*", sc.cloud_account_id, "*", sc.last_success_at, "succeeded", `scan-${sc.cloud_account_id}`),
  );
  return coverage(current, runs, now, UNSCANNED_WINDOW_HOURS);
}

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const GB = 1e9;
const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
const gb = (bytes: number | null) => (bytes === null ? null : round(bytes / GB, 6));

/** `analytics_db` of the status body: its two original numbers first, then what the page also shows. */
export function analyticsDb(h: StoreHealth) {
  return {
    disk_used_gb: gb(h.disk_used_bytes) as number,
    query_p95_ms: h.query_p95_ms ?? 0,
    source: { disk: h.sources.disk, query_latency: h.sources.query_latency },
    query_p50_ms: h.query_p50_ms,
    query_p99_ms: h.query_p99_ms,
    query_samples: h.query_samples,
    active_queries: h.active_queries,
    disk_total_gb: gb(h.disk_total_bytes),
    disk_free_gb: gb(h.disk_free_bytes),
    svc_disk_used_gb: gb(h.svc_disk_used_bytes),
    /** Used fraction (0..1) of the disk holding the data, the figure of the disk rule; null when unknown. */
    disk_used_ratio: ((r) => (r === null ? null : round(r, 4)))(diskUsedRatio(h)),
  };
}

export interface Warning {
  kind: "collector" | "account" | "unregistered_collector";
  subject: string;
  message: string;
}

export function warnings(
  health: readonly CollectorHealth[],
  cov: Coverage,
  specs: readonly CollectorSpec[],
  latest: readonly LatestRunRow[],
): Warning[] {
  const out: Warning[] = [];
  for (const h of health) {
    for (const reason of h.reasons) out.push({ kind: "collector", subject: h.name, message: reason });
  }
  for (const w of cov.warnings) {
    out.push({ kind: "account", subject: w.account_id, message: `${w.account_name}: ${w.svc_status}` });
  }
  const known = new Set(specs.map((s) => s.name));
  for (const r of latest) {
    if (!known.has(r.collector)) {
      out.push({
        kind: "unregistered_collector",
        subject: r.collector,
        message: "reports runs but is not in the registry (PUT /api/system/collectors/{name})",
      });
    }
  }
  return out;
}

/** Reads the store once for `now`: the same queries (and order) as the status endpoint. */
export async function readSnapshot(
  store: RunStore,
  specs: readonly CollectorSpec[],
  now: number,
): Promise<StoreSnapshot> {
  const since = now - streakWindowMs(specs, now);
  const [latest, successes, streaks, accounts, scans, recent, open] = await Promise.all([
    store.latestRunPerCollector(),
    store.lastSuccessPerCollector(),
    // Only the series whose latest run did not succeed: a series whose latest run succeeded has no
    // failures in a row, adds no evidence run, no triage subject, no alert and no metric.
    store.consecutiveFailuresPerCollectorAccountRegion(since, { failingOnly: true }),
    store.accountsLatest(),
    store.lastSucceededRunPerAccount(0),
    readRecentRuns(store, specs),
    store.openStarts(now - MAX_OPEN_RUN_MS),
  ]);
  // Each collector's learned max duration comes from the baseline of its latest successful runs.
  return {
    latest,
    successes,
    streaks,
    accounts,
    scans,
    recent,
    open,
    baselines: recentBaselines(specs, recent),
  };
}

/** Used / total of the analytics DB's disk (system.disks), 0..1; null when unknown. */
export function diskUsedRatio(db: StoreHealth): number | null {
  const total = db.disk_total_bytes;
  const free = db.disk_free_bytes;
  if (total === null || free === null || total <= 0) return null;
  return Math.min(1, Math.max(0, (total - free) / total));
}

/**
 * The input of `evaluateConditions` (docs/monitor-alerts.md), from the same snapshot and rules as the
 * status body. Dead-letter depths come from `queues` (null: the queues could not be read; then no depth
 * is known, and the rules keep firing dead-letter alerts as they were). Role-assumption
 * failures are not reported to the monitor yet.
 */
export function alertInput(
  specs: readonly CollectorSpec[],
  s: StoreSnapshot,
  db: StoreHealth | null,
  now: number,
  queues: readonly QueueHealth[] | null = [],
  anchor?: FreshnessAnchorFn,
): AlertInput {
  const collectors = evaluateHealth(specs, s, now, anchor);
  const cov = evaluateCoverage(s.accounts, s.scans, now);
  const latestOf = new Map(s.latest.map((r) => [r.collector, r]));
  const streaks = s.streaks.map((st) => {
    const l = latestOf.get(st.collector);
    const sameRun =
      l !== undefined &&
      l.status === "failed" &&
      l.cloud_account_id === st.cloud_account_id &&
      l.cloud_region === st.cloud_region &&
      l.completed_at === st.last_run_at;
    return {
      collector: st.collector,
      cloud_account_id: st.cloud_account_id,
      cloud_region: st.cloud_region,
      consecutive_failures: st.consecutive_failures,
      last_success_at: st.last_success_at,
      // The store's own last error of the streak; else the collector's latest run when it is this streak's.
      last_error: st.last_error ?? (sameRun ? l.error : ""),
    };
  });
  const collector_last_errors: Record<string, string> = {};
  for (const l of s.latest)
    if (l.status === "failed" && l.error !== "") collector_last_errors[l.collector] = l.error;
  const accounts: AccountRecord[] = s.accounts.map((a) => ({
    account_id: a.account_id,
    account_name: a.account_name,
    svc_status: a.svc_status,
    updated_at: Math.min(a.updated_at, now),
  }));
  return {
    collectors,
    streaks,
    accounts,
    unscanned: cov.unscanned,
    dead_letter_queues: deadLetterDepths(queues),
    dead_letter_unread: deadLetterUnread(queues),
    disk_used_ratio: db === null ? null : diskUsedRatio(db),
    collector_last_errors,
    durations: judgeCollectorDurations(specs, s.recent ?? {}, now),
    open_runs: evaluateOpenRuns(specs, s, now),
  };
}

/** One firing alert of the status body. */
export interface FiringAlertJson {
  rule: string;
  subject: string;
  severity: "warning" | "critical";
  /** ISO time it started firing. */
  since: string;
  /** Its start notification was confirmed delivered. */
  notified: boolean;
  /** The stable key its notifications carry (`fingerprint`). */
  fingerprint: string;
  /** One line: why it fires. */
  summary: string;
  /** The last error text of the failing collector behind it; null when none is known. */
  last_error: string | null;
  /** Held back by a mute: stored and shown, never notified while muted. */
  muted: boolean;
  /** What mutes it (the alert that is the cause); null when not muted. */
  muted_by:
    | { kind: "alert"; rule: string; subject: string; fingerprint: string }
    | { kind: "silence" | "maintenance"; id: string; author: string; reason: string; endsAt: number }
    | null;
  /** Why it is muted, in words; null when not muted. */
  reason: string | null;
}

/** The firing alerts of a stored alert state, sorted by rule then subject (muted ones included). */
export function firingAlerts(state: AlertState): FiringAlertJson[] {
  return Object.values(state.alerts)
    .filter((a) => a.status === "firing")
    .map((a) => ({
      rule: a.rule,
      subject: a.subject,
      severity: a.severity,
      since: new Date(a.since).toISOString(),
      notified: a.notifiedStart,
      fingerprint: alertFingerprint(a.rule, a.subject),
      summary: a.detail,
      last_error: a.lastError ?? null,
      muted: a.muted,
      muted_by: a.muted ? (a.mutedBy ?? null) : null,
      reason: a.muted ? (a.mutedReason ?? (a.mutedBy ? null : "muted")) : null,
    }))
    .sort((a, b) =>
      a.rule === b.rule
        ? a.subject < b.subject
          ? -1
          : a.subject > b.subject
            ? 1
            : 0
        : a.rule < b.rule
          ? -1
          : 1,
    );
}
