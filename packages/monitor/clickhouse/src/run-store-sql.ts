/**
 * The small conversions the run store's statements share: values written as SQL literals that cannot
 * end their quotes, numbers as ClickHouse answers them, and stored rows as the port's records.
 */
import type { CollectorRunRow, RunStatus } from "@monitor/core";

const UUID_LIST_RE = /^[0-9a-f,-]*$/;

/** Any string as a SQL expression that cannot end a literal: `unhex('<its UTF-8 bytes in hex>')`. */
export function sqlString(s: string): string {
  return `unhex('${Buffer.from(s, "utf8").toString("hex")}')`;
}

/** An integer as SQL text (a validated epoch ms; anything else is a bug). */
export function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

/** The run_ids of validated rows as one comma-separated list (checked again: it goes inside a SQL literal). */
export function uuidList(rows: readonly CollectorRunRow[]): string {
  const list = rows.map((r) => r.run_id).join(",");
  if (!UUID_LIST_RE.test(list)) throw new Error("run_id is not a validated UUID");
  return list;
}

/** Int64/UInt64 come back as strings over HTTP (quoted 64-bit) and as numbers from chDB. */
export function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v);
}

/** A copy of cached rows for one caller (callers may sort or change what they get). */
export function copyRows<T extends object>(rows: readonly T[]): T[] {
  return rows.map((r) => ({ ...r }));
}

/** The times and status rank a latest_key / latest_success_key packs: completed ms · 2⁵⁴ + started ms · 4 + rank. */
export function unpackKey(key: string): { completed: number; started: number; rank: number } {
  const k = BigInt(key);
  return {
    completed: Number(k >> 54n),
    started: Number((k >> 2n) & ((1n << 52n) - 1n)),
    rank: Number(k & 3n),
  };
}

export function toRunRow(r: Record<string, unknown>): CollectorRunRow {
  return {
    run_id: String(r.run_id),
    collector: String(r.collector),
    cloud_account_id: String(r.cloud_account_id),
    cloud_region: String(r.cloud_region),
    started_at: num(r.started_at),
    completed_at: num(r.completed_at),
    status: String(r.status) as RunStatus,
    events_produced: num(r.events_produced),
    rows_inserted: num(r.rows_inserted),
    error: String(r.error),
    duration_ms: num(r.duration_ms),
  };
}
