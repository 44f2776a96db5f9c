/**
 * The ResourceEventStore over ClickHouse: svc.resource_events (docs/monitor-tables.md). An append
 * first asks which of the batch's event ids are stored already (a redelivered message, a retried
 * batch) and inserts only the others, in one INSERT. Two deliveries of one event racing each other
 * can both pass that check; the table is a ReplacingMergeTree keyed by the event, so merges collapse
 * such a pair and `list` reads with FINAL: a reader never sees an event twice.
 */

import type { ClickHouseClient } from "@clickhouse/client";
import {
  type AppendResult,
  checkedEvents,
  RESOURCE_EVENT_KIND,
  type ResourceEvent,
  type ResourceEventFilter,
  type ResourceEventStore,
  type StoredResourceEvent,
} from "@monitor/core";
import { chCall, msToCh } from "./clickhouse-call.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";

export const RESOURCE_EVENTS_TABLE = "svc.resource_events";

export interface ClickHouseResourceEventSinkOptions {
  /** Upper bound per statement. Default 10 000 ms. */
  timeoutMs?: number;
  /** The `received_at` clock. */
  now?: () => number;
}

export class ClickHouseResourceEventSink implements ResourceEventStore {
  readonly #client: ClickHouseClient;
  readonly #timeoutMs: number;
  readonly #now: () => number;

  constructor(client: ClickHouseClient, opts: ClickHouseResourceEventSinkOptions = {}) {
    this.#client = client;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#now = opts.now ?? Date.now;
  }

  /** A sink on the run store's own client (same database, same migrations). */
  static fromStore(
    store: ClickHouseRunStore,
    opts: Omit<ClickHouseResourceEventSinkOptions, "timeoutMs"> = {},
  ): ClickHouseResourceEventSink {
    return new ClickHouseResourceEventSink(store.client, {
      ...opts,
      timeoutMs: Math.max(store.timeoutMs, 10_000),
    });
  }

  async append(events: readonly ResourceEvent[]): Promise<AppendResult> {
    const { unique, repeated } = checkedEvents(events);
    if (unique.length === 0) return { stored: 0, duplicates: repeated };
    const present = await this.#storedIds(unique);
    const fresh = unique.filter((u) => !present.has(u.id));
    if (fresh.length > 0) {
      const receivedAt = msToCh(this.#now());
      await chCall("resource_events insert", this.#timeoutMs, (signal) =>
        this.#client.insert({
          table: RESOURCE_EVENTS_TABLE,
          values: fresh.map(({ id, event }) => ({
            event_id: id,
            kind: event.kind,
            collector: event.collector,
            account_id: event.account_id,
            region: event.region,
            resource_type: event.resource_type,
            resource_id: event.resource_id,
            observed_at: msToCh(event.observed_at),
            attributes: JSON.stringify(event.attributes),
            received_at: receivedAt,
          })),
          format: "JSONEachRow",
          abort_signal: signal,
          clickhouse_settings: { async_insert: 0 },
        }),
      );
    }
    return { stored: fresh.length, duplicates: repeated + unique.length - fresh.length };
  }

  /** Ids of these events already in the table; the key columns and time range narrow the read. */
  async #storedIds(batch: readonly { id: string; event: ResourceEvent }[]): Promise<Set<string>> {
    const events = batch.map((b) => b.event);
    const times = events.map((e) => e.observed_at);
    const rows = await chCall("resource_events lookup", this.#timeoutMs, async (signal) => {
      const rs = await this.#client.query({
        query: `SELECT DISTINCT event_id FROM ${RESOURCE_EVENTS_TABLE}
WHERE account_id IN {accounts:Array(String)}
  AND resource_id IN {resources:Array(String)}
  AND observed_at BETWEEN fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND fromUnixTimestamp64Milli({to:Int64}, 'UTC')
  AND event_id IN {ids:Array(String)}`,
        query_params: {
          accounts: [...new Set(events.map((e) => e.account_id))],
          resources: [...new Set(events.map((e) => e.resource_id))],
          from: Math.min(...times),
          to: Math.max(...times),
          ids: batch.map((b) => b.id),
        },
        format: "JSONEachRow",
        abort_signal: signal,
      });
      return rs.json<{ event_id: string }>();
    });
    return new Set(rows.map((r) => r.event_id));
  }

  async list(filter: ResourceEventFilter = {}): Promise<StoredResourceEvent[]> {
    const rows = await chCall("resource_events list", this.#timeoutMs, async (signal) => {
      const rs = await this.#client.query({
        query: `SELECT event_id, collector, account_id, region, resource_type, resource_id,
    toUnixTimestamp64Milli(observed_at) AS observed_ms, attributes,
    toUnixTimestamp64Milli(received_at) AS received_ms
FROM ${RESOURCE_EVENTS_TABLE} FINAL
WHERE ({account:String} = '' OR account_id = {account:String})
  AND ({resource:String} = '' OR resource_id = {resource:String})
ORDER BY observed_at DESC, account_id, region, resource_type, resource_id, event_id
LIMIT {limit:UInt32}`,
        query_params: {
          account: filter.account_id ?? "",
          resource: filter.resource_id ?? "",
          limit: filter.limit ?? 1000,
        },
        format: "JSONEachRow",
        abort_signal: signal,
      });
      return rs.json<Record<string, unknown>>();
    });
    return rows.map((r) => ({
      kind: RESOURCE_EVENT_KIND,
      event_id: String(r.event_id),
      collector: String(r.collector),
      account_id: String(r.account_id),
      region: String(r.region),
      resource_type: String(r.resource_type),
      resource_id: String(r.resource_id),
      observed_at: Number(r.observed_ms),
      attributes: JSON.parse(String(r.attributes)) as Record<string, unknown>,
      received_at: Number(r.received_ms),
    }));
  }
}
