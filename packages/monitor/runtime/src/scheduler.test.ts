import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_ACCOUNTS, SimulatedCloud, simulatedCollectors } from "@monitor/aws/simulation";
import { ClickHouseCollectorRegistry, type ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import {
  type Collector,
  type CollectorAccount,
  type CollectorContext,
  type CollectorResult,
  type CollectorSpec,
  collectorHealth,
  DEFAULT_COLLECTORS,
  type RunRecord,
  type RunStore,
  type RuntimeLogEvent,
} from "@monitor/core";
import { FakeClock } from "@monitor/core/fake-clock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accountsFromStore, Scheduler, type SchedulerOptions } from "./scheduler.ts";

// One chDB data folder per test file (one engine per folder per process).
const dir = mkdtempSync(join(tmpdir(), "svcmon-scheduler-"));
let store: ClickHouseRunStore;
const MIN = 60_000;
// Recent times: rows older than 90 days would be dropped by the TTL.
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3 * 60 * MIN;
const A: CollectorAccount = { account_id: "111111111111", account_name: "prod" };
const R1 = "us-east-1";
const R2 = "eu-west-1";

let clock: FakeClock;
let logs: RuntimeLogEvent[];

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  for (const t of [
    "svc.collector_runs",
    "svc.collector_series",
    "svc.collector_failed_runs",
    "svc.cloud_accounts",
    "svc.collectors",
    "svc.run_starts",
  ]) {
    await store.client.command({ query: `TRUNCATE TABLE ${t}` });
  }
  clock = new FakeClock(T0);
  logs = [];
});

async function allRuns(): Promise<RunRecord[]> {
  const rs = await store.client.query({
    query: `SELECT toString(run_id) AS run_id, collector, cloud_account_id, cloud_region,
      toUnixTimestamp64Milli(started_at) AS started_at, toUnixTimestamp64Milli(completed_at) AS completed_at,
      status, events_produced, rows_inserted, error, duration_ms
    FROM svc.collector_runs ORDER BY completed_at, started_at, collector, cloud_account_id, cloud_region`,
    format: "JSONEachRow",
  });
  const rows = await rs.json<Record<string, unknown>>();
  return rows.map((r) => ({
    ...(r as unknown as RunRecord),
    started_at: Number(r.started_at),
    completed_at: Number(r.completed_at),
    events_produced: Number(r.events_produced),
    rows_inserted: Number(r.rows_inserted),
    duration_ms: Number(r.duration_ms),
  }));
}

function scheduler(collectors: Collector[], opts: Partial<SchedulerOptions> = {}): Scheduler {
  return new Scheduler({
    collectors,
    registry: ClickHouseCollectorRegistry.fromStore(store, { now: () => clock.now() }),
    store,
    accounts: async () => [A],
    regions: [R1],
    timeoutMs: 5000,
    clock,
    log: (e) => logs.push(e),
    ...opts,
  });
}

function collector(name: string, run: (ctx: CollectorContext) => Promise<CollectorResult>) {
  const calls: CollectorContext[] = [];
  const c: Collector = {
    name,
    run: (ctx) => {
      calls.push(ctx);
      return run(ctx);
    },
  };
  return { c, calls };
}

const ok = (events = 3, rows = 2): CollectorResult => ({
  status: "succeeded",
  events_produced: events,
  rows_inserted: rows,
});

async function until(cond: () => boolean | Promise<boolean>, realTimeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + realTimeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 2));
  }
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

async function insertRun(collector: string, status: RunRecord["status"], at: number): Promise<void> {
  await store.insertRuns([
    {
      collector,
      cloud_account_id: A.account_id,
      cloud_region: R1,
      started_at: at - 1000,
      completed_at: at,
      status,
      events_produced: 1,
      rows_inserted: 1,
      duration_ms: 1000,
    },
  ]);
}

describe("one run, one record", () => {
  it("succeeded: measured started_at, completed_at and duration; run_id generated once", async () => {
    const { c, calls } = collector("config_ec2", async (ctx) => {
      expect(ctx.now()).toBe(T0);
      await clock.advance(1234);
      return ok(7, 5);
    });
    const out = await scheduler([c]).runOnce(c, A, R1);
    expect(out.outcome).toBe("recorded");
    const runs = await allRuns();
    expect(runs).toHaveLength(1);
    expect(out.outcome === "recorded" && out.record).toEqual(runs[0]);
    expect(runs[0]).toMatchObject({
      collector: "config_ec2",
      cloud_account_id: A.account_id,
      cloud_region: R1,
      started_at: T0,
      completed_at: T0 + 1234,
      duration_ms: 1234,
      status: "succeeded",
      events_produced: 7,
      rows_inserted: 5,
      error: "",
    });
    expect(calls[0]?.account).toEqual({ account_id: A.account_id, account_name: "prod" });
    expect(calls[0]?.region).toBe(R1);
    expect(calls[0]?.signal.aborted).toBe(false);
  });

  it("a throw (async or sync) or a malformed result is `failed` with the error text", async () => {
    const { c: asyncThrow } = collector("config_ec2", async () => {
      await clock.advance(10);
      throw new Error("boom");
    });
    const syncThrow: Collector = {
      name: "config_ebs",
      run: () => {
        throw new TypeError("bad");
      },
    };
    const { c: malformed } = collector("config_network", async () => ({ ...ok(), events_produced: -1 }));
    const s = scheduler([asyncThrow, syncThrow, malformed]);
    await s.runOnce(asyncThrow, A, R1);
    await s.runOnce(syncThrow, A, R1);
    await s.runOnce(malformed, A, R1);
    const runs = await allRuns();
    expect(runs.map((r) => [r.collector, r.status, r.error, r.events_produced, r.duration_ms])).toEqual([
      ["config_ec2", "failed", "Error: boom", 0, 10],
      ["config_ebs", "failed", "TypeError: bad", 0, 0],
      ["config_network", "failed", expect.stringMatching(/^invalid collector result/), 0, 0],
    ]);
  });

  it("partial is recorded as reported", async () => {
    const { c } = collector("config_ebs", async () => ({
      status: "partial",
      events_produced: 4,
      rows_inserted: 4,
      error: "DescribeVolumes page 3: InternalError",
    }));
    await scheduler([c]).runOnce(c, A, R1);
    expect(await allRuns()).toEqual([
      expect.objectContaining({
        status: "partial",
        events_produced: 4,
        error: "DescribeVolumes page 3: InternalError",
      }),
    ]);
  });

  it("timeout: aborts the signal, records `failed` `timed out after N ms`, nothing before", async () => {
    const { c, calls } = collector(
      "config_ec2",
      (ctx) =>
        new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    );
    const p = scheduler([c]).runOnce(c, A, R1);
    await clock.waitForTimers(1);
    await clock.advance(4999);
    expect(await allRuns()).toEqual([]);
    await clock.advance(1);
    const out = await p;
    expect(out.outcome === "recorded" && out.record).toMatchObject({
      status: "failed",
      error: "timed out after 5000 ms",
      duration_ms: 5000,
      started_at: T0,
      completed_at: T0 + 5000,
    });
    expect(calls[0]?.signal.aborted).toBe(true);
    expect(await allRuns()).toHaveLength(1);
  });

  it("a collector that ignores the abort: recorded once at the timeout, its late result is dropped, and the subject stays busy until it stops", async () => {
    const late = deferred<CollectorResult>();
    let n = 0;
    const { c } = collector("config_ec2", () => (++n === 1 ? late.promise : Promise.resolve(ok())));
    const s = scheduler([c]);
    const p = s.runOnce(c, A, R1);
    await clock.waitForTimers(1);
    await clock.advance(5000);
    expect((await p).outcome).toBe("recorded");
    expect(await s.runOnce(c, A, R1)).toMatchObject({ outcome: "skipped" });
    late.resolve(ok(99, 99));
    await new Promise((r) => setImmediate(r));
    expect((await s.runOnce(c, A, R1)).outcome).toBe("recorded");
    const runs = await allRuns();
    expect(runs.map((r) => [r.status, r.events_produced])).toEqual([
      ["failed", 0],
      ["succeeded", 3],
    ]);
  });

  it("a failed write is retried with the same run_id: still exactly one record", async () => {
    let attempts = 0;
    const flaky = new Proxy(store, {
      get(target, prop) {
        if (prop === "insertRuns") {
          return async (rows: Parameters<RunStore["insertRuns"]>[0]) => {
            attempts++;
            const res = await target.insertRuns(rows);
            if (attempts === 1) throw new Error("connection reset after the write");
            return res;
          };
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    }) as RunStore;
    const { c } = collector("config_ec2", async () => ok());
    const p = scheduler([c], { store: flaky }).runOnce(c, A, R1);
    await until(() => attempts === 1 && clock.pending === 1); // the retry timer
    await clock.advance(1000);
    expect((await p).outcome).toBe("recorded");
    expect(attempts).toBe(2);
    expect(await allRuns()).toHaveLength(1);
  });

  it("a run that never finishes writes nothing, and the rules show the collector stale", async () => {
    await insertRun("config_ec2", "succeeded", T0);
    const { c } = collector("config_ec2", () => new Promise(() => {}));
    const spec: CollectorSpec = {
      name: "config_ec2",
      expected_interval_minutes: 15,
      freshness_threshold_minutes: 60,
    };
    const s = scheduler([c], { timeoutMs: 60 * MIN });
    const p = s.runOnce(c, A, R1);
    await clock.waitForTimers(1);
    await clock.advance(31 * MIN);
    const runs = await allRuns();
    expect(runs).toHaveLength(1); // only the earlier success
    expect(collectorHealth(spec, runs, clock.now()).health).toBe("red");
    await clock.advance(29 * MIN);
    expect(await p).toMatchObject({ outcome: "recorded", record: { status: "failed" } });
  });
});

describe("no overlap", () => {
  it("skips (and logs) a run of a (collector, account, region) still running; other regions run", async () => {
    const gates = [deferred<CollectorResult>(), deferred<CollectorResult>()];
    let i = 0;
    const { c, calls } = collector(
      "config_ec2",
      () => (gates[i++] as { promise: Promise<CollectorResult> }).promise,
    );
    const s = scheduler([c]);
    const p1 = s.runOnce(c, A, R1);
    const p2 = s.runOnce(c, A, R1);
    const p3 = s.runOnce(c, A, R2);
    expect(await p2).toEqual({
      outcome: "skipped",
      reason: "previous run of this collector, account and region is still running",
    });
    expect(logs.some((l) => l.level === "warn" && l.msg.startsWith("run skipped") && l.region === R1)).toBe(
      true,
    );
    await new Promise((r) => setImmediate(r));
    expect(calls.map((x) => x.region)).toEqual([R1, R2]);
    gates[0]?.resolve(ok());
    gates[1]?.resolve(ok());
    await Promise.all([p1, p3]);
    const runs = await allRuns();
    expect(runs.map((r) => r.cloud_region).sort()).toEqual([R2, R1].sort());
  });
});

describe("hierarchy_builder dependency gate", () => {
  it("fails with `dependency not met` without calling the collector", async () => {
    const { c, calls } = collector("hierarchy_builder", async () => ok());
    const s = scheduler([c]);
    let out = await s.runOnce(c, A, R1);
    expect(out.outcome === "recorded" && out.record.error).toBe(
      "dependency not met: no succeeded run of config_ec2, config_ebs, config_network completed in the last 20 min (none ever)",
    );
    // failed and partial upstream runs do not open it; nor does a success 21 minutes ago
    await insertRun("config_ec2", "succeeded", T0 - 21 * MIN);
    await insertRun("config_ebs", "failed", T0);
    await insertRun("config_network", "partial", T0);
    out = await s.runOnce(c, A, R1);
    expect(out).toMatchObject({ outcome: "recorded", record: { status: "failed", events_produced: 0 } });
    expect(out.outcome === "recorded" && out.record.error).toMatch(
      /^dependency not met: .*\(latest: config_ec2 21 min ago\)$/,
    );
    expect(calls).toHaveLength(0);
    expect((await allRuns()).filter((r) => r.collector === "hierarchy_builder")).toHaveLength(2);
  });

  it("opens after a config_* success within 20 minutes (inclusive), closes after", async () => {
    const { c: ec2 } = collector("config_ec2", async () => ok());
    const { c: hb, calls } = collector("hierarchy_builder", async () => ok(10, 12));
    const s = scheduler([ec2, hb]);
    await s.runOnce(ec2, A, R1);
    await clock.advance(20 * MIN);
    expect(await s.runOnce(hb, A, R1)).toMatchObject({ record: { status: "succeeded", rows_inserted: 12 } });
    await clock.advance(1);
    expect(await s.runOnce(hb, A, R1)).toMatchObject({ record: { status: "failed" } });
    expect(calls).toHaveLength(1);
  });
});

describe("schedule", () => {
  it("runs each collector for every active account × region, every expected interval (registry overrides apply)", async () => {
    const accounts: CollectorAccount[] = [
      A,
      { account_id: "222222222222", account_name: "setup", svc_status: "pending_setup" },
      { account_id: "333333333333", account_name: "denied", svc_status: "no_access" },
      { account_id: "444444444444", account_name: "dev", svc_status: "active" },
    ];
    const { c: ec2, calls: ec2Calls } = collector("config_ec2", async () => ok());
    const { c: hb, calls: hbCalls } = collector("hierarchy_builder", async () => ok());
    const registry = ClickHouseCollectorRegistry.fromStore(store, { now: () => clock.now() });
    const s = scheduler([ec2, hb], { registry, accounts: async () => accounts, regions: [R1, R2] });
    s.start();
    await s.idle();
    // first tick: config_ec2 first, then hierarchy_builder (gate open)
    let runs = await allRuns();
    expect(runs.filter((r) => r.collector === "config_ec2")).toHaveLength(4);
    expect(runs.filter((r) => r.collector === "hierarchy_builder").map((r) => r.status)).toEqual(
      Array(4).fill("succeeded"),
    );
    expect(new Set(runs.map((r) => r.cloud_account_id))).toEqual(new Set(["111111111111", "444444444444"]));
    expect(clock.pending).toBe(2);

    await clock.advance(15 * MIN);
    await s.idle();
    expect(ec2Calls).toHaveLength(8);
    expect(hbCalls).toHaveLength(4);

    await registry.put({ ...(DEFAULT_COLLECTORS[0] as CollectorSpec), expected_interval_minutes: 5 });
    await clock.advance(15 * MIN); // t=30: ec2 (next at 35 now) and hierarchy_builder
    await s.idle();
    await clock.advance(5 * MIN); // t=35
    await s.idle();
    expect(ec2Calls).toHaveLength(16);
    expect(hbCalls).toHaveLength(8);
    runs = await allRuns();
    expect(runs).toHaveLength(24);
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);

    await s.stop();
    expect(clock.pending).toBe(0);
    await clock.advance(60 * MIN);
    expect(ec2Calls).toHaveLength(16);
  });

  it("simulated cloud: faults become failed/partial records; inactive demo accounts are skipped", async () => {
    for (const a of DEMO_ACCOUNTS) await store.upsertAccount({ ...a, updated_at: T0 - MIN });
    const cloud = new SimulatedCloud({ clock });
    cloud.setFault("111111111111", R1, { kind: "no_access" });
    cloud.setFault("222222222222", "*", { kind: "throttled", delayMs: 8000 });
    cloud.setFault("333333333333", R2, { kind: "partial" });
    const [ec2] = simulatedCollectors(cloud);
    const s = scheduler([ec2 as Collector], { accounts: accountsFromStore(store), regions: [R1, R2] });
    const p = s.runCollector("config_ec2");
    // 3 active accounts × 2 regions; the two throttled runs hang in their delay until the timeout
    await until(async () => (await allRuns()).length === 4);
    await clock.advance(5000);
    const outs = await p;
    expect(outs).toHaveLength(6);
    const runs = await allRuns();
    const by = (acct: string, region: string) =>
      runs.find((r) => r.cloud_account_id === acct && r.cloud_region === region);
    expect(by("111111111111", R1)).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/^AccessDenied: .*sts:AssumeRole/),
    });
    expect(by("111111111111", R2)).toMatchObject({ status: "succeeded" });
    expect(by("222222222222", R1)).toMatchObject({ status: "failed", error: "timed out after 5000 ms" });
    expect(by("333333333333", R2)).toMatchObject({
      status: "partial",
      error: expect.stringMatching(/^partial: /),
    });
    const inv = cloud.inventory("333333333333", R1);
    expect(by("333333333333", R1)).toMatchObject({
      status: "succeeded",
      events_produced: inv.instances.length,
      rows_inserted: inv.instances.filter((i) => i.state !== "terminated").length,
    });
    expect(runs).toHaveLength(6);
    expect(runs.some((r) => ["444444444444", "555555555555"].includes(r.cloud_account_id))).toBe(false);
  });
});

describe("run starts", () => {
  it("records a start before the run ends, under the run record's run_id: open while it runs, paired after", async () => {
    const gate = deferred<CollectorResult>();
    const { c, calls } = collector("config_ebs", () => gate.promise);
    const s = scheduler([c]);
    const p = s.runOnce(c, A, R1);
    await until(() => calls.length === 1);
    const runId = calls[0]?.run_id;
    await until(async () => (await store.openStarts(0)).some((o) => o.run_id === runId));
    expect((await store.openStarts(0)).find((o) => o.run_id === runId)).toEqual({
      run_id: runId,
      collector: "config_ebs",
      cloud_account_id: A.account_id,
      cloud_region: R1,
      started_at: clock.now(),
    });
    gate.resolve(ok());
    const out = await p;
    expect(out.outcome === "recorded" && out.record.run_id).toBe(runId);
    expect((await store.openStarts(0)).filter((o) => o.run_id === runId)).toEqual([]);
  });
});
