// Profile of the monitor's reads and writes, query by query (docs/benchmarks.md, "Monitor"): a
// store of BENCH_MONITOR_DAYS days (default 9, about 5.9 M rows) loaded the way the monitor bench
// loads it (kept in PROFILE_DIR when given, so reruns skip the load), then each status query alone,
// the status snapshot, a status request, an alert tick and insertRuns, 20 calls each, median / p95.
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { createMonitorApp } from "@monitor/api";
import { ClickHouseAlertStateStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { InMemoryCollectorRegistry } from "@monitor/core";
import { AlertEngine, memoryDeliveryLog, readSnapshot } from "@monitor/runtime";
import { ACCOUNTS, COLLECTORS, loadSql, REGIONS, SERIES, slotsIn } from "./monitor-dataset.ts";
import { percentile } from "./report.ts";

const DAYS = Number(process.env.BENCH_MONITOR_DAYS ?? 9);
const SLOTS = slotsIn(DAYS);
const ROWS = SERIES * SLOTS;
const N = Number(process.env.PROFILE_CALLS ?? 20);
const only = process.argv.slice(2);

/** Nearest-rank percentile `p` (0–1) of unsorted times. */
const q = (xs: number[], p: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    p * 100,
  );

async function time(name: string, fn: () => Promise<unknown>, n = N): Promise<void> {
  if (only.length > 0 && !only.some((o) => name.includes(o))) return;
  for (let i = 0; i < 3; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  console.log(
    `${name.padEnd(58)} ${q(ms, 0.5).toFixed(1).padStart(7)} / ${q(ms, 0.95).toFixed(1).padStart(7)} ms`,
  );
}

const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(os.tmpdir(), "monitor-profile-"));
const fresh = !existsSync(join(dir, "loaded"));
mkdirSync(dir, { recursive: true });
// PROFILE_UNCACHED=1: every read goes to the database (the run store's read cache off).
const store = openChdbRunStore(dir, { timeoutMs: 900_000, readCache: process.env.PROFILE_UNCACHED !== "1" });
await store.migrate();
const nowMs = Date.now();
if (fresh) {
  const baseSec = Math.floor(nowMs / 1000) - 600;
  const t0 = performance.now();
  const per = Math.ceil(ROWS / Math.min(10, DAYS));
  for (let from = 0; from < ROWS; from += per)
    await store.client.command({ query: loadSql(from, Math.min(per, ROWS - from), baseSec, SLOTS) });
  for (let i = 0; i < ACCOUNTS; i++)
    await store.upsertAccount({
      account_id: String(100_000_000_000 + i),
      account_name: `bench-account-${i}`,
      svc_status: (["active", "active", "active", "pending_setup", "no_access"] as const)[i % 5] ?? "active",
      updated_at: nowMs - 86_400_000 + i,
    });
  await store.client.command({
    query: "CREATE TABLE IF NOT EXISTS default.loaded (x UInt8) ENGINE = Memory",
  });
  (await import("node:fs")).writeFileSync(join(dir, "loaded"), String(nowMs));
  console.log(
    `loaded ${ROWS.toLocaleString("en")} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}
const rs = await store.client.query({
  query: "SELECT count() AS n FROM svc.collector_runs",
  format: "JSONEachRow",
});
console.log(`rows: ${JSON.stringify(await rs.json())}; dir ${dir}`);

const registry = new InMemoryCollectorRegistry();
const specs = await registry.list();
const since = () => Date.now() - 24 * 3_600_000;
await time("latestRunPerCollector", () => store.latestRunPerCollector());
await time("lastSuccessPerCollector", () => store.lastSuccessPerCollector());
await time("consecutiveFailuresPerCollectorAccountRegion (24 h)", () =>
  store.consecutiveFailuresPerCollectorAccountRegion(since()),
);
await time("consecutiveFailures… (24 h, failing only)", () =>
  store.consecutiveFailuresPerCollectorAccountRegion(since(), { failingOnly: true }),
);
await time("accountsLatest", () => store.accountsLatest());
await time("lastSucceededRunPerAccount(0)", () => store.lastSucceededRunPerAccount(0));
await time("failuresPerCollectorPerDay(7)", () => store.failuresPerCollectorPerDay(7));
await time("dbHealth", () => store.dbHealth());
await time("readSnapshot (5 queries at once)", () => readSnapshot(store, specs, Date.now()));
const app = createMonitorApp({
  store,
  registry,
  token: "profile-token-0123456789",
  log: { info() {}, warn() {}, error() {} } as never,
  now: () => Date.now(),
});
await time("GET /api/system/status", async () => {
  const res = await app.request("/api/system/status", {
    headers: { authorization: "Bearer profile-token-0123456789" },
  });
  await res.text();
});
await time("recentRuns(config_ec2, 40) (a /system card's chart)", () =>
  store.recentRuns("config_ec2", { limit: 40 }),
);
await time("GET /api/system/collectors/failures (the page's collector cards)", async () => {
  const res = await app.request("/api/system/collectors/failures", {
    headers: { authorization: "Bearer profile-token-0123456789" },
  });
  await res.text();
});
const engine = new AlertEngine({
  store,
  registry,
  stateStore: ClickHouseAlertStateStore.fromStore(store),
  channels: [],
  deliveryLog: memoryDeliveryLog(),
  now: () => Date.now(),
  log: { info() {}, warn() {}, error() {} },
});
await time("alert tick", () => engine.tick());
let b = 0;
const batch = (n: number, iso = false) => {
  const at = Date.now();
  b += 1;
  return Array.from({ length: n }, (_, i) => {
    const s = (b * n + i) % SERIES;
    const done = at - 1000 + (i % 1000);
    return {
      run_id: crypto.randomUUID(),
      collector: COLLECTORS[s % COLLECTORS.length] as string,
      cloud_account_id: String(100_000_000_000 + (Math.floor(s / COLLECTORS.length) % ACCOUNTS)),
      cloud_region: REGIONS[Math.floor(s / (COLLECTORS.length * ACCOUNTS))] as string,
      started_at: (iso ? new Date(done - 30_000).toISOString() : done - 30_000) as number,
      completed_at: (iso ? new Date(done).toISOString() : done) as number,
      status: (i % 50 === 0 ? "failed" : "succeeded") as "failed",
      events_produced: i,
      rows_inserted: i % 100,
      duration_ms: 30_000,
      ...(i % 50 === 0 ? { error: "AccessDenied: profile" } : {}),
    };
  });
};
await time("insertRuns 1,000", () => store.insertRuns(batch(1000)), 10);
await time("insertRuns 8,000", () => store.insertRuns(batch(8000)), 5);
await time(
  "POST /api/system/runs 1,000",
  async () => {
    const res = await app.request("/api/system/runs", {
      method: "POST",
      headers: { authorization: "Bearer profile-token-0123456789", "content-type": "application/json" },
      body: JSON.stringify(batch(1000, true)),
    });
    await res.text();
  },
  10,
);
const rows1000 = batch(1000);
const toCh = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace("Z", "");
await time(
  "raw INSERT 1,000 (all views)",
  async () => {
    await store.client.insert({
      table: "svc.collector_runs",
      values: batch(1000).map((r) => ({
        ...r,
        started_at: toCh(r.started_at),
        completed_at: toCh(r.completed_at),
      })),
      format: "JSONEachRow",
    });
  },
  10,
);
await time(
  "duplicate check 1,000 ids",
  async () => {
    const rs2 = await store.client.query({
      query: `SELECT DISTINCT run_id FROM svc.collector_runs
       WHERE collector IN {collectors:Array(String)}
         AND completed_at >= fromUnixTimestamp64Milli({min:Int64})
         AND completed_at <= fromUnixTimestamp64Milli({max:Int64})
         AND run_id IN {ids:Array(UUID)}`,
      format: "JSONEachRow",
      query_params: {
        collectors: COLLECTORS,
        min: Math.min(...rows1000.map((r) => r.completed_at)),
        max: Math.max(...rows1000.map((r) => r.completed_at)),
        ids: rows1000.map((r) => r.run_id),
      },
    });
    await rs2.json();
  },
  10,
);
await time("JSON.parse 1,000 records", async () => JSON.parse(JSON.stringify(batch(1000, true))), 10);
await time("parts version query", async () => {
  const rs3 = await store.client.query({
    query:
      "SELECT table, partition_id, max(max_block_number) AS b, sum(rows) AS r FROM system.parts WHERE database = 'svc' AND active AND table IN ('collector_runs','collector_latest_by_collector','collector_series','collector_failed_runs','cloud_accounts','account_first_active') GROUP BY table, partition_id",
    format: "JSONEachRow",
  });
  await rs3.json();
});
await time("SELECT 1", async () => {
  const rs3 = await store.client.query({ query: "SELECT 1", format: "JSONEachRow" });
  await rs3.json();
});
await store.close();
