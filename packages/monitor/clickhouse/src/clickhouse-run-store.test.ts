import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CollectorRunInput, RunStoreValidationError } from "@monitor/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chdbFolderDisk, chdbWriteVersion, createChdbClient, folderBytes, openChdbRunStore } from "./chdb.ts";
import { ClickHouseRunStore } from "./clickhouse-run-store.ts";

// One chDB data folder per test file (one engine per folder per process).
const dir = mkdtempSync(join(tmpdir(), "svcmon-runstore-"));
let store: ClickHouseRunStore;

const MIN = 60_000;
const DAY = 86_400_000;
// Recent times: rows older than 90 days would be dropped by the TTL.
const base = Math.floor((Date.now() - 6 * 60 * MIN) / 1000) * 1000 + 123;
let seq = 0;

function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

function run(p: Partial<CollectorRunInput> & { at: number }): CollectorRunInput {
  const { at, ...rest } = p;
  seq += 1;
  return {
    run_id: uuid(seq),
    collector: "config_ec2",
    cloud_account_id: "111111111111",
    cloud_region: "us-east-1",
    started_at: at - 1500,
    completed_at: at,
    status: "succeeded",
    events_produced: 10,
    rows_inserted: 5,
    duration_ms: 1500,
    ...rest,
  };
}

async function truncate(): Promise<void> {
  for (const t of [
    "svc.collector_runs",
    "svc.collector_series",
    "svc.collector_failed_runs",
    "svc.cloud_accounts",
    "svc.account_first_active",
  ]) {
    await exec(`TRUNCATE TABLE ${t}`);
  }
}

let exec: (q: string) => Promise<void>;

beforeAll(async () => {
  // the filesystem's figures (the tests' environment sets a quota: vitest.config.ts)
  store = openChdbRunStore(dir, { timeoutMs: 10_000, diskQuotaBytes: null });
  await store.migrate();
  // Same folder, same process: chDB shares the engine (ref-counted) for a second client.
  const admin = createChdbClient(dir);
  exec = async (q) => {
    await admin.command({ query: q });
  };
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("insertRuns", () => {
  beforeEach(truncate);

  /**
   * A store whose every INSERT is held until the test releases it (its row count noted), failing
   * instead when released with an error; `checks` counts the duplicate checks sent.
   */
  function holdingStore(opts: { groupGatherMs?: number } = {}) {
    const client = createChdbClient(dir);
    const inserts: number[] = [];
    const held: ((failure?: Error) => void)[] = [];
    let checks = 0;
    const holding = new Proxy(client, {
      get(target, prop) {
        if (prop === "insert")
          return async (params: { values: unknown[] }) => {
            inserts.push(params.values.length);
            const failure = await new Promise<Error | undefined>((release) => held.push(release));
            if (failure !== undefined) throw failure;
            return target.insert(params as unknown as Parameters<typeof target.insert>[0]);
          };
        if (prop === "query")
          return (params: { query: string }) => {
            if (params.query.includes("FROM svc.collector_runs") && params.query.includes("has("))
              checks += 1;
            return target.query(params as unknown as Parameters<typeof target.query>[0]);
          };
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const s = new ClickHouseRunStore(holding, { timeoutMs: 10_000, ...opts });
    return { s, inserts, held, checks: () => checks };
  }
  const until = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setImmediate(r));
  };

  it("forms the next group from half of the rows in flight: a caller answered sends again and joins it", async () => {
    // No clock in this test: the next group waits as long as it takes.
    const { s, inserts, held } = holdingStore({ groupGatherMs: 600_000 });
    // A lone caller never waits for others: one call at a time, each its own group.
    for (let i = 0; i < 3; i++) {
      const p = s.insertRuns([run({ at: base + i })]);
      await until(() => held.length > 0);
      held.shift()?.();
      expect(await p).toEqual({ inserted: 1, duplicates: [] });
    }
    expect(inserts).toEqual([1, 1, 1]);
    // Three calls write one group; a fourth arrives while it is written.
    const first = [1, 2, 3].map((i) => s.insertRuns([run({ at: base + MIN + i })]));
    await until(() => held.length > 0);
    const straggler = s.insertRuns([run({ at: base + 2 * MIN })]);
    held.shift()?.();
    // The group answered 3 rows and 1 waits: the next group waits for 2 (half of the 4 in flight),
    // so the caller answered first sends again and joins the straggler's group.
    await first[0];
    // The caller's own work before it sends again (the reply, the next body): a later turn of the loop.
    await new Promise((r) => setImmediate(r));
    const again = s.insertRuns([run({ at: base + 3 * MIN })]);
    await until(() => held.length > 0);
    held.shift()?.();
    expect(await Promise.all([...first, straggler, again])).toEqual(
      Array.from({ length: 5 }, () => ({ inserted: 1, duplicates: [] })),
    );
    expect(inserts).toEqual([1, 1, 1, 3, 2]);
    expect((await s.recentRuns("config_ec2", { limit: 50 })).length).toBe(8);
  });

  it("checks the next group while one is written: a run_id being written is a duplicate of the next call", async () => {
    const { s, inserts, held, checks } = holdingStore();
    const a = run({ at: base });
    const b = run({ at: base + 1 });
    const first = s.insertRuns([a]);
    await until(() => held.length === 1);
    expect(checks()).toBe(1);
    // As many rows wait as are being written: the next group forms and is checked beside the write.
    const second = s.insertRuns([{ ...a, status: "failed" }, b]);
    await until(() => checks() === 2);
    expect(inserts).toEqual([1]);
    held.shift()?.();
    expect(await first).toEqual({ inserted: 1, duplicates: [] });
    await until(() => held.length === 1);
    held.shift()?.();
    expect(await second).toEqual({ inserted: 1, duplicates: [a.run_id] });
    // Written once, as the runs of the first call: the second's copy was a duplicate.
    expect(inserts).toEqual([1, 1]);
    const stored = await s.recentRuns("config_ec2", { limit: 10 });
    expect(stored.map((r) => [r.run_id, r.status])).toEqual([
      [b.run_id, "succeeded"],
      [a.run_id, "succeeded"],
    ]);
  });

  it("a write that fails: the next group, checked beside it, is checked again and written whole", async () => {
    const { s, inserts, held, checks } = holdingStore();
    const a = run({ at: base });
    const b = run({ at: base + 1 });
    const first = s.insertRuns([a]);
    await until(() => held.length === 1);
    const second = s.insertRuns([a, b]);
    await until(() => checks() === 2);
    held.shift()?.(new Error("disk full"));
    await expect(first).rejects.toThrow(/disk full/);
    await until(() => held.length === 1);
    // Checked again once the write before it had failed: a is not stored, so it is this call's.
    expect(checks()).toBe(3);
    held.shift()?.();
    expect(await second).toEqual({ inserted: 2, duplicates: [] });
    expect(inserts).toEqual([1, 2]);
    expect((await s.recentRuns("config_ec2", { limit: 10 })).map((r) => r.run_id).sort()).toEqual(
      [a.run_id, b.run_id].sort(),
    );
  });

  it("a row the database rejects writes nothing of the batch (CHECK constraint)", async () => {
    const err = await exec(
      `INSERT INTO svc.collector_runs (collector, cloud_account_id, cloud_region, started_at, completed_at, status, events_produced, rows_inserted, duration_ms)
       VALUES ('x', 'a', 'r', now64(3), now64(3), 'succeeded', 1, 1, 1), ('x', 'a', 'r', now64(3), now64(3), 'weird', 1, 1, 1)`,
    ).catch((e: unknown) => e);
    expect(String(err)).toMatch(/status_known/);
    expect(await store.latestRunPerCollector()).toEqual([]);
  });
});

describe("accounts", () => {
  beforeEach(truncate);

  it("latest updated_at wins, and the first active time survives the merges that keep only the latest version", async () => {
    await store.upsertAccount({
      account_id: "a1",
      account_name: "Prod",
      svc_status: "active",
      updated_at: base + 2000,
    });
    await store.upsertAccount({
      account_id: "a1",
      account_name: "Prod (old)",
      svc_status: "pending_setup",
      updated_at: base + 1000,
    });
    await store.upsertAccount({
      account_id: "a2",
      account_name: "Dev",
      svc_status: "pending_setup",
      updated_at: base,
    });
    await store.upsertAccount({
      account_id: "a2",
      account_name: "Dev",
      svc_status: "no_access",
      updated_at: base + 1,
    });
    // first_active_at: the first active version (the grace of a never-scanned account), null if never.
    expect(await store.accountsLatest()).toEqual([
      {
        account_id: "a1",
        account_name: "Prod",
        svc_status: "active",
        updated_at: base + 2000,
        first_active_at: base + 2000,
      },
      {
        account_id: "a2",
        account_name: "Dev",
        svc_status: "no_access",
        updated_at: base + 1,
        first_active_at: null,
      },
    ]);
    await store.upsertAccount({
      account_id: "a2",
      account_name: "Dev",
      svc_status: "active",
      updated_at: base + 5,
    });
    await store.upsertAccount({
      account_id: "a2",
      account_name: "Dev",
      svc_status: "no_access",
      updated_at: base + 9,
    });
    await store.upsertAccount({
      account_id: "a2",
      account_name: "Dev",
      svc_status: "active",
      updated_at: base + 20,
    });
    expect((await store.accountsLatest())[1]).toMatchObject({
      svc_status: "active",
      first_active_at: base + 5,
    });
    // Merges keep only the latest version of svc.cloud_accounts; the first active time is kept apart.
    await exec("OPTIMIZE TABLE svc.cloud_accounts FINAL");
    expect((await store.accountsLatest())[1]).toMatchObject({
      updated_at: base + 20,
      first_active_at: base + 5,
    });
    await expect(
      store.upsertAccount({
        account_id: "a3",
        account_name: "X",
        svc_status: "gone" as never,
        updated_at: base,
      }),
    ).rejects.toBeInstanceOf(RunStoreValidationError);
  });
});

// The status reads themselves are the RunStore contract's (run-store.contract.test.ts, on chDB and
// over HTTP); what follows is ClickHouse's own: where its health figures come from.
describe("store health on a hand-built dataset", () => {
  const A = "111111111111";
  const B = "222222222222";
  const rows: CollectorRunInput[] = [];

  beforeAll(async () => {
    await truncate();
    rows.push(
      // config_ec2 / A / us-east-1: success then 3 failures
      run({ at: base, cloud_account_id: A }),
      run({ at: base + 1 * MIN, cloud_account_id: A, status: "failed", error: "e1" }),
      run({ at: base + 2 * MIN, cloud_account_id: A, status: "failed", error: "e2" }),
      run({ at: base + 3 * MIN, cloud_account_id: A, status: "failed", error: "e3" }),
      // config_ec2 / A / eu-west-1: partial breaks the streak, never succeeded
      run({ at: base + 1 * MIN, cloud_account_id: A, cloud_region: "eu-west-1", status: "failed" }),
      run({ at: base + 2 * MIN, cloud_account_id: A, cloud_region: "eu-west-1", status: "partial" }),
      run({ at: base + 3 * MIN, cloud_account_id: A, cloud_region: "eu-west-1", status: "failed" }),
      // config_ec2 / B / us-east-1: the collector's latest run
      run({ at: base + 4 * MIN, cloud_account_id: B, events_produced: 77, duration_ms: 4321 }),
      // config_ebs / A: success then partial
      run({ at: base + 10 * MIN, collector: "config_ebs", cloud_account_id: A }),
      run({
        at: base + 20 * MIN,
        collector: "config_ebs",
        cloud_account_id: A,
        status: "partial",
        error: "p",
      }),
      // hierarchy_builder: never succeeded
      run({
        at: base + 5 * MIN,
        collector: "hierarchy_builder",
        cloud_account_id: A,
        status: "failed",
        error: "dependency not met: no config_* success in 20 min",
      }),
      // an old failure, two days earlier (outside the streak window, inside the sparkline)
      run({ at: base - 2 * DAY, cloud_account_id: A, status: "failed" }),
    );
    // two batches, so the view aggregates across parts
    await store.insertRuns(rows.slice(0, 6));
    await store.insertRuns(rows.slice(6));
  });

  it("dbHealth returns numbers and names its sources", async () => {
    const h = await store.dbHealth();
    expect(h.disk_used_bytes).toBeGreaterThan(0);
    expect(h.svc_disk_used_bytes).toBeGreaterThan(0);
    expect(h.disk_total_bytes).toBeGreaterThan(0);
    expect(h.disk_free_bytes).toBeGreaterThan(0);
    expect(typeof h.active_queries).toBe("number");
    expect(h.query_samples).toBeGreaterThan(0);
    expect(h.query_p95_ms).toBeGreaterThanOrEqual(h.query_p50_ms ?? 0);
    expect(h.sources).toEqual({
      disk: "data-folder+statfs",
      active_queries: "system.processes",
      query_latency: "client-timings",
    });
  });

  it("the embedded store's disk is its data folder (its size) on the filesystem statfs reports", async () => {
    const h = await store.dbHealth();
    const fs = statfsSync(dir);
    // the whole folder (metadata, logs, parts of every database), not only the active parts
    expect(h.disk_used_bytes).toBe(await folderBytes(dir));
    expect(h.disk_used_bytes).toBeGreaterThan(h.svc_disk_used_bytes);
    // df's Use%: used / (used + available); root's reserved blocks count as neither
    const dfUse = (fs.blocks - fs.bfree) / (fs.blocks - fs.bfree + fs.bavail);
    const ratio = 1 - (h.disk_free_bytes ?? 0) / (h.disk_total_bytes ?? 1);
    expect(Math.abs(ratio - dfUse)).toBeLessThan(0.001);
    expect(Math.abs((h.disk_free_bytes ?? 0) - fs.bavail * fs.bsize)).toBeLessThan(64 * 1024 * 1024);
  });

  it("with a quota, the embedded store's disk is its data folder against the quota, or less when the filesystem has less free", async () => {
    const used = await folderBytes(dir);
    const quota = used + 10 * 1024 * 1024;
    const h = await openChdbRunStore(dir, { timeoutMs: 10_000, diskQuotaBytes: quota }).dbHealth();
    expect(h.disk_total_bytes).toBe(quota);
    // the folder grows a little between the two walks (its logs)
    expect(h.disk_free_bytes).toBeLessThanOrEqual(10 * 1024 * 1024);
    expect(h.disk_free_bytes).toBeGreaterThan(9 * 1024 * 1024);
    expect(h.sources.disk).toBe("data-folder+statfs");
    const fs = statfsSync(dir);
    // a quota larger than the free space: what the filesystem has is what is free
    const huge = 1024 ** 5;
    const full = await chdbFolderDisk(dir, huge);
    expect(full.total_bytes).toBe(huge);
    expect(Math.abs(full.free_bytes - fs.bavail * fs.bsize)).toBeLessThan(64 * 1024 * 1024);
    // a folder over its quota: nothing free, never a negative figure
    expect((await chdbFolderDisk(dir, 1024 * 1024)).free_bytes).toBe(0);
  });

  it("a server's disk comes from system.disks (the same query, run here against chDB)", async () => {
    const server = new ClickHouseRunStore(createChdbClient(dir), { timeoutMs: 10_000 });
    const h = await server.dbHealth();
    expect(h.sources.disk).toBe("system.parts+system.disks");
    expect(h.disk_total_bytes).toBeGreaterThan(0);
    expect(h.disk_free_bytes).toBeGreaterThan(0);
  });

  it("injected disk figures are reported as they are; a folder that cannot be read falls back to system.disks", async () => {
    const injected = new ClickHouseRunStore(createChdbClient(dir), {
      timeoutMs: 10_000,
      localDisk: async () => ({ used_bytes: 42e9, total_bytes: 100e9, free_bytes: 19e9 }),
    });
    expect(await injected.dbHealth()).toMatchObject({
      disk_used_bytes: 42e9,
      disk_total_bytes: 100e9,
      disk_free_bytes: 19e9,
      sources: { disk: "data-folder+statfs" },
    });
    const unreadable = new ClickHouseRunStore(createChdbClient(dir), {
      timeoutMs: 10_000,
      localDisk: () => chdbFolderDisk(join(dir, "no-such-folder")),
    });
    expect((await unreadable.dbHealth()).sources.disk).toBe("system.parts+system.disks");
  });
});

describe("read cache (keyed by the write version of the tables read)", () => {
  beforeEach(truncate);

  /** A client of its own on the same folder, counting the queries that read svc tables. */
  function countingClient() {
    const client = createChdbClient(dir);
    let reads = 0;
    const counting = new Proxy(client, {
      get(target, prop) {
        if (prop === "query")
          return (params: { query: string }) => {
            if (/FROM svc\./.test(params.query)) reads += 1;
            return target.query(params as Parameters<typeof target.query>[0]);
          };
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    return { client: counting, reads: () => reads };
  }

  /** A store over its own client on the same folder, counting the queries that read svc tables. */
  function countingStore(): { store: ClickHouseRunStore; reads: () => number } {
    const { client, reads } = countingClient();
    return { store: new ClickHouseRunStore(client, { timeoutMs: 10_000 }), reads };
  }

  const statusReads = async (s: ClickHouseRunStore) => ({
    latest: await s.latestRunPerCollector(),
    successes: await s.lastSuccessPerCollector(),
    streaks: await s.consecutiveFailuresPerCollectorAccountRegion(base - DAY),
    failing: await s.consecutiveFailuresPerCollectorAccountRegion(base - DAY, { failingOnly: true }),
    accounts: await s.accountsLatest(),
    scans: await s.lastSucceededRunPerAccount(0),
    days: await s.failuresPerCollectorPerDay(7),
    recent: await s.recentRuns("config_ec2", { limit: 40 }),
    recentSeries: await s.recentRuns("config_ec2", { limit: 5, cloud_region: "us-east-1" }),
  });

  it("sees every write at once, by this store, another store or a plain INSERT; unchanged data is read once", async () => {
    const reader = countingStore();
    const uncached = new ClickHouseRunStore(createChdbClient(dir), { timeoutMs: 10_000, readCache: false });
    // `reader` keys its cache by the parts of the tables read (a server's store), `store` (the
    // embedded store of this folder) by the count of this process's writes to the folder.
    const same = async () => {
      const expected = await statusReads(uncached);
      expect(await statusReads(reader.store)).toEqual(expected);
      expect(await statusReads(store)).toEqual(expected);
    };
    await store.insertRuns([run({ at: base - MIN })]);
    // No background merge may change the parts (the write version) while the reads are counted.
    await exec("SYSTEM STOP MERGES");
    try {
      await same();
      const first = reader.reads();
      await same();
      // Nothing written: answered from memory.
      expect(reader.reads()).toBe(first);
      await exec("SYSTEM START MERGES");

      // A write by another store (another writer on the same database).
      await store.insertRuns([run({ at: base, status: "failed", error: "e1" })]);
      await same();
      expect((await reader.store.latestRunPerCollector())[0]?.status).toBe("failed");
      expect(reader.reads()).toBeGreaterThan(first);
      // A plain INSERT into the runs table (the views feed the tables read).
      await exec(
        `INSERT INTO svc.collector_runs (run_id, collector, cloud_account_id, cloud_region, started_at, completed_at, status, events_produced, rows_inserted, duration_ms)
         VALUES ('${uuid(9_999)}', 'config_ec2', '111111111111', 'us-east-1', fromUnixTimestamp64Milli(${base + MIN - 10}), fromUnixTimestamp64Milli(${base + MIN}), 'succeeded', 1, 1, 10)`,
      );
      await same();
      expect((await reader.store.latestRunPerCollector())[0]?.run_id).toBe(uuid(9_999));
      // An account written elsewhere, then a new version of it.
      await store.upsertAccount({
        account_id: "111111111111",
        account_name: "one",
        svc_status: "active",
        updated_at: base,
      });
      await same();
      await store.upsertAccount({
        account_id: "111111111111",
        account_name: "one",
        svc_status: "no_access",
        updated_at: base + 1,
      });
      await same();
      expect((await reader.store.accountsLatest())[0]?.svc_status).toBe("no_access");
      // A mutation and a truncation change the answers too.
      await exec("ALTER TABLE svc.collector_series DELETE WHERE 1 SETTINGS mutations_sync = 1");
      await same();
      expect(await reader.store.latestRunPerCollector()).toEqual([]);
      await truncate();
      await same();
      expect((await reader.store.consecutiveFailuresPerCollectorAccountRegion(base - DAY)).length).toBe(0);
    } finally {
      // (again, when an assertion failed while they were stopped)
      await exec("SYSTEM START MERGES");
    }
  });

  it("the embedded store reads again what no write changed once its entry is older than readCacheMaxAgeMs", async () => {
    const version = chdbWriteVersion(dir);
    const { client: counting, reads: readCount } = countingClient();
    let clock = 0;
    const cached = new ClickHouseRunStore(counting, {
      writeVersion: version,
      readCacheMaxAgeMs: 50,
      readCacheClock: () => clock,
    });
    await cached.latestRunPerCollector();
    await cached.latestRunPerCollector();
    expect(readCount()).toBe(1);
    // Reads and writes to tables the reads do not come from leave the version as it is.
    const before = version();
    await exec("SELECT 1");
    await exec(
      "INSERT INTO svc.alert_state (key, state, version, updated_at) VALUES ('test', '{}', 1, now64(3))",
    );
    expect(version()).toBe(before);
    await cached.latestRunPerCollector();
    expect(readCount()).toBe(1);
    // Any other statement may change them (here a statement on the runs table).
    await exec("OPTIMIZE TABLE svc.collector_runs");
    expect(version()).not.toBe(before);
    await cached.latestRunPerCollector();
    expect(readCount()).toBe(2);
    clock += 50;
    await cached.latestRunPerCollector();
    expect(readCount()).toBe(2);
    clock += 1;
    await cached.latestRunPerCollector();
    expect(readCount()).toBe(3);
  });
});
