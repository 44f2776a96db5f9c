/**
 * The health of the run store on ClickHouse: disk, running queries and query latency, each figure
 * from the best source the database offers (docs/monitor-tables.md). The labels it reports in
 * `sources` are ClickHouse's, and the status body shows them as they are.
 */
import { RunStoreQueryError, type StoreHealth } from "@monitor/core";
import type { ClickHouseQueries } from "./clickhouse-queries.ts";
import { num } from "./run-store-sql.ts";

/** Window of the server-side query latency percentiles (system.query_log). */
export const QUERY_LOG_WINDOW_MINUTES = 15;

/** Where ClickHouse's health figures come from, as `StoreHealth.sources` names them. */
export const CLICKHOUSE_HEALTH_SOURCES = {
  disk: { server: "system.parts+system.disks", folder: "data-folder+statfs" },
  active_queries: { server: "system.processes", none: "unavailable" },
  query_latency: { server: "system.query_log", client: "client-timings" },
} as const;
const SOURCES = CLICKHOUSE_HEALTH_SOURCES;

/** The data folder of an embedded engine and the filesystem that holds it. */
export interface LocalDiskUsage {
  /** Bytes allocated to the files of the data folder. */
  used_bytes: number;
  /** Size of the filesystem holding the folder. */
  total_bytes: number;
  /** Bytes of that filesystem available to this process. */
  free_bytes: number;
}

export interface ClickHouseHealthOptions {
  /** The data folder's disk figures of an embedded engine (read instead of system.disks). */
  localDisk: (() => Promise<LocalDiskUsage>) | undefined;
  /** Ask system.query_log for the query latency (chDB has no such table). */
  queryLog: boolean;
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const idx = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, idx)] ?? null;
}

export class ClickHouseHealth {
  readonly #q: ClickHouseQueries;
  readonly #localDisk: (() => Promise<LocalDiskUsage>) | undefined;
  readonly #queryLog: boolean;

  constructor(queries: ClickHouseQueries, opts: ClickHouseHealthOptions) {
    this.#q = queries;
    this.#localDisk = opts.localDisk;
    this.#queryLog = opts.queryLog;
  }

  async read(): Promise<StoreHealth> {
    // The independent reads at once: the parts, the data folder (embedded), the running queries and
    // the server's query log.
    const partsRead = this.#q.rows<Record<string, unknown>>(
      "dbHealth (system.parts)",
      `SELECT sum(bytes_on_disk) AS used, sumIf(bytes_on_disk, database = 'svc') AS svc_used
FROM system.parts WHERE active`,
    );
    const localRead: Promise<LocalDiskUsage | null> =
      this.#localDisk === undefined
        ? Promise.resolve(null)
        : // the folder or its filesystem cannot be read: system.disks below
          this.#localDisk().catch(() => null);
    const activeRead = this.#q
      .rows<Record<string, unknown>>(
        "dbHealth (system.processes)",
        "SELECT count() AS n FROM system.processes WHERE query_id != queryID()",
      )
      .then(
        ([p]) => (p ? num(p.n) : null),
        (err: unknown) => {
          if (!(err instanceof RunStoreQueryError)) throw err;
          return null;
        },
      );
    const [[parts], local, active, server] = await Promise.all([
      partsRead,
      localRead,
      activeRead,
      this.#queryLogLatency(),
    ]);
    let total: number | null = local?.total_bytes ?? null;
    let free: number | null = local?.free_bytes ?? null;
    const folderUsed: number | null = local?.used_bytes ?? null;
    if (folderUsed === null) {
      try {
        const [d] = await this.#q.rows<Record<string, unknown>>(
          "dbHealth (system.disks)",
          "SELECT sum(total_space) AS total, sum(free_space) AS free FROM system.disks",
        );
        total = d ? num(d.total) : null;
        free = d ? num(d.free) : null;
      } catch (err) {
        if (!(err instanceof RunStoreQueryError)) throw err;
      }
    }
    const sorted = [...this.#q.latencySamples()].sort((a, b) => a - b);
    const round = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);
    const latency = server ?? {
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      samples: sorted.length,
    };
    return {
      disk_used_bytes: folderUsed ?? num(parts?.used ?? 0),
      svc_disk_used_bytes: num(parts?.svc_used ?? 0),
      disk_total_bytes: total,
      disk_free_bytes: free,
      active_queries: active,
      query_p50_ms: round(latency.p50),
      query_p95_ms: round(latency.p95),
      query_p99_ms: round(latency.p99),
      query_samples: latency.samples,
      sources: {
        disk: folderUsed === null ? SOURCES.disk.server : SOURCES.disk.folder,
        active_queries: active === null ? SOURCES.active_queries.none : SOURCES.active_queries.server,
        query_latency: server === null ? SOURCES.query_latency.client : SOURCES.query_latency.server,
      },
    };
  }

  /**
   * p50/p95/p99 and count of the queries the server finished in the last QUERY_LOG_WINDOW_MINUTES,
   * from system.query_log (initial queries only, so a distributed query counts once). Null when
   * the table does not exist (chDB), cannot be read (grants) or holds no such query (logging off):
   * the caller then falls back to its own client-side timings.
   */
  async #queryLogLatency(): Promise<{ p50: number; p95: number; p99: number; samples: number } | null> {
    if (!this.#queryLog) return null;
    let row: Record<string, unknown> | undefined;
    try {
      [row] = await this.#q.rows<Record<string, unknown>>(
        "dbHealth (system.query_log)",
        `SELECT count() AS n, quantilesTiming(0.5, 0.95, 0.99)(query_duration_ms) AS q
FROM system.query_log
WHERE event_date >= toDate(now() - INTERVAL ${QUERY_LOG_WINDOW_MINUTES} MINUTE)
  AND event_time >= now() - INTERVAL ${QUERY_LOG_WINDOW_MINUTES} MINUTE
  AND type = 'QueryFinish'
  AND is_initial_query`,
      );
    } catch (err) {
      if (err instanceof RunStoreQueryError) return null;
      throw err;
    }
    const samples = num(row?.n ?? 0);
    const q = Array.isArray(row?.q) ? row.q.map(num) : [];
    const [p50, p95, p99] = q;
    if (!(samples > 0) || p50 === undefined || p95 === undefined || p99 === undefined) return null;
    if (![p50, p95, p99].every(Number.isFinite)) return null;
    return { p50, p95, p99, samples };
  }
}
