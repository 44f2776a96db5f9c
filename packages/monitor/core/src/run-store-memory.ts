/**
 * The run store in memory: every answer of the RunStore port computed from the rows kept in this
 * process, as the ClickHouse adapter's tables and views compute them (docs/monitor-tables.md, "Latest
 * state"). For tests and tools that need a store but not a database; it passes the same contract
 * suite (contract/run-store.contract.ts). Nothing is persisted and no TTL drops old rows.
 */

import { MAX_OPEN_RUNS_READ } from "@monitor/jobs";
import type {
  AccountLastSuccessRow,
  CloudAccountRow,
  CollectorRunInput,
  CollectorRunRow,
  FailureStreakRow,
  FailuresPerDayRow,
  InsertRunsResult,
  LastSuccessRow,
  LatestRunRow,
  RunStartRow,
  RunStore,
  StoreHealth,
} from "./ports.ts";
import { prepareGroup } from "./run-duplicates.ts";
import { validateAccount, validateRun, validateStart } from "./run-store.ts";

const DAY_MS = 86_400_000;
/** The most runs `recentRuns` returns (as every adapter). */
const MAX_RECENT_RUNS = 200;

/** Where the in-memory store's health figures come from (`StoreHealth.sources`). */
export const MEMORY_HEALTH_SOURCES = {
  disk: "memory",
  active_queries: "unavailable",
  query_latency: "client-timings",
} as const;

/** Latency samples kept (the latest reads). */
const LATENCY_SAMPLES = 1024;

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const idx = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, idx)] ?? null;
}

const RANK = { succeeded: 0, partial: 1, failed: 2 } as const;

/**
 * The order of "latest" among runs: completed_at, then started_at, then the worse status, then the
 * run_id in the order a UUID has in ClickHouse (its second half first), as the ClickHouse adapter's
 * keys and argMax give it.
 */
function laterRun(a: CollectorRunRow, b: CollectorRunRow): boolean {
  if (a.completed_at !== b.completed_at) return a.completed_at > b.completed_at;
  if (a.started_at !== b.started_at) return a.started_at > b.started_at;
  if (RANK[a.status] !== RANK[b.status]) return RANK[a.status] > RANK[b.status];
  return uuidOrder(a.run_id) > uuidOrder(b.run_id);
}

/** A lower-case UUID as a string that sorts as ClickHouse sorts UUIDs (second half, then first). */
function uuidOrder(id: string): string {
  const hex = id.replaceAll("-", "");
  return hex.slice(16) + hex.slice(0, 16);
}

const seriesKey = (r: CollectorRunRow) => `${r.collector}\u0000${r.cloud_account_id}\u0000${r.cloud_region}`;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class InMemoryRunStore implements RunStore {
  readonly #runs = new Map<string, CollectorRunRow>();
  readonly #accounts: CloudAccountRow[] = [];
  readonly #starts = new Map<string, RunStartRow>();
  #inserts: Promise<void> = Promise.resolve();
  readonly #latency: number[] = [];
  readonly #now: () => number;

  /** `now`: the monotonic clock the reads are timed with, in ms (default performance.now). */
  constructor(opts: { now?: () => number } = {}) {
    this.#now = opts.now ?? (() => performance.now());
  }

  /** The answer of a read, its time kept as a latency sample (the client-side timings of dbHealth). */
  #timed<T>(read: () => T): T {
    const started = this.#now();
    const out = read();
    this.#latency.push(this.#now() - started);
    if (this.#latency.length > LATENCY_SAMPLES) this.#latency.shift();
    return out;
  }

  async migrate(): Promise<number[]> {
    return [];
  }

  /**
   * Calls run one after the other in the order they were made (each waits for the one before), so
   * calls made at once get the answers they would have got one by one.
   */
  insertRuns(rows: readonly CollectorRunInput[]): Promise<InsertRunsResult> {
    let valid: CollectorRunRow[];
    try {
      // Validate everything first: a bad row means nothing of this call is written.
      valid = rows.map((r, i) => validateRun(i, r));
    } catch (err) {
      return Promise.reject(err);
    }
    const done = this.#inserts.then(async () => {
      const { fresh, results } = await prepareGroup([valid], null, async (check) => {
        return new Set(check.filter((r) => this.#runs.has(r.run_id)).map((r) => r.run_id));
      });
      for (const r of fresh) this.#runs.set(r.run_id, { ...r });
      return results[0] as InsertRunsResult;
    });
    this.#inserts = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  async upsertAccount(row: CloudAccountRow): Promise<void> {
    const { first_active_at: _read, ...a } = validateAccount(row);
    this.#accounts.push(a);
  }

  async latestRunPerCollector(): Promise<LatestRunRow[]> {
    return this.#timed(() => this.#latestRunPerCollector());
  }

  #latestRunPerCollector(): LatestRunRow[] {
    const latest = new Map<string, CollectorRunRow>();
    for (const r of this.#runs.values()) {
      const cur = latest.get(r.collector);
      if (cur === undefined || laterRun(r, cur)) latest.set(r.collector, r);
    }
    return [...latest.values()].sort((a, b) => byText(a.collector, b.collector)).map((r) => ({ ...r }));
  }

  async lastSuccessPerCollector(): Promise<LastSuccessRow[]> {
    return this.#timed(() => this.#lastSuccessPerCollector());
  }

  #lastSuccessPerCollector(): LastSuccessRow[] {
    const best = new Map<string, CollectorRunRow>();
    for (const r of this.#runs.values()) {
      if (r.status !== "succeeded") continue;
      const cur = best.get(r.collector);
      if (cur === undefined || laterRun(r, cur)) best.set(r.collector, r);
    }
    return [...best.values()]
      .sort((a, b) => byText(a.collector, b.collector))
      .map((r) => ({
        collector: r.collector,
        last_success_at: r.completed_at,
        run_id: r.run_id,
        cloud_account_id: r.cloud_account_id,
        cloud_region: r.cloud_region,
      }));
  }

  async consecutiveFailuresPerCollectorAccountRegion(
    sinceMs: number,
    opts: { failingOnly?: boolean } = {},
  ): Promise<FailureStreakRow[]> {
    return this.#timed(() => this.#consecutiveFailuresPerCollectorAccountRegion(sinceMs, opts));
  }

  #consecutiveFailuresPerCollectorAccountRegion(
    sinceMs: number,
    opts: { failingOnly?: boolean } = {},
  ): FailureStreakRow[] {
    const since = Math.max(0, Math.floor(sinceMs));
    const series = new Map<string, CollectorRunRow[]>();
    for (const r of this.#runs.values()) {
      const k = seriesKey(r);
      const list = series.get(k);
      if (list === undefined) series.set(k, [r]);
      else list.push(r);
    }
    const out: FailureStreakRow[] = [];
    for (const runs of series.values()) {
      let latest = runs[0] as CollectorRunRow;
      let lastSuccess = 0;
      let lastNonFailed = 0;
      for (const r of runs) {
        if (laterRun(r, latest)) latest = r;
        if (r.status === "succeeded") lastSuccess = Math.max(lastSuccess, r.completed_at);
        if (r.status !== "failed") lastNonFailed = Math.max(lastNonFailed, r.completed_at);
      }
      const lastRunAt = Math.max(...runs.map((r) => r.completed_at));
      if (lastRunAt < since) continue;
      if (opts.failingOnly === true && latest.status === "succeeded") continue;
      const failedInWindow = runs.filter((r) => r.status === "failed" && r.completed_at >= since);
      let lastFailure: CollectorRunRow | null = null;
      for (const r of failedInWindow) {
        if (lastFailure === null || r.completed_at > lastFailure.completed_at) lastFailure = r;
      }
      out.push({
        collector: latest.collector,
        cloud_account_id: latest.cloud_account_id,
        cloud_region: latest.cloud_region,
        last_run_at: lastRunAt,
        last_status: latest.status,
        last_success_at: lastSuccess > 0 && lastSuccess >= since ? lastSuccess : null,
        consecutive_failures: failedInWindow.filter((r) => r.completed_at > lastNonFailed).length,
        last_error: lastFailure === null ? "" : lastFailure.error,
      });
    }
    return out.sort(
      (a, b) =>
        byText(a.collector, b.collector) ||
        byText(a.cloud_account_id, b.cloud_account_id) ||
        byText(a.cloud_region, b.cloud_region),
    );
  }

  async accountsLatest(): Promise<CloudAccountRow[]> {
    return this.#timed(() => this.#accountsLatest());
  }

  #accountsLatest(): CloudAccountRow[] {
    const latest = new Map<string, CloudAccountRow>();
    const firstActive = new Map<string, number>();
    for (const a of this.#accounts) {
      const cur = latest.get(a.account_id);
      if (cur === undefined || a.updated_at >= cur.updated_at) latest.set(a.account_id, a);
      if (a.svc_status === "active")
        firstActive.set(a.account_id, Math.min(firstActive.get(a.account_id) ?? a.updated_at, a.updated_at));
    }
    return [...latest.values()]
      .sort((a, b) => byText(a.account_id, b.account_id))
      .map((a) => ({ ...a, first_active_at: firstActive.get(a.account_id) ?? null }));
  }

  async lastSucceededRunPerAccount(sinceMs: number): Promise<AccountLastSuccessRow[]> {
    return this.#timed(() => this.#lastSucceededRunPerAccount(sinceMs));
  }

  #lastSucceededRunPerAccount(sinceMs: number): AccountLastSuccessRow[] {
    const since = Math.max(1, Math.floor(sinceMs));
    const last = new Map<string, number>();
    for (const r of this.#runs.values()) {
      if (r.status !== "succeeded") continue;
      last.set(r.cloud_account_id, Math.max(last.get(r.cloud_account_id) ?? 0, r.completed_at));
    }
    return [...last.entries()]
      .filter(([, at]) => at >= since)
      .sort(([a], [b]) => byText(a, b))
      .map(([cloud_account_id, last_success_at]) => ({ cloud_account_id, last_success_at }));
  }

  async failuresPerCollectorPerDay(days = 7, nowMs = Date.now()): Promise<FailuresPerDayRow[]> {
    return this.#timed(() => this.#failuresPerCollectorPerDay(days, nowMs));
  }

  #failuresPerCollectorPerDay(days = 7, nowMs = Date.now()): FailuresPerDayRow[] {
    const n = Math.max(1, Math.floor(days));
    const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
    const from = today - (n - 1) * DAY_MS;
    const dayList = Array.from({ length: n }, (_, i) =>
      new Date(from + i * DAY_MS).toISOString().slice(0, 10),
    );
    const counts = new Map<string, number>();
    const names = new Set<string>();
    for (const r of this.#runs.values()) {
      names.add(r.collector);
      if (r.status !== "failed" || r.completed_at < from || r.completed_at >= today + DAY_MS) continue;
      const key = `${r.collector}\u0000${new Date(r.completed_at).toISOString().slice(0, 10)}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const out: FailuresPerDayRow[] = [];
    for (const collector of [...names].sort()) {
      for (const day of dayList) {
        out.push({ collector, day, failures: counts.get(`${collector}\u0000${day}`) ?? 0 });
      }
    }
    return out;
  }

  async recentRuns(
    collector: string,
    opts: { limit?: number; cloud_account_id?: string; cloud_region?: string } = {},
  ): Promise<CollectorRunRow[]> {
    return this.#timed(() => this.#recentRuns(collector, opts));
  }

  #recentRuns(
    collector: string,
    opts: { limit?: number; cloud_account_id?: string; cloud_region?: string } = {},
  ): CollectorRunRow[] {
    const limit = Math.max(1, Math.min(MAX_RECENT_RUNS, Math.floor(opts.limit ?? 20)));
    const account = opts.cloud_account_id ?? "";
    const region = opts.cloud_region ?? "";
    return [...this.#runs.values()]
      .filter(
        (r) =>
          r.collector === collector &&
          (account === "" || r.cloud_account_id === account) &&
          (region === "" || r.cloud_region === region),
      )
      .sort((a, b) => b.completed_at - a.completed_at || byText(b.run_id, a.run_id))
      .slice(0, limit)
      .map((r) => ({ ...r }));
  }

  /**
   * What the store holds, measured as the length of its rows in JSON (no disk), and the time its own
   * reads took.
   */
  async dbHealth(): Promise<StoreHealth> {
    const sorted = [...this.#latency].sort((a, b) => a - b);
    const bytes = new TextEncoder().encode(
      JSON.stringify([...this.#runs.values(), ...this.#accounts]),
    ).length;
    return {
      disk_used_bytes: bytes,
      svc_disk_used_bytes: bytes,
      disk_total_bytes: null,
      disk_free_bytes: null,
      active_queries: null,
      query_p50_ms: percentile(sorted, 50),
      query_p95_ms: percentile(sorted, 95),
      query_p99_ms: percentile(sorted, 99),
      query_samples: sorted.length,
      sources: { ...MEMORY_HEALTH_SOURCES },
    };
  }

  async recordStarts(starts: readonly RunStartRow[]): Promise<void> {
    const valid = starts.map((s, i) => validateStart(i, s));
    for (const s of valid) if (!this.#starts.has(s.run_id)) this.#starts.set(s.run_id, s);
  }

  async openStarts(sinceMs: number, opts: { limit?: number } = {}): Promise<RunStartRow[]> {
    return this.#timed(() => {
      const limit = Math.max(1, Math.min(MAX_OPEN_RUNS_READ, Math.floor(opts.limit ?? MAX_OPEN_RUNS_READ)));
      return [...this.#starts.values()]
        .filter((s) => s.started_at >= sinceMs && !this.#runs.has(s.run_id))
        .sort((a, b) => b.started_at - a.started_at || byText(a.run_id, b.run_id))
        .slice(0, limit)
        .map((s) => ({ ...s }));
    });
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
