/**
 * The run starts of the ClickHouse run store (svc.run_starts, migration 19): written as they come,
 * read as the starts that have no run record of the same run_id in svc.collector_runs (the runs still
 * running or hung). docs/monitor-tables.md, "Run starts".
 */
import { MAX_OPEN_RUNS_READ, type RunStartRow, validateStart } from "@monitor/core";
import { msToCh } from "./clickhouse-call.ts";
import type { ClickHouseQueries } from "./clickhouse-queries.ts";
import { num } from "./run-store-sql.ts";

/** Above every `keep` written: `keep` = this − a counter that rises with each write, so the first start wins. */
const KEEP_BASE = 2 ** 53 - 1;
/**
 * A final record's started_at may be earlier than its start's (the start defaults to the server's
 * clock): the run records looked at begin this much before `since`.
 */
const PAIRING_SLACK_HOURS = 24;

export class ClickHouseRunStarts {
  readonly #q: ClickHouseQueries;
  readonly #now: () => number;
  #last = 0;

  constructor(queries: ClickHouseQueries, now: () => number = Date.now) {
    this.#q = queries;
    this.#now = now;
  }

  async record(starts: readonly RunStartRow[]): Promise<void> {
    const valid = starts.map((s, i) => validateStart(i, s));
    // Within one call the first start of a run_id counts, as across calls.
    const seen = new Set<string>();
    const fresh = valid.filter((s) => !seen.has(s.run_id) && seen.add(s.run_id));
    if (fresh.length === 0) return;
    this.#last = Math.max(this.#last + 1, this.#now());
    const keep = KEEP_BASE - this.#last;
    await this.#q.call("recordStarts", (signal) =>
      this.#q.client.insert({
        table: "svc.run_starts",
        values: fresh.map((s) => ({ ...s, started_at: msToCh(s.started_at), keep })),
        format: "JSONEachRow",
        abort_signal: signal,
      }),
    );
  }

  async open(sinceMs: number, limit: number): Promise<RunStartRow[]> {
    const since = Math.max(0, Math.floor(sinceMs));
    const n = Math.max(1, Math.min(MAX_OPEN_RUNS_READ, Math.floor(limit)));
    const rows = await this.#q.rows<Record<string, unknown>>(
      "openStarts",
      `SELECT
    toString(run_id) AS id,
    argMax(collector, keep) AS collector,
    argMax(cloud_account_id, keep) AS cloud_account_id,
    argMax(cloud_region, keep) AS cloud_region,
    toUnixTimestamp64Milli(argMax(started_at, keep)) AS started_ms
FROM svc.run_starts
WHERE run_id NOT IN (
    SELECT run_id FROM svc.collector_runs
    WHERE started_at >= fromUnixTimestamp64Milli(toInt64({since:UInt64})) - toIntervalHour({slack:UInt32})
      AND run_id IN (SELECT run_id FROM svc.run_starts)
)
GROUP BY run_id
HAVING started_ms >= {since:UInt64}
ORDER BY started_ms DESC, id ASC
LIMIT {limit:UInt32}`,
      { since, slack: PAIRING_SLACK_HOURS, limit: n },
    );
    return rows.map((r) => ({
      run_id: String(r.id),
      collector: String(r.collector),
      cloud_account_id: String(r.cloud_account_id),
      cloud_region: String(r.cloud_region),
      started_at: num(r.started_ms),
    }));
  }
}
