// The pre-aggregated tables of migrations 13 to 15 (svc.collector_failed_runs, and
// svc.collector_series, which replaced svc.collector_streaks, svc.collector_latest and, with a read of
// the run its keys name, svc.collector_latest_by_collector) give the
// same answers as the queries over svc.collector_runs they replaced, on generated data inserted out
// of order, in many blocks, with run_ids stored twice (the same record again, and a retry with other
// timestamps), and with the tables backfilled by the migration rather than fed by the views.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChdbRunStore } from "./chdb.ts";
import { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import { LATEST_KEY_EXPR, MIGRATIONS } from "./migrations.ts";
import { LATEST_SUCCESS_STARTED_SQL } from "./resources-latest.ts";

const dir = mkdtempSync(join(tmpdir(), "svcmon-latest-state-"));
let store: ClickHouseRunStore;

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const now = Math.floor(Date.now() / 1000) * 1000;

/** The streak query before migration 13: one aggregation of svc.collector_runs over the window. */
const LEGACY_STREAKS_SQL = `SELECT
    collector,
    cloud_account_id,
    cloud_region,
    toUnixTimestamp64Milli(last_run) AS last_run_at,
    ['succeeded', 'partial', 'failed'][toUInt8(latest_key % 4) + 1] AS last_status,
    toUnixTimestamp64Milli(last_success) AS last_success_at,
    arrayCount(f -> f.2 > last_non_failed, fails) AS consecutive_failures,
    last_error
FROM (
    SELECT
        collector,
        cloud_account_id,
        cloud_region,
        max(completed_at) AS last_run,
        max(toUInt128(toUnixTimestamp64Milli(completed_at)) * 18014398509481984
            + toUInt128(toUnixTimestamp64Milli(started_at)) * 4
            + multiIf(status = 'failed', 2, status = 'partial', 1, 0)) AS latest_key,
        maxIf(completed_at, status = 'succeeded') AS last_success,
        maxIf(completed_at, status != 'failed') AS last_non_failed,
        groupUniqArrayIf((run_id, completed_at), status = 'failed') AS fails,
        argMaxIf(error, completed_at, status = 'failed') AS last_error
    FROM svc.collector_runs
    WHERE completed_at >= fromUnixTimestamp64Milli({since:Int64})
    GROUP BY collector, cloud_account_id, cloud_region
)
ORDER BY collector, cloud_account_id, cloud_region`;

const LEGACY_FAILURES_SQL = `SELECT collector, toString(toDate(completed_at, 'UTC')) AS day, uniqExact(run_id) AS failures
FROM svc.collector_runs
WHERE status = 'failed'
  AND completed_at >= fromUnixTimestamp64Milli({from:Int64})
  AND completed_at < fromUnixTimestamp64Milli({to:Int64})
GROUP BY collector, day
ORDER BY collector, day`;

/** The per-collector reads, answered from svc.collector_runs (what the pre-aggregated states hold). */
const LEGACY_LATEST_SQL = `SELECT collector, toString(l.1) AS run_id, l.2 AS status, l.3 AS error,
    toUnixTimestamp64Milli(l.4) AS completed_at, l.5 AS cloud_account_id
FROM (SELECT collector, argMax((run_id, status, error, completed_at, cloud_account_id), ${LATEST_KEY_EXPR}) AS l
      FROM svc.collector_runs GROUP BY collector)
ORDER BY collector`;
const LEGACY_SUCCESS_SQL = `SELECT collector, toUnixTimestamp64Milli(s.1) AS last_success_at, toString(s.2) AS run_id
FROM (SELECT collector, argMaxIf((completed_at, run_id), ${LATEST_KEY_EXPR}, status = 'succeeded') AS s,
             countIf(status = 'succeeded') AS n
      FROM svc.collector_runs GROUP BY collector)
WHERE n > 0
ORDER BY collector`;
/** Per account, its latest success (lastSucceededRunPerAccount(0)), from svc.collector_runs. */
const LEGACY_ACCOUNT_SUCCESS_SQL = `SELECT cloud_account_id, toUnixTimestamp64Milli(maxIf(completed_at, status = 'succeeded')) AS ms
FROM svc.collector_runs
GROUP BY cloud_account_id
HAVING countIf(status = 'succeeded') > 0
ORDER BY cloud_account_id`;
/**
 * Per series, the started_at of its latest succeeded run: what svc.collector_latest's argMaxIf state
 * gave resourcesLatest before migration 14, from svc.collector_runs.
 */
const LEGACY_SUCCESS_STARTED_SQL = `SELECT collector, cloud_account_id, cloud_region,
    toUnixTimestamp64Milli(argMaxIf(started_at, ${LATEST_KEY_EXPR}, status = 'succeeded')) AS ms
FROM svc.collector_runs
GROUP BY collector, cloud_account_id, cloud_region
HAVING countIf(status = 'succeeded') > 0
ORDER BY collector, cloud_account_id, cloud_region`;

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

interface Row {
  run_id: string;
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  started_at: number;
  completed_at: number;
  status: "succeeded" | "partial" | "failed";
  events_produced: number;
  rows_inserted: number;
  error: string;
  duration_ms: number;
}

/**
 * 3 collectors × 4 accounts × 2 regions, a run every 20 minutes over 9 days, with failure streaks
 * (a series fails for a while, then recovers or not), partials, and some series that stop reporting.
 */
function generate(seed: number): Row[] {
  const rand = rng(seed);
  const rows: Row[] = [];
  let n = 0;
  for (const collector of ["config_ec2", "config_ebs", "hierarchy_builder"]) {
    for (let a = 0; a < 4; a++) {
      for (const region of ["us-east-1", "eu-west-1"]) {
        const stopsAt = rand() < 0.2 ? now - Math.floor(rand() * 3 * DAY) : now;
        let failing = false;
        for (let t = now - 9 * DAY; t < stopsAt; t += 20 * MIN) {
          if (rand() < 0.03) failing = !failing;
          const status = failing || rand() < 0.05 ? "failed" : rand() < 0.05 ? "partial" : "succeeded";
          const duration = 1000 + Math.floor(rand() * 60_000);
          // Distinct completion times (ms jitter): an argMax over ties would be arbitrary in both.
          const completed = t + Math.floor(rand() * 1000) * 7 + (n % 7);
          n += 1;
          rows.push({
            run_id: uuid(n),
            collector,
            cloud_account_id: String(100_000_000_000 + a),
            cloud_region: region,
            started_at: completed - duration,
            completed_at: completed,
            status,
            events_produced: status === "failed" ? 0 : n % 100,
            rows_inserted: 0,
            error: status === "failed" ? `AccessDenied #${n}` : "",
            duration_ms: duration,
          });
        }
      }
    }
  }
  return rows;
}

function shuffle<T>(xs: T[], rand: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
  }
  return xs;
}

async function insertRaw(rows: readonly Row[]): Promise<void> {
  const ch = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace("Z", "");
  await store.client.insert({
    table: "svc.collector_runs",
    values: rows.map((r) => ({ ...r, started_at: ch(r.started_at), completed_at: ch(r.completed_at) })),
    format: "JSONEachRow",
  });
}

async function legacy(sql: string, params: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const rs = await store.client.query({ query: sql, query_params: params, format: "JSONEachRow" });
  return rs.json<Record<string, unknown>>();
}

async function compareAll(): Promise<number> {
  let compared = 0;
  for (const since of [now - 2 * HOUR, now - DAY, now - 3 * DAY, now - 8 * DAY, now - 30 * DAY, now + HOUR]) {
    const old = (await legacy(LEGACY_STREAKS_SQL, { since })).map((r) => ({
      collector: String(r.collector),
      cloud_account_id: String(r.cloud_account_id),
      cloud_region: String(r.cloud_region),
      last_run_at: Number(r.last_run_at),
      last_status: String(r.last_status),
      last_success_at: Number(r.last_success_at) > 0 ? Number(r.last_success_at) : null,
      consecutive_failures: Number(r.consecutive_failures),
      last_error: String(r.last_error ?? ""),
    }));
    const fresh = await store.consecutiveFailuresPerCollectorAccountRegion(since);
    expect(fresh).toEqual(old);
    // Only the series whose latest run did not succeed: the others have 0 failures in a row.
    expect(old.filter((r) => r.last_status === "succeeded").every((r) => r.consecutive_failures === 0)).toBe(
      true,
    );
    expect(await store.consecutiveFailuresPerCollectorAccountRegion(since, { failingOnly: true })).toEqual(
      old.filter((r) => r.last_status !== "succeeded"),
    );
    compared += old.filter((r) => r.consecutive_failures > 1).length;
  }
  // One read for the widest window answers every later window start (the read cache recomputes the
  // rows for each `since` from it): the same rows as reading each window, with one streak query.
  let streakQueries = 0;
  const client = new Proxy(store.client, {
    get(target, prop) {
      if (prop === "query")
        return (params: { query: string }) => {
          if (params.query.includes("svc.collector_series")) streakQueries += 1;
          return target.query(params as Parameters<typeof target.query>[0]);
        };
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const cached = new ClickHouseRunStore(client);
  // No background merge may change the parts (the write version) while the reads are counted.
  await store.client.command({ query: "SYSTEM STOP MERGES" });
  const sinces = [now - 30 * DAY, now - 8 * DAY, now - 3 * DAY, now - DAY, now - 2 * HOUR, now + HOUR];
  for (const since of sinces) {
    for (const failingOnly of [false, true]) {
      const expected = await store.consecutiveFailuresPerCollectorAccountRegion(since);
      expect(await cached.consecutiveFailuresPerCollectorAccountRegion(since, { failingOnly })).toEqual(
        failingOnly ? expected.filter((r) => r.last_status !== "succeeded") : expected,
      );
    }
  }
  await store.client.command({ query: "SYSTEM START MERGES" });
  expect(streakQueries).toBe(2);
  const oldLatest = await legacy(LEGACY_LATEST_SQL, {});
  expect(
    (await store.latestRunPerCollector()).map((r) => ({
      collector: r.collector,
      run_id: r.run_id,
      status: r.status,
      error: r.error,
      completed_at: String(r.completed_at),
      cloud_account_id: r.cloud_account_id,
    })),
  ).toEqual(oldLatest.map((r) => ({ ...r, completed_at: String(r.completed_at) })));
  expect(oldLatest.length).toBe(3);
  const oldSuccess = await legacy(LEGACY_SUCCESS_SQL, {});
  expect(
    (await store.lastSuccessPerCollector()).map((r) => ({
      collector: r.collector,
      last_success_at: String(r.last_success_at),
      run_id: r.run_id,
    })),
  ).toEqual(oldSuccess.map((r) => ({ ...r, last_success_at: String(r.last_success_at) })));
  expect(
    (await store.lastSucceededRunPerAccount(0)).map((r) => [r.cloud_account_id, String(r.last_success_at)]),
  ).toEqual(
    (await legacy(LEGACY_ACCOUNT_SUCCESS_SQL, {})).map((r) => [String(r.cloud_account_id), String(r.ms)]),
  );
  const started = await legacy(
    `SELECT collector, cloud_account_id, cloud_region, toUnixTimestamp64Milli(success_started) AS ms
     FROM (${LATEST_SUCCESS_STARTED_SQL}) ORDER BY collector, cloud_account_id, cloud_region`,
    {},
  );
  const oldStarted = await legacy(LEGACY_SUCCESS_STARTED_SQL, {});
  expect(started.map((r) => Object.values(r).map(String))).toEqual(
    oldStarted.map((r) => Object.values(r).map(String)),
  );
  expect(oldStarted.length).toBeGreaterThan(20);
  const today = Math.floor(now / DAY) * DAY;
  const oldDays = await legacy(LEGACY_FAILURES_SQL, { from: today - 6 * DAY, to: today + DAY });
  const newDays = (await store.failuresPerCollectorPerDay(7, now)).filter((r) => r.failures > 0);
  expect(newDays.map((r) => [r.collector, r.day, r.failures])).toEqual(
    oldDays.map((r) => [String(r.collector), String(r.day), Number(r.failures)]),
  );
  return compared;
}

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 30_000 });
  // Up to migration 12: rows stored before the pre-aggregated tables exist are backfilled by 13.
  await store.migrate();
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("latest state (migration 13) against the queries over svc.collector_runs", () => {
  it("is applied as versions 13 to 15 after the others", () => {
    // Later migrations (run starts, 17) come after; none is slotted between them.
    const upTo15 = MIGRATIONS.map((m) => m.version).filter((v) => v <= 15);
    expect(upTo15).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
  });

  it("gives the same streaks and failure counts: shuffled blocks, duplicates, a backfill, more rows", async () => {
    const rand = rng(7);
    const rows = shuffle(generate(1), rand);
    // Out of order, in 20 blocks, each one a separate insert (one part, one view block each).
    const blocks = 20;
    const per = Math.ceil(rows.length / blocks);
    for (let i = 0; i < rows.length; i += per) await insertRaw(rows.slice(i, i + per));
    // The same records again (a replayed batch), and retries of some runs with other timestamps.
    await insertRaw(rows.filter((_, i) => i % 11 === 0));
    await insertRaw(
      rows
        .filter((r, i) => i % 37 === 0 && r.status === "failed")
        .map((r) => ({ ...r, completed_at: r.completed_at + 1, started_at: r.started_at + 1 })),
    );
    // Streaks of more than one failure are among the rows compared.
    expect(await compareAll()).toBeGreaterThan(10);

    // Drop the pre-aggregated rows and backfill them as the migration does (the statements are
    // idempotent): the answers are the same again.
    await store.client.command({ query: "TRUNCATE TABLE svc.collector_series" });
    await store.client.command({ query: "TRUNCATE TABLE svc.collector_failed_runs" });
    // Migration 13's backfills of the tables still in use, then all of 14 (svc.collector_series).
    const m13 = MIGRATIONS.find((m) => m.version === 13);
    const m14 = MIGRATIONS.find((m) => m.version === 14);
    const backfills = (m13?.statements ?? []).filter(
      (s) =>
        s.startsWith("INSERT") &&
        !s.includes("svc.collector_streaks") &&
        !s.includes("svc.collector_latest_by_collector"),
    );
    for (const stmt of [...backfills, ...(m14?.statements ?? [])])
      await store.client.command({ query: stmt });
    // Running the backfills twice changes nothing either.
    for (const stmt of [...backfills, ...(m14?.statements ?? []).filter((s) => s.startsWith("INSERT"))])
      await store.client.command({ query: stmt });
    await compareAll();

    // Newer runs through the store (its own duplicate check), then merged parts: still the same.
    const more = generate(2)
      .filter((r) => r.completed_at > now - 2 * DAY)
      .map((r, i) => ({ ...r, run_id: uuid(1_000_000 + i), completed_at: r.completed_at + 3 }));
    await store.insertRuns(more.map(({ error, ...r }) => (r.status === "failed" ? { ...r, error } : r)));
    await compareAll();
    await store.client.command({ query: "OPTIMIZE TABLE svc.collector_series FINAL" });
    await store.client.command({ query: "OPTIMIZE TABLE svc.collector_failed_runs FINAL" });
    await compareAll();
  }, 120_000);

  it("breaks a tie on completed_at, started_at and status by run_id, as argMax over the latest key does", async () => {
    // Runs of one collector alike in all but run_id (and account): the keys of svc.collector_series
    // cannot tell them apart, so the read of the run they name must pick as the full order does.
    const at = now - 30 * MIN;
    // Ids that differ in every part: ClickHouse orders UUIDs by its own byte order, not as text.
    const ids = [
      "ffffffff-0000-4000-8000-000000000001",
      "00000000-ffff-4000-8000-000000000002",
      "80000000-0000-4000-8000-ffffffffffff",
      "00000001-0000-4000-8000-000000000000",
      "7fffffff-ffff-4fff-bfff-ffffffffffff",
    ];
    const tied = (status: Row["status"], id: string, i: number): Row => ({
      run_id: id,
      collector: "tie_collector",
      cloud_account_id: `10000000099${i}`,
      cloud_region: "us-east-1",
      started_at: at - 5000,
      completed_at: at,
      status,
      events_produced: i,
      rows_inserted: 0,
      error: status === "failed" ? `tie ${i}` : "",
      duration_ms: 5000,
    });
    // Succeeded ties for the latest success; then failed ties at the same instant, which rank later.
    await insertRaw(ids.slice(0, 3).map((id, i) => tied("succeeded", id, i)));
    await insertRaw(ids.slice(3).map((id, i) => tied("failed", id, i + 3)));
    await insertRaw([tied("partial", "0000ffff-0000-4000-8000-000000000009", 9)]);
    const oldLatest = (await legacy(LEGACY_LATEST_SQL, {})).find((r) => r.collector === "tie_collector");
    const latest = (await store.latestRunPerCollector()).find((r) => r.collector === "tie_collector");
    expect(latest?.run_id).toBe(oldLatest?.run_id);
    expect(latest?.status).toBe("failed");
    const oldSuccess = (await legacy(LEGACY_SUCCESS_SQL, {})).find((r) => r.collector === "tie_collector");
    const success = (await store.lastSuccessPerCollector()).find((r) => r.collector === "tie_collector");
    expect(success?.run_id).toBe(oldSuccess?.run_id);
    expect(success?.last_success_at).toBe(at);
    expect(ids.slice(0, 3)).toContain(success?.run_id);
  });

  it("writes concurrent insertRuns calls as one group, each answered as if the calls had run in turn", async () => {
    const t = now - HOUR;
    const mk = (n: number, at: number) => ({
      run_id: uuid(5_000_000 + n),
      collector: "config_network",
      cloud_account_id: "100000000009",
      cloud_region: "us-east-1",
      started_at: at - 1000,
      completed_at: at,
      status: "succeeded" as const,
      events_produced: 1,
      rows_inserted: 1,
      duration_ms: 1000,
    });
    await store.insertRuns([mk(0, t - 1)]);
    const calls = [
      [mk(1, t), mk(2, t + 1), mk(0, t - 1)],
      [mk(2, t + 1), mk(3, t + 2), mk(3, t + 2)],
      [{ ...mk(9, t), status: "unknown" as "failed" }],
      [mk(1, t), mk(4, t + 3)],
    ];
    const settled = await Promise.allSettled(calls.map((c) => store.insertRuns(c)));
    const id = (n: number) => uuid(5_000_000 + n);
    expect(settled[0]).toEqual({ status: "fulfilled", value: { inserted: 2, duplicates: [id(0)] } });
    // In-call repeats first, then the runs stored before (here: by the call before it).
    expect(settled[1]).toEqual({ status: "fulfilled", value: { inserted: 1, duplicates: [id(3), id(2)] } });
    expect(settled[2]?.status).toBe("rejected");
    expect(settled[3]).toEqual({ status: "fulfilled", value: { inserted: 1, duplicates: [id(1)] } });
    const rs = await store.client.query({
      query:
        "SELECT count() AS n, uniqExact(run_id) AS u FROM svc.collector_runs WHERE collector = 'config_network'",
      format: "JSONEachRow",
    });
    expect((await rs.json<{ n: unknown; u: unknown }>()).map((r) => [Number(r.n), Number(r.u)])).toEqual([
      [5, 5],
    ]);
  });
});
