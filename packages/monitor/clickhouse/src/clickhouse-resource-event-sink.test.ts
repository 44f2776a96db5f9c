import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryResourceEventStore, RunStoreUnavailable, resourceEventId } from "@monitor/core";
import {
  OBSERVED_AT,
  resourceEvent,
  resourceEventStoreContract,
} from "@monitor/core/contract/resource-event-store";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openChdbRunStore } from "./chdb.ts";
import { msToCh } from "./clickhouse-call.ts";
import { ClickHouseResourceEventSink, RESOURCE_EVENTS_TABLE } from "./clickhouse-resource-event-sink.ts";
import { type ClickHouseRunStore, openHttpRunStore } from "./clickhouse-run-store.ts";

// One chDB data folder per test file (one engine per folder per process).
const dir = mkdtempSync(join(tmpdir(), "svcmon-resource-events-"));
let store: ClickHouseRunStore;

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const truncate = () => store.client.command({ query: `TRUNCATE TABLE ${RESOURCE_EVENTS_TABLE}` });

async function rawCount(): Promise<number> {
  const rs = await store.client.query({
    query: `SELECT count() AS n FROM ${RESOURCE_EVENTS_TABLE}`,
    format: "JSONEachRow",
  });
  const [row] = await rs.json<{ n: string }>();
  return Number(row?.n);
}

resourceEventStoreContract("MemoryResourceEventStore", async (now) => new MemoryResourceEventStore({ now }));
resourceEventStoreContract("ClickHouseResourceEventSink on chDB", async (now) => {
  await truncate();
  return ClickHouseResourceEventSink.fromStore(store, { now });
});

describe("svc.resource_events (migration 9) on chDB", () => {
  beforeEach(truncate);

  it("is an append-only log kept 30 days after receipt, keyed by the event", async () => {
    const rs = await store.client.query({
      query: `SELECT engine, sorting_key, partition_key, create_table_query FROM system.tables
              WHERE database = 'svc' AND name = 'resource_events'`,
      format: "JSONEachRow",
    });
    const [t] = await rs.json<Record<string, string>>();
    expect(t).toMatchObject({
      engine: "ReplacingMergeTree",
      sorting_key: "account_id, region, resource_type, resource_id, observed_at, event_id",
      partition_key: "toYYYYMM(observed_at)",
    });
    expect(t?.create_table_query).toContain("TTL toDateTime(received_at) + toIntervalDay(30)");
  });

  it("does not write a redelivered event again (the stored row count stays)", async () => {
    const sink = ClickHouseResourceEventSink.fromStore(store);
    const batch = [resourceEvent("i-1"), resourceEvent("i-2")];
    await sink.append(batch);
    expect(await rawCount()).toBe(2);
    expect(await sink.append(batch)).toEqual({ stored: 0, duplicates: 2 });
    expect(await rawCount()).toBe(2);
  });

  it("reads a duplicate that got past the check (two racing deliveries) once", async () => {
    const sink = ClickHouseResourceEventSink.fromStore(store);
    const e = resourceEvent("i-raced");
    const row = {
      event_id: resourceEventId(e),
      kind: e.kind,
      collector: e.collector,
      account_id: e.account_id,
      region: e.region,
      resource_type: e.resource_type,
      resource_id: e.resource_id,
      observed_at: msToCh(e.observed_at),
      attributes: JSON.stringify(e.attributes),
    };
    // Both deliveries insert, as two racing consumers would after both found the id absent.
    for (const received of [OBSERVED_AT + 1000, OBSERVED_AT + 2000]) {
      await store.client.insert({
        table: RESOURCE_EVENTS_TABLE,
        values: [{ ...row, received_at: msToCh(received) }],
        format: "JSONEachRow",
      });
    }
    expect(await rawCount()).toBe(2);
    expect((await sink.list()).map((x) => x.resource_id)).toEqual(["i-raced"]);
  });

  it("fails with RunStoreUnavailable when the database cannot be reached", async () => {
    const unreachable = openHttpRunStore({ url: "http://127.0.0.1:9", timeoutMs: 2000 });
    try {
      await expect(
        ClickHouseResourceEventSink.fromStore(unreachable).append([resourceEvent("i-1")]),
      ).rejects.toBeInstanceOf(RunStoreUnavailable);
    } finally {
      await unreachable.close();
    }
  });
});
