/**
 * The run store's duplicate check on ClickHouse: which run_ids of a group are stored already (the
 * rule itself, prepareGroup, is @monitor/core's, the same for every adapter).
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type { CollectorRunRow } from "@monitor/core";
import type { ClickHouseQueries } from "./clickhouse-queries.ts";
import { int, sqlString, uuidList } from "./run-store-sql.ts";

/**
 * The run_ids of `rows` already stored. A run sent again (a retry, a replayed batch) is the same
 * record with the same collector, started_at and completed_at, so the lookup is limited to the
 * batch's collectors and time ranges: the primary key (collector, completed_at, ...) reads only
 * those granules, and the started_at range skips every part whose rows all started outside it (the
 * parts' min/max index of the partition key): the bulk of an old table is never opened. A bloom
 * filter alone on 1,000 ids matches most granules of a 59M-row table. (A run_id re-sent with other
 * timestamps is not caught here; reads still count it once, since they aggregate by run_id.)
 */
export async function storedRunIds(
  queries: ClickHouseQueries,
  client: ClickHouseClient,
  rows: readonly CollectorRunRow[],
): Promise<Set<string>> {
  let minCompleted = Number.POSITIVE_INFINITY;
  let maxCompleted = Number.NEGATIVE_INFINITY;
  let minStarted = Number.POSITIVE_INFINITY;
  let maxStarted = Number.NEGATIVE_INFINITY;
  const collectors = new Set<string>();
  for (const r of rows) {
    minCompleted = Math.min(minCompleted, r.completed_at);
    maxCompleted = Math.max(maxCompleted, r.completed_at);
    minStarted = Math.min(minStarted, r.started_at);
    maxStarted = Math.max(maxStarted, r.started_at);
    collectors.add(r.collector);
  }
  // No query parameters: chdb-node sends parameterised statements one after another, process-wide,
  // and formatting thousands of ids as parameters cost more than the lookup. Every value is a
  // literal that cannot end its quotes: the collectors as hex (unhex), the times as integers, the
  // ids as one string split by the database (has() over the constant array was cheaper than IN
  // with a subquery: 8–10 against 13–17 ms for 4,000 ids at 59 M rows). validateRun has checked
  // each id is a UUID in lower case, as toString writes it; uuidList checks again.
  const names = [...collectors].map(sqlString).join(", ");
  const existing = await queries.rows<{ run_id: string }>(
    "insertRuns (duplicate check)",
    `SELECT DISTINCT run_id FROM svc.collector_runs
       WHERE collector IN (${names})
         AND completed_at >= fromUnixTimestamp64Milli(${int(minCompleted)})
         AND completed_at <= fromUnixTimestamp64Milli(${int(maxCompleted)})
         AND started_at >= fromUnixTimestamp64Milli(${int(minStarted)})
         AND started_at <= fromUnixTimestamp64Milli(${int(maxStarted)})
         AND has(splitByChar(',', '${uuidList(rows)}'), toString(run_id))`,
    {},
    client,
  );
  return new Set(existing.map((r) => r.run_id.toLowerCase()));
}
