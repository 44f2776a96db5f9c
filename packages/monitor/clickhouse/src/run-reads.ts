/**
 * The run store's status reads on ClickHouse (docs/monitor-tables.md, "Latest state"): the latest
 * run and last success per collector, failure streaks, accounts, scans per account, failures per day
 * and the recent runs of one collector. Each answer is reused through the read cache until the next
 * write.
 */
import type {
  AccountLastSuccessRow,
  CloudAccountRow,
  CollectorRunRow,
  FailureStreakRow,
  FailuresPerDayRow,
  LastSuccessRow,
  LatestRunRow,
  RunStatus,
} from "@monitor/core";
import type { ClickHouseQueries } from "./clickhouse-queries.ts";
import type { VersionedReadCache } from "./read-cache.ts";
import { copyRows, int, num, sqlString, toRunRow, unpackKey } from "./run-store-sql.ts";
import { type StreakSeries, streakRowsAt } from "./streak-series.ts";

const DAY_MS = 86_400_000;
/** The most runs `recentRuns` returns. */
export const MAX_RECENT_RUNS = 200;
/** The windows (hours back from now) `recentRuns` tries before reading the collector's whole history. */
const RECENT_RUNS_WINDOWS_HOURS = [1, 24, 8 * 24, 64 * 24] as const;

/** The cache that always reads (the store's `readCache: false`). */
export const NO_READ_CACHE: Pick<VersionedReadCache, "get"> = { get: (_key, read) => read() };

export class ClickHouseRunReads {
  readonly #q: ClickHouseQueries;
  readonly #cache: Pick<VersionedReadCache, "get">;

  constructor(queries: ClickHouseQueries, cache: Pick<VersionedReadCache, "get">) {
    this.#q = queries;
    this.#cache = cache;
  }

  latestRunPerCollector(): Promise<LatestRunRow[]> {
    return this.#heads().then((h) => copyRows(h.latest));
  }

  lastSuccessPerCollector(): Promise<LastSuccessRow[]> {
    return this.#heads().then((h) => copyRows(h.successes));
  }

  /** One cached read serves both per-collector reads (#collectorHeads). */
  #heads(): Promise<{ latest: LatestRunRow[]; successes: LastSuccessRow[] }> {
    return this.#cache.get("heads", () => this.#collectorHeads());
  }

  /**
   * Both per-collector reads at once (docs/monitor-tables.md, "Per collector from the series"): each
   * collector's highest latest_key and latest_success_key of svc.collector_series, then the runs
   * those keys name, read from svc.collector_runs by their primary key (collector, completed_at).
   * A key packs the order of "latest" (LATEST_KEY_EXPR) but its last tie-break, run_id: of the runs
   * a key names, the highest run_id is the one, as argMax over the full order picked it.
   */
  async #collectorHeads(): Promise<{ latest: LatestRunRow[]; successes: LastSuccessRow[] }> {
    const keys = await this.#q.rows<{ collector: string; k: string; s: string }>(
      "latestRunPerCollector (keys)",
      `SELECT collector, toString(max(latest_key)) AS k, toString(max(latest_success_key)) AS s
FROM svc.collector_series GROUP BY collector`,
    );
    if (keys.length === 0) return { latest: [], successes: [] };
    const heads = keys.map((r) => ({
      name: sqlString(String(r.collector)),
      latest: unpackKey(r.k),
      success: BigInt(r.s) > 0n ? unpackKey(r.s) : null,
    }));
    const at = (ms: number) => `fromUnixTimestamp64Milli(${int(ms)})`;
    // Literals, not parameters or a subquery: the keys read above, then the runs at those times,
    // read by the primary key (a granule per collector and part; an IN over a subquery read every
    // granule's index), newest run_id first in the database's own UUID order (argMax's order).
    const pairs = heads.flatMap((h) => [
      `(${h.name}, ${at(h.latest.completed)})`,
      ...(h.success === null ? [] : [`(${h.name}, ${at(h.success.completed)})`]),
    ]);
    const rows = await this.#q.rows<Record<string, unknown>>(
      "latestRunPerCollector",
      // Other names for the ms columns: an alias named as a column would stand in for it in WHERE.
      `SELECT
    collector,
    toString(run_id) AS id,
    cloud_account_id,
    cloud_region,
    toUnixTimestamp64Milli(started_at) AS started_ms,
    toUnixTimestamp64Milli(completed_at) AS completed_ms,
    status,
    events_produced,
    rows_inserted,
    error,
    duration_ms
FROM svc.collector_runs
WHERE (collector, completed_at) IN (${pairs.join(", ")})
ORDER BY collector, run_id DESC`,
    );
    const byName = new Map(keys.map((r, i) => [String(r.collector), heads[i] as (typeof heads)[number]]));
    const latestBy = new Map<string, LatestRunRow>();
    const successBy = new Map<string, LastSuccessRow>();
    for (const r of rows) {
      const run = toRunRow({ ...r, run_id: r.id, started_at: r.started_ms, completed_at: r.completed_ms });
      const h = byName.get(run.collector);
      if (h === undefined) continue;
      const rank = run.status === "failed" ? 2 : run.status === "partial" ? 1 : 0;
      const { latest: l, success: s } = h;
      if (
        !latestBy.has(run.collector) &&
        run.completed_at === l.completed &&
        run.started_at === l.started &&
        rank === l.rank
      )
        latestBy.set(run.collector, run);
      if (
        s !== null &&
        !successBy.has(run.collector) &&
        run.status === "succeeded" &&
        run.completed_at === s.completed &&
        run.started_at === s.started
      )
        successBy.set(run.collector, {
          collector: run.collector,
          last_success_at: run.completed_at,
          run_id: run.run_id,
          cloud_account_id: run.cloud_account_id,
          cloud_region: run.cloud_region,
        });
    }
    const byCollector = <T extends { collector: string }>(m: Map<string, T>) =>
      [...m.values()].sort((a, b) => (a.collector < b.collector ? -1 : a.collector > b.collector ? 1 : 0));
    const latest = byCollector(latestBy);
    const found = byCollector(successBy);
    return { latest, successes: found };
  }

  /**
   * The latest `limit` runs of one collector, newest first (by completed_at, then run_id), optionally
   * of one account and region: what an operator reads to triage it (`GET /api/system/runs`).
   */
  recentRuns(
    collector: string,
    opts: { limit?: number; cloud_account_id?: string; cloud_region?: string } = {},
  ): Promise<CollectorRunRow[]> {
    const limit = Math.max(1, Math.min(MAX_RECENT_RUNS, Math.floor(opts.limit ?? 20)));
    const account = opts.cloud_account_id ?? "";
    const region = opts.cloud_region ?? "";
    // Cached as the status reads are (the page asks for every collector's at each load and refresh).
    return this.#cache
      .get(JSON.stringify(["recent", collector, account, region, limit]), () =>
        this.#recentRuns(collector, account, region, limit),
      )
      .then(copyRows);
  }

  async #recentRuns(
    collector: string,
    account: string,
    region: string,
    limit: number,
  ): Promise<CollectorRunRow[]> {
    // The table is ordered by (collector, completed_at, …): a window on completed_at reads only the
    // collector's newest stretch of the key range, where the whole history sorted would be read
    // otherwise (6 M rows: 45 ms a call). A collector with many accounts × regions fills `limit`
    // within the hour; the wider windows (then none) serve sparse ones, each narrower read cheap.
    let rows: Record<string, unknown>[] = [];
    for (const hours of [...RECENT_RUNS_WINDOWS_HOURS, null]) {
      rows = await this.#q.rows<Record<string, unknown>>(
        "recentRuns",
        // The inner query names the table's own columns: an outer alias of the same name (the ms
        // conversions) would otherwise stand in for the column in WHERE and ORDER BY, and neither
        // the window nor the sorting key could narrow the read.
        `SELECT
    collector,
    toString(run_id) AS run_id,
    cloud_account_id,
    cloud_region,
    toUnixTimestamp64Milli(started_at) AS started_at,
    toUnixTimestamp64Milli(completed_at) AS completed_at,
    status,
    events_produced,
    rows_inserted,
    error,
    duration_ms
FROM (
  SELECT collector, run_id, cloud_account_id, cloud_region, started_at, completed_at, status,
    events_produced, rows_inserted, error, duration_ms
  FROM svc.collector_runs
  WHERE collector = {collector:String}
    AND ({account:String} = '' OR cloud_account_id = {account:String})
    AND ({region:String} = '' OR cloud_region = {region:String})
    ${hours === null ? "" : "AND completed_at >= now64(3) - toIntervalHour({hours:UInt32})"}
  ORDER BY completed_at DESC, toString(run_id) DESC
  LIMIT 1 BY run_id
  LIMIT {limit:UInt32}
)
ORDER BY completed_at DESC, run_id DESC`,
        {
          collector,
          account,
          region,
          limit,
          ...(hours === null ? {} : { hours }),
        },
      );
      if (rows.length >= limit) break;
    }
    return rows.map(toRunRow);
  }

  async consecutiveFailuresPerCollectorAccountRegion(
    sinceMs: number,
    opts: { failingOnly?: boolean } = {},
  ): Promise<FailureStreakRow[]> {
    const since = Math.max(0, Math.floor(sinceMs));
    const failingOnly = opts.failingOnly === true;
    // The series as read for a window starting at or before `since` answer for `since` too
    // (streakRowsAt), so a cached read serves every later window until the next write.
    const series = await this.#cache.get(
      `streaks/${failingOnly ? "failing" : "all"}`,
      () => this.#readStreakSeries(since, failingOnly),
      since,
      (readSince) => typeof readSince === "number" && readSince <= since,
    );
    return streakRowsAt(series, since);
  }

  /**
   * The streak query (docs/monitor-tables.md, "Latest state"): the maxima per series from
   * svc.collector_series (a few thousand rows), the failed runs of the window from
   * svc.collector_failed_runs (about 2 % of the runs): the same answer as aggregating
   * svc.collector_runs over the window (the query before migration 13; compared in
   * latest-state.test.ts). All-time maxima serve for the window's: a series is listed when its last
   * run is in the window, so its latest key is too; a success or non-failure before the window counts
   * as none (no failure precedes it). `failingOnly` keeps the series whose latest run did not succeed:
   * a series whose latest run succeeded has no failure after it (its last non-failed run is its last
   * run), so it has 0 failures in a row whatever the window.
   */
  async #readStreakSeries(since: number, failingOnly: boolean): Promise<StreakSeries[]> {
    const rows = await this.#q.rows<Record<string, unknown>>(
      "consecutiveFailuresPerCollectorAccountRegion",
      `SELECT
    collector,
    cloud_account_id,
    cloud_region,
    toUnixTimestamp64Milli(s.last_run) AS last_run_at,
    ['succeeded', 'partial', 'failed'][toUInt8(s.latest_key % 4) + 1] AS last_status,
    toUnixTimestamp64Milli(s.last_success) AS last_success_at,
    arrayMap(x -> toUnixTimestamp64Milli(x.2), arrayFilter(x -> x.2 > s.last_non_failed, f.fails)) AS streak,
    toUnixTimestamp64Milli(f.last_failure) AS last_failure_at,
    f.last_error AS last_error
FROM (
    SELECT
        collector,
        cloud_account_id,
        cloud_region,
        max(last_run_at) AS last_run,
        max(latest_key) AS latest_key,
        max(last_success_at) AS last_success,
        max(last_non_failed_at) AS last_non_failed
    FROM svc.collector_series
    GROUP BY collector, cloud_account_id, cloud_region
    HAVING last_run >= fromUnixTimestamp64Milli({since:Int64})
       AND ({failing_only:UInt8} = 0 OR latest_key % 4 != 0)
) AS s
LEFT JOIN (
    SELECT
        collector,
        cloud_account_id,
        cloud_region,
        groupUniqArray((run_id, completed_at)) AS fails,
        argMax(error, completed_at) AS last_error,
        max(completed_at) AS last_failure
    FROM svc.collector_failed_runs
    WHERE completed_at >= fromUnixTimestamp64Milli({since:Int64})
    GROUP BY collector, cloud_account_id, cloud_region
) AS f USING (collector, cloud_account_id, cloud_region)
ORDER BY collector, cloud_account_id, cloud_region
SETTINGS join_use_nulls = 0`,
      { since, failing_only: failingOnly ? 1 : 0 },
    );
    return rows.map((r) => ({
      collector: String(r.collector),
      cloud_account_id: String(r.cloud_account_id),
      cloud_region: String(r.cloud_region),
      last_run_at: num(r.last_run_at),
      last_status: String(r.last_status) as RunStatus,
      last_success_at: num(r.last_success_at),
      streak: Array.isArray(r.streak) ? r.streak.map(num) : [],
      last_failure_at: num(r.last_failure_at),
      last_error: r.last_error === null || r.last_error === undefined ? "" : String(r.last_error),
    }));
  }

  accountsLatest(): Promise<CloudAccountRow[]> {
    return this.#cache.get("accounts", () => this.#accountsLatest()).then(copyRows);
  }

  async #accountsLatest(): Promise<CloudAccountRow[]> {
    const rows = await this.#q.rows<Record<string, unknown>>(
      "accountsLatest",
      `SELECT
    account_id,
    a.account_id AS account_id,
    a.latest_name AS latest_name,
    a.latest_status AS latest_status,
    a.updated_ms AS updated_ms,
    f.first_active_ms AS first_active_ms
FROM (
    SELECT
        account_id,
        argMax(account_name, updated_at) AS latest_name,
        argMax(svc_status, updated_at) AS latest_status,
        toUnixTimestamp64Milli(max(updated_at)) AS updated_ms
    FROM svc.cloud_accounts
    GROUP BY account_id
) AS a
LEFT JOIN (
    SELECT account_id, toNullable(toUnixTimestamp64Milli(min(first_active_at))) AS first_active_ms
    FROM svc.account_first_active
    GROUP BY account_id
) AS f ON f.account_id = a.account_id
ORDER BY account_id`,
    );
    return rows.map((r) => ({
      account_id: String(r.account_id),
      account_name: String(r.latest_name),
      svc_status: String(r.latest_status) as CloudAccountRow["svc_status"],
      updated_at: num(r.updated_ms),
      first_active_at:
        r.first_active_ms === null || r.first_active_ms === undefined ? null : num(r.first_active_ms),
    }));
  }

  lastSucceededRunPerAccount(sinceMs: number): Promise<AccountLastSuccessRow[]> {
    const since = Math.max(1, Math.floor(sinceMs));
    return this.#cache.get(`scans/${since}`, () => this.#lastSucceededRunPerAccount(since)).then(copyRows);
  }

  async #lastSucceededRunPerAccount(sinceMs: number): Promise<AccountLastSuccessRow[]> {
    const rows = await this.#q.rows<Record<string, unknown>>(
      "lastSucceededRunPerAccount",
      `SELECT cloud_account_id, toUnixTimestamp64Milli(max(last_success_at)) AS last_success_ms
FROM svc.collector_series
GROUP BY cloud_account_id
HAVING max(last_success_at) >= fromUnixTimestamp64Milli({since:Int64})
ORDER BY cloud_account_id`,
      { since: Math.max(1, Math.floor(sinceMs)) },
    );
    return rows.map((r) => ({
      cloud_account_id: String(r.cloud_account_id),
      last_success_at: num(r.last_success_ms),
    }));
  }

  /** Cached per number of days and UTC day until the next write (the days are the only input). */
  failuresPerCollectorPerDay(days = 7, nowMs = Date.now()): Promise<FailuresPerDayRow[]> {
    const n = Math.max(1, Math.floor(days));
    const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
    return this.#cache
      .get(`failures/${n}/${today}`, () => this.#failuresPerCollectorPerDay(n, today))
      .then(copyRows);
  }

  async #failuresPerCollectorPerDay(days: number, nowMs: number): Promise<FailuresPerDayRow[]> {
    const n = Math.max(1, Math.floor(days));
    const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
    const from = today - (n - 1) * DAY_MS;
    const dayList = Array.from({ length: n }, (_, i) =>
      new Date(from + i * DAY_MS).toISOString().slice(0, 10),
    );
    const [counts, collectors] = await Promise.all([
      this.#q.rows<Record<string, unknown>>(
        "failuresPerCollectorPerDay",
        `SELECT collector, toString(toDate(completed_at, 'UTC')) AS day, uniqExact(run_id) AS failures
FROM svc.collector_failed_runs
WHERE completed_at >= fromUnixTimestamp64Milli({from:Int64})
  AND completed_at < fromUnixTimestamp64Milli({to:Int64})
GROUP BY collector, day`,
        { from, to: today + DAY_MS },
      ),
      this.#q.rows<{ collector: string }>(
        "failuresPerCollectorPerDay (collectors)",
        "SELECT DISTINCT collector FROM svc.collector_series",
      ),
    ]);
    const byKey = new Map(counts.map((r) => [`${r.collector}\u0000${r.day}`, num(r.failures)]));
    const names = new Set([...collectors.map((c) => c.collector), ...counts.map((r) => String(r.collector))]);
    const out: FailuresPerDayRow[] = [];
    for (const collector of [...names].sort()) {
      for (const day of dayList) {
        out.push({ collector, day, failures: byKey.get(`${collector}\u0000${day}`) ?? 0 });
      }
    }
    return out;
  }
}
