/**
 * `@shared/notify`'s DeliveryLog in the analytics database: every attempt is one row of
 * svc.notification_attempts (migration 6, 90-day TTL), written on the run store's own client. It
 * outlives a restart, so `deliver` does not send a notification again to a channel that accepted it
 * before the restart (docs/notifications.md, "The delivery log").
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type { DeliveryAttempt, DeliveryLog } from "@shared/notify";
import { msToCh } from "./clickhouse-call.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";

const U32_MAX = 0xffff_ffff;

/** UInt64/Int64 come back quoted over HTTP and as numbers from chDB. */
const num = (v: unknown): number => (typeof v === "number" ? v : Number(v));

/** Bool comes back as true/false (JSON) or 1/0, depending on the output settings. */
const bool = (v: unknown): boolean => v === true || v === 1 || v === "1" || v === "true";

interface AttemptRow {
  notification_id: string;
  channel: string;
  attempt: number | string;
  at_ms: number | string;
  ok: unknown;
  error: string | null;
  duration_ms: number | string;
  muted_by: string | null;
  muted_reason: string | null;
}

function checkU32(field: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > U32_MAX) {
    throw new Error(`delivery attempt: ${field} must be an integer in 0..4294967295`);
  }
  return v;
}

export class ClickHouseDeliveryLog implements DeliveryLog {
  readonly #client: ClickHouseClient;

  constructor(client: ClickHouseClient) {
    this.#client = client;
  }

  /** A delivery log on the run store's client (same database, same migrations). */
  static fromStore(store: ClickHouseRunStore): ClickHouseDeliveryLog {
    return new ClickHouseDeliveryLog(store.client);
  }

  async record(a: DeliveryAttempt): Promise<void> {
    const at = Date.parse(a.at);
    if (Number.isNaN(at)) throw new Error(`delivery attempt: at must be an ISO 8601 time, got "${a.at}"`);
    if (typeof a.notificationId !== "string" || a.notificationId === "") {
      throw new Error("delivery attempt: notificationId must be a non-empty string");
    }
    await this.#client.insert({
      table: "svc.notification_attempts",
      values: [
        {
          notification_id: a.notificationId,
          channel: a.channel,
          attempt: checkU32("attempt", a.attempt),
          at: msToCh(at),
          ok: a.ok,
          error: a.error ?? null,
          duration_ms: checkU32("durationMs", a.durationMs),
          muted_by: a.muted?.by ?? null,
          muted_reason: a.muted?.reason ?? null,
        },
      ],
      format: "JSONEachRow",
      // Visible to the next read at once, also on a server that batches inserts by default.
      clickhouse_settings: { async_insert: 0 },
    });
  }

  async attempts(notificationId: string): Promise<DeliveryAttempt[]> {
    const rs = await this.#client.query({
      query: `SELECT notification_id, channel, attempt, toUnixTimestamp64Milli(at) AS at_ms, ok, error, duration_ms, muted_by, muted_reason
FROM svc.notification_attempts
WHERE notification_id = {id:String}
ORDER BY at, attempt, channel`,
      format: "JSONEachRow",
      query_params: { id: notificationId },
    });
    const rows = await rs.json<AttemptRow>();
    return rows.map((r) => ({
      notificationId: r.notification_id,
      channel: r.channel,
      attempt: num(r.attempt),
      at: new Date(num(r.at_ms)).toISOString(),
      ok: bool(r.ok),
      ...(r.error === null ? {} : { error: r.error }),
      durationMs: num(r.duration_ms),
      ...(r.muted_by === null || r.muted_by === undefined
        ? {}
        : { muted: { by: r.muted_by, reason: r.muted_reason ?? "" } }),
    }));
  }
}
