/**
 * The read cache's write version on a ClickHouse server: the parts of the tables the cached reads
 * come from (docs/monitor-tables.md, "Read cache"). Exact with any number of writers, as long as the
 * version and the reads are answered by the same server.
 */
import type { ClickHouseQueries } from "./clickhouse-queries.ts";

/**
 * The tables the cached reads come from (the status reads and recentRuns). The read cache is keyed
 * by their parts (readVersionSql): any write to them, by any process, changes it. `collector_runs`
 * (recentRuns) also changes with its merges: a needless re-read after a write, never a stale one.
 */
export const CACHED_READ_TABLES = [
  "collector_runs",
  "collector_series",
  "collector_failed_runs",
  "cloud_accounts",
  "account_first_active",
] as const;

/**
 * The write version of the cached reads' tables: per table and partition, the active parts' count,
 * rows, highest block number and data version. An INSERT adds a part with a new block number (higher
 * than any before in its partition), a mutation raises the data version, a TTL or partition drop
 * removes rows or parts, so no write leaves it unchanged; a merge may change it (a needless re-read).
 */
export const READ_VERSION_SQL = `SELECT table, partition_id, count() AS parts, sum(rows) AS rows,
    max(max_block_number) AS block, max(data_version) AS data_version
FROM system.parts
WHERE database = 'svc' AND active AND table IN (${CACHED_READ_TABLES.map((t) => `'${t}'`).join(", ")})
GROUP BY table, partition_id
ORDER BY table, partition_id`;

/**
 * The write version, read once for the calls made in the same turn of the event loop: the query
 * is sent after all of them began, so it sees every write that finished before any of them.
 */
export function partsVersion(queries: ClickHouseQueries): () => Promise<string> {
  let pending: Promise<string> | null = null;
  return () => {
    pending ??= Promise.resolve().then(() => {
      pending = null;
      return queries
        .rows<Record<string, unknown>>("read version (system.parts)", READ_VERSION_SQL)
        .then((rows) => JSON.stringify(rows.map((r) => Object.values(r).map(String))));
    });
    return pending;
  };
}
