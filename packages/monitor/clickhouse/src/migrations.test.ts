import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunStoreQueryError } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChdbClient } from "./chdb.ts";
import { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import { MIGRATIONS } from "./migrations.ts";

// One chDB data folder per test file (one engine per folder per process).
const dir = mkdtempSync(join(tmpdir(), "svcmon-migrations-"));
const client = createChdbClient(dir);
const store = new ClickHouseRunStore(client, { timeoutMs: 10_000 });

async function rows<T>(query: string): Promise<T[]> {
  const rs = await client.query({ query, format: "JSONEachRow" });
  return rs.json<T>();
}

async function showCreate(table: string): Promise<string> {
  const [r] = await rows<{ statement: string }>(`SHOW CREATE TABLE ${table}`);
  return r?.statement ?? "";
}

beforeAll(async () => {
  await store.migrate();
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("migrations", () => {
  it("records every version once and is idempotent", async () => {
    expect(await store.migrate()).toEqual([]);
    expect(await store.migrate()).toEqual([]);
    const applied = await rows<{ version: number; name: string }>(
      "SELECT version, name FROM svc.schema_migrations FINAL ORDER BY version",
    );
    expect(applied.map((r) => Number(r.version))).toEqual(MIGRATIONS.map((m) => m.version));
    expect(applied.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
  });

  it("re-applies cleanly when the record of a migration is lost (statements are idempotent)", async () => {
    await client.command({ query: "TRUNCATE TABLE svc.schema_migrations" });
    expect(await store.migrate()).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await store.migrate()).toEqual([]);
  });

  it("creates svc.collector_runs with the documented types and the 90-day TTL on started_at", async () => {
    const cols = await rows<{ name: string; type: string; default_expression: string }>(
      "SELECT name, type, default_expression FROM system.columns WHERE database = 'svc' AND table = 'collector_runs' ORDER BY position",
    );
    expect(cols.map((c) => [c.name, c.type])).toEqual([
      ["run_id", "UUID"],
      ["collector", "LowCardinality(String)"],
      ["cloud_account_id", "String"],
      ["cloud_region", "LowCardinality(String)"],
      ["started_at", "DateTime64(3)"],
      ["completed_at", "DateTime64(3)"],
      ["status", "LowCardinality(String)"],
      ["events_produced", "UInt32"],
      ["rows_inserted", "UInt32"],
      ["error", "String"],
      ["duration_ms", "UInt32"],
    ]);
    expect(cols.find((c) => c.name === "run_id")?.default_expression).toBe("generateUUIDv4()");
    expect(cols.find((c) => c.name === "error")?.default_expression).toBe("''");
    const ddl = await showCreate("svc.collector_runs");
    expect(ddl).toContain("TTL toDateTime(started_at) + toIntervalDay(90)");
    expect(ddl).toContain("ENGINE = ReplacingMergeTree");
    expect(ddl).toContain("ORDER BY (collector, completed_at, cloud_account_id, cloud_region, run_id)");
  });

  it("creates svc.cloud_accounts versioned by updated_at", async () => {
    expect(await showCreate("svc.cloud_accounts")).toContain("ReplacingMergeTree(updated_at)");
  });

  it("creates the pre-aggregated run tables of migrations 13 to 15 and their views", async () => {
    const series = await showCreate("svc.collector_series");
    expect(series).toContain("AggregatingMergeTree");
    expect(series).toContain("`latest_success_key` SimpleAggregateFunction(max, UInt128)");
    expect(series).toContain("TTL toDateTime(last_run_at) + toIntervalDay(90)");
    expect(await showCreate("svc.collector_failed_runs")).toContain("ReplacingMergeTree");
    // Migration 14: svc.collector_latest, svc.collector_streaks and their views are gone; migration
    // 15: svc.collector_latest_by_collector and its view too. Two views feed the pre-aggregated tables.
    const tables = await rows<{ name: string; engine: string }>(
      "SELECT name, engine FROM system.tables WHERE database = 'svc' AND name LIKE 'collector\\_%' ORDER BY name",
    );
    expect(tables.filter((t) => t.engine === "MaterializedView").map((t) => t.name)).toEqual([
      "collector_failed_runs_mv",
      "collector_series_mv",
    ]);
    expect(tables.map((t) => t.name)).not.toContain("collector_latest_by_collector");
    expect(tables.map((t) => t.name)).not.toContain("collector_latest");
    expect(tables.map((t) => t.name)).not.toContain("collector_streaks");
  });

  it("upgrading a database from before migrations 10 and 11 backfills registrations and first active times", async () => {
    // A database at version 9: overrides stored by PUT and account versions, none of the new tables.
    for (const q of [
      "DROP VIEW IF EXISTS svc.account_first_active_mv",
      "DROP TABLE IF EXISTS svc.account_first_active",
      "DROP TABLE IF EXISTS svc.collector_registrations",
      "ALTER TABLE svc.schema_migrations DELETE WHERE version >= 10 SETTINGS mutations_sync = 1",
      "INSERT INTO svc.collectors (name, expected_interval_minutes, freshness_threshold_minutes, updated_at) SELECT 'billing_cur', 60, 180, toDateTime64('2025-01-01 10:00:00', 3, 'UTC')",
      "INSERT INTO svc.cloud_accounts SELECT 'acc-up', 'Up', 'pending_setup', toDateTime64('2025-01-01 08:00:00', 3, 'UTC')",
      "INSERT INTO svc.cloud_accounts SELECT 'acc-up', 'Up', 'active', toDateTime64('2025-01-02 08:00:00', 3, 'UTC')",
    ]) {
      await client.command({ query: q });
    }
    // 12 (the delivery log's muted columns), 13 (the pre-aggregated run tables), 14 (one view for
    // the per-series tables), 15 (no per-collector table) and 17 (run starts) are re-applied too: their
    // statements are idempotent.
    expect(await store.migrate()).toEqual([10, 11, 12, 13, 14, 15, 17]);
    const reg = await rows<{ name: string; at: string; by: string }>(
      "SELECT name, toUnixTimestamp64Milli(min(registered_at)) AS at, argMin(registered_by, registered_at) AS by FROM svc.collector_registrations GROUP BY name",
    );
    expect(reg.map((r) => [r.name, Number(r.at), r.by])).toEqual([
      ["billing_cur", Date.UTC(2025, 0, 1, 10), "api"],
    ]);
    const first = (await store.accountsLatest()).find((a) => a.account_id === "acc-up");
    expect(first?.first_active_at).toBe(Date.UTC(2025, 0, 2, 8));
  });

  it("a statement the database rejects is a RunStoreQueryError and is not recorded", async () => {
    const broken = new ClickHouseRunStore(client, {
      migrations: [
        ...MIGRATIONS,
        { version: 99, name: "broken", statements: ["CREATE TABLE svc.nope (x Nope) ENGINE = Memory"] },
      ],
    });
    await expect(broken.migrate()).rejects.toBeInstanceOf(RunStoreQueryError);
    const v = await rows<{ n: number }>("SELECT count() AS n FROM svc.schema_migrations WHERE version = 99");
    expect(Number(v[0]?.n)).toBe(0);
  });
});
