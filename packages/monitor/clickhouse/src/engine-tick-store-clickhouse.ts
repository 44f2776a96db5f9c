/**
 * The alert engine's rounds in svc.engine_ticks (migration 18, 7-day TTL), on the run store's own
 * client: the alert engine writes one row per round, the status endpoint (another process, another
 * Lambda) reads the latest (docs/monitor-alerts.md "The monitor watched").
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type { EngineTick, EngineTickStore } from "@monitor/core";
import { msToCh } from "./clickhouse-call.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";

const U32_MAX = 0xffff_ffff;
/** A failed round's error is one line of a status body: longer text is cut here. */
const MAX_ERROR_CHARS = 2000;

/** UInt/Int64 come back quoted over HTTP and as numbers from chDB. */
const num = (v: unknown): number => (typeof v === "number" ? v : Number(v));
const bool = (v: unknown): boolean => v === true || v === 1 || v === "1" || v === "true";
const u32 = (v: number): number => Math.min(U32_MAX, Math.max(0, Math.round(v)));

interface TickRow {
  tick_ms: number | string;
  completed_ms: number | string;
  duration_ms: number | string;
  ok: unknown;
  error: string | null;
  claimant: string;
  interval_ms: number | string;
}

export class ClickHouseEngineTickStore implements EngineTickStore {
  readonly #client: ClickHouseClient;

  constructor(client: ClickHouseClient) {
    this.#client = client;
  }

  /** A tick store on the run store's client (same database, same migrations). */
  static fromStore(store: ClickHouseRunStore): ClickHouseEngineTickStore {
    return new ClickHouseEngineTickStore(store.client);
  }

  async record(t: EngineTick): Promise<void> {
    await this.#client.insert({
      table: "svc.engine_ticks",
      values: [
        {
          tick_at: msToCh(t.tick_at),
          completed_at: msToCh(t.completed_at),
          duration_ms: u32(t.duration_ms),
          ok: t.ok,
          error: t.error === null ? null : Array.from(t.error).slice(0, MAX_ERROR_CHARS).join(""),
          claimant: t.claimant,
          interval_ms: u32(t.interval_ms),
        },
      ],
      format: "JSONEachRow",
      // Visible to the status endpoint's next read at once, also on a server batching inserts.
      clickhouse_settings: { async_insert: 0 },
    });
  }

  async latest(): Promise<EngineTick | null> {
    const rs = await this.#client.query({
      query: `SELECT toUnixTimestamp64Milli(tick_at) AS tick_ms, toUnixTimestamp64Milli(completed_at) AS completed_ms,
       duration_ms, ok, error, claimant, interval_ms
FROM svc.engine_ticks
ORDER BY completed_at DESC
LIMIT 1`,
      format: "JSONEachRow",
    });
    const [row] = await rs.json<TickRow>();
    if (row === undefined) return null;
    return {
      tick_at: num(row.tick_ms),
      completed_at: num(row.completed_ms),
      duration_ms: num(row.duration_ms),
      ok: bool(row.ok),
      error: row.error,
      claimant: row.claimant,
      interval_ms: num(row.interval_ms),
    };
  }
}
