import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ClickHouseAlertStateStore,
  ClickHouseDeliveryLog,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import {
  type AlertState,
  type AlertStateStore,
  alertFingerprint,
  type CollectorRunInput,
  type CollectorSpec,
  emptyState,
  InMemoryCollectorRegistry,
  type RunStatus,
} from "@monitor/core";
import { AlertEngine } from "@monitor/runtime";
import { type Channel, type DeliveryLog, InMemoryDeliveryLog, webhookChannel } from "@shared/notify";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, memoryLog, uuid } from "./test-support.ts";

// Real chDB on this file's own temp folder; real HTTP receivers behind real webhook channels.
// Each test uses its own collector and its own state key, so the tests share the store. A restart
// closes the store and opens a new one on the same folder, as the next process would.
const dir = mkdtempSync(join(tmpdir(), "svcmon-alerts-loop-"));
let store: ClickHouseRunStore;
let receiver: HttpReceiverDouble;
let second: HttpReceiverDouble;
const NOW = Math.floor(Date.now() / MIN) * MIN;

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
  receiver = await startHttpReceiverDouble();
  second = await startHttpReceiverDouble();
});

afterAll(async () => {
  await receiver.close();
  await second.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The process stops; the next one opens the same data folder. */
async function restartStore(): Promise<void> {
  await store.close();
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
}

const spec = (name: string): CollectorSpec => ({
  name,
  expected_interval_minutes: 15,
  freshness_threshold_minutes: 30,
});

async function run(collector: string, at: number, status: RunStatus = "succeeded"): Promise<void> {
  await store.insertRuns([
    {
      run_id: uuid(77),
      collector,
      cloud_account_id: "111111111111",
      cloud_region: "us-east-1",
      started_at: at - 2000,
      completed_at: at,
      status,
      events_produced: 1,
      rows_inserted: 1,
      error: "",
      duration_ms: 2000,
    },
  ]);
}

function setup(
  collector: string,
  opts: { channels?: boolean; log?: InMemoryDeliveryLog; spec?: CollectorSpec } = {},
) {
  const clock = { now: NOW };
  const deliveryLog = opts.log ?? new InMemoryDeliveryLog();
  const make = () =>
    new AlertEngine({
      store,
      registry: new InMemoryCollectorRegistry([opts.spec ?? spec(collector)]),
      stateStore: new ClickHouseAlertStateStore(store.client, { key: `test-${collector}` }),
      channels: opts.channels === false ? [] : [webhookChannel({ url: receiver.url("/hook") })],
      deliveryLog,
      now: () => clock.now,
      log: memoryLog(),
    });
  // biome-ignore lint/suspicious/noExplicitAny: webhook bodies are read loosely
  const got = (): any[] =>
    receiver.received
      .filter((r) => (r.body as { subject?: string } | undefined)?.subject === collector)
      .map((r) => ({ ...(r.body as object), status: r.status }));
  return { clock, deliveryLog, make, got };
}

describe("AlertEngine", () => {
  it("delivers a stale collector's firing notification to the webhook once", async () => {
    const { clock, make, got } = setup("stale_a");
    await run("stale_a", NOW - 60 * MIN);
    const engine = make();
    const t1 = await engine.tick();
    expect(t1.delivered).toHaveLength(1);
    expect(got()).toHaveLength(1);
    expect(got()[0]).toMatchObject({
      id: t1.delivered[0],
      source: "monitor",
      rule: "collector_stale",
      subject: "stale_a",
      severity: "critical",
      kind: "firing",
      status: 204,
    });
    clock.now += MIN;
    const t2 = await engine.tick();
    expect(t2.delivered).toEqual([]);
    expect(got()).toHaveLength(1);
  });

  it("after a restart does not repeat the start, and delivers the resolve", async () => {
    const { clock, make, got } = setup("stale_b");
    await run("stale_b", NOW - 60 * MIN);
    await make().tick();
    expect(got().map((b) => b.kind)).toEqual(["firing"]);

    const restarted = make(); // new engine, new state-store instance, same table and key
    clock.now += 2 * MIN;
    await restarted.tick();
    expect(got()).toHaveLength(1);

    await run("stale_b", clock.now - 1000);
    clock.now += MIN;
    const t = await restarted.tick();
    expect(t.flips.map((f) => [f.key, f.to])).toEqual([["collector_stale|stale_b", "resolved"]]);
    expect(got().map((b) => [b.kind, b.rule, b.subject])).toEqual([
      ["firing", "collector_stale", "stale_b"],
      ["resolved", "collector_stale", "stale_b"],
    ]);
    expect(await restarted.firingAlerts()).toEqual([]);
    clock.now += MIN;
    await make().tick();
    expect(got()).toHaveLength(2);
  });

  it("keeps the alert un-notified while the channel is down and retries after the backoff", async () => {
    const { clock, deliveryLog, make, got } = setup("stale_c");
    await run("stale_c", NOW - 60 * MIN);
    const engine = make();
    receiver.failNext(1);
    const t1 = await engine.tick();
    expect(t1.failed).toHaveLength(1);
    expect(got().map((b) => b.status)).toEqual([503]);
    const attempts = await deliveryLog.attempts(t1.failed[0] as string);
    expect(attempts).toMatchObject([{ ok: false, attempt: 1 }]);
    expect(attempts[0]?.error).toContain("503");
    expect(await engine.firingAlerts()).toMatchObject([{ subject: "stale_c", notified: false }]);
    const stored = await new ClickHouseAlertStateStore(store.client, { key: "test-stale_c" }).load();
    expect(stored.alerts["collector_stale|stale_c"]?.delivery).toMatchObject({
      kind: "start",
      attempt: 1,
      nextAttemptAt: NOW + 30_000,
    });
    expect(stored.alerts["collector_stale|stale_c"]?.delivery?.lastError).toContain("503");

    clock.now += 10_000; // before the retry time: nothing sent
    expect((await engine.tick()).delivered).toEqual([]);
    expect(got()).toHaveLength(1);

    clock.now = NOW + 31_000;
    const t3 = await engine.tick();
    expect(t3.delivered).toHaveLength(1);
    expect(got().map((b) => [b.kind, b.status])).toEqual([
      ["firing", 503],
      ["firing", 204],
    ]);
    expect(await engine.firingAlerts()).toMatchObject([{ subject: "stale_c", notified: true }]);
  });

  it("shows the firing alerts in the status JSON (also with no channel configured)", async () => {
    const { make } = setup("stale_d", { channels: false });
    await run("stale_d", NOW - 60 * MIN);
    const engine = make();
    const t = await engine.tick();
    // Nowhere to send: nothing attempted (it is sent once a channel is configured).
    expect(t).toMatchObject({ delivered: [], failed: [] });
    const app = makeApp({
      store,
      registry: new InMemoryCollectorRegistry([spec("stale_d")]),
      now: () => NOW,
      alerts: () => engine.firingAlerts(),
    });
    const r = await call(app, "GET", "/api/system/status");
    expect(r.status).toBe(200);
    expect(r.body.alerts).toEqual([
      {
        rule: "collector_stale",
        subject: "stale_d",
        severity: "critical",
        since: new Date(NOW).toISOString(),
        notified: false,
        fingerprint: alertFingerprint("collector_stale", "stale_d"),
        summary: expect.any(String),
        last_error: null,
        muted: false,
        muted_by: null,
        reason: null,
      },
    ]);
  });
});

describe("ClickHouseAlertStateStore", () => {
  it("loads emptyState when nothing was saved, and the latest save after a reopen", async () => {
    const a = new ClickHouseAlertStateStore(store.client, { key: "test-store" });
    expect(await a.load()).toEqual(emptyState());
    const s1 = { ...emptyState(), seq: 1 };
    const s2 = { ...emptyState(), seq: 2 };
    await a.save(s1);
    await a.save(s2); // same millisecond: still ordered
    expect(await a.load()).toEqual(s2);
    const b = new ClickHouseAlertStateStore(store.client, { key: "test-store" });
    expect(await b.load()).toEqual(s2);
    await b.save({ ...emptyState(), seq: 3 });
    expect((await a.load()).seq).toBe(3);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: webhook bodies are read loosely
type Body = any;
/** What `hook` received about `subject` (a collector or a grouped "N subjects"), with its status. */
const bodiesOf = (hook: HttpReceiverDouble, match: (b: Body) => boolean): Body[] =>
  hook.received
    .filter((r) => r.body !== undefined && match(r.body))
    .map((r) => ({ ...(r.body as object), status: r.status }));

function engineFor(
  collector: string,
  clock: { now: number },
  deps: {
    channels: Channel[];
    deliveryLog?: DeliveryLog;
    stateStore?: AlertStateStore;
    spec?: CollectorSpec;
  },
): AlertEngine {
  return new AlertEngine({
    store,
    registry: new InMemoryCollectorRegistry([deps.spec ?? spec(collector)]),
    stateStore: deps.stateStore ?? new ClickHouseAlertStateStore(store.client, { key: `test-${collector}` }),
    channels: deps.channels,
    deliveryLog: deps.deliveryLog ?? ClickHouseDeliveryLog.fromStore(store),
    now: () => clock.now,
    log: memoryLog(),
  });
}

/** Saves until its `crashOnSave`-th save, which fails like a process killed at that moment. */
class CrashingStateStore implements AlertStateStore {
  readonly #inner: AlertStateStore;
  readonly #crashOnSave: number;
  #saves = 0;
  constructor(inner: AlertStateStore, crashOnSave: number) {
    this.#inner = inner;
    this.#crashOnSave = crashOnSave;
  }
  load(): Promise<AlertState> {
    return this.#inner.load();
  }
  async save(state: AlertState): Promise<void> {
    this.#saves += 1;
    if (this.#saves === this.#crashOnSave) throw new Error("process killed before saving");
    await this.#inner.save(state);
  }
}

describe("AlertEngine: channels down and restarts in the middle of an incident (ClickHouse delivery log)", () => {
  const twoChannels = () => [
    webhookChannel({ name: "primary", url: receiver.url("/hook") }),
    webhookChannel({ name: "backup", url: second.url("/hook") }),
  ];

  it("one of two channels down, then a restart: the channel that accepted is not sent it again, the other gets it after the backoff", async () => {
    const collector = "stale_r1";
    const clock = { now: NOW };
    const mine = (b: Body) => b.subject === collector;
    await run(collector, NOW - 60 * MIN);
    second.failNext(1);
    const t1 = await engineFor(collector, clock, { channels: twoChannels() }).tick();
    expect(t1.failed).toHaveLength(1);
    const id = t1.failed[0] as string;
    expect(bodiesOf(receiver, mine).map((b) => [b.id, b.status])).toEqual([[id, 204]]);
    expect(bodiesOf(second, mine).map((b) => [b.id, b.status])).toEqual([[id, 503]]);

    await restartStore();
    const engine = engineFor(collector, clock, { channels: twoChannels() });
    clock.now = NOW + 10_000; // inside the backoff: nothing is sent
    expect(await engine.tick()).toMatchObject({ delivered: [], failed: [] });
    clock.now = NOW + 31_000;
    const t2 = await engine.tick();
    expect(t2.delivered).toEqual([id]);
    expect(bodiesOf(receiver, mine).map((b) => [b.id, b.status])).toEqual([[id, 204]]);
    expect(bodiesOf(second, mine).map((b) => [b.id, b.status])).toEqual([
      [id, 503],
      [id, 204],
    ]);
    const attempts = await ClickHouseDeliveryLog.fromStore(store).attempts(id);
    expect(attempts.map((a) => [a.channel, a.attempt, a.ok])).toEqual(
      expect.arrayContaining([
        ["primary", 1, true],
        ["backup", 1, false],
        ["backup", 2, true],
      ]),
    );
    expect(attempts).toHaveLength(3);
    expect(await engine.firingAlerts()).toMatchObject([{ subject: collector, notified: true }]);
  });

  it("killed after the channels accepted but before the confirmation was saved: after a restart nothing is sent twice", async () => {
    const collector = "stale_r2";
    const clock = { now: NOW };
    const mine = (b: Body) => b.subject === collector;
    await run(collector, NOW - 60 * MIN);
    const stateStore = new ClickHouseAlertStateStore(store.client, { key: `test-${collector}` });
    // Save 1 is the state before delivering (the lease), save 2 the confirmation.
    const crashing = engineFor(collector, clock, {
      channels: twoChannels(),
      stateStore: new CrashingStateStore(stateStore, 2),
    });
    await expect(crashing.tick()).rejects.toThrow("process killed before saving");
    const [sent] = bodiesOf(receiver, mine);
    expect(sent).toMatchObject({ kind: "firing", status: 204 });
    expect(bodiesOf(second, mine)).toHaveLength(1);

    await restartStore();
    const engine = engineFor(collector, clock, { channels: twoChannels() });
    expect(await engine.firingAlerts()).toMatchObject([{ subject: collector, notified: false }]);
    clock.now = NOW + 10_000; // the lease of the lost round still holds
    expect(await engine.tick()).toMatchObject({ delivered: [], failed: [] });
    clock.now = NOW + 31_000; // re-emitted with the same id; the log shows both channels accepted it
    expect((await engine.tick()).delivered).toEqual([sent.id]);
    expect(bodiesOf(receiver, mine)).toHaveLength(1);
    expect(bodiesOf(second, mine)).toHaveLength(1);
    expect(await engine.firingAlerts()).toMatchObject([{ subject: collector, notified: true }]);

    // The incident goes on across the restart: its resolve is sent once to each channel.
    await run(collector, clock.now - 1000);
    clock.now += MIN;
    expect((await engine.tick()).delivered).toHaveLength(1);
    for (const hook of [receiver, second]) {
      expect(bodiesOf(hook, mine).map((b) => b.kind)).toEqual(["firing", "resolved"]);
    }
  });

  it("a channel down for several ticks: retried at 30 s, 1 min, 2 min with the same id, never marked notified until it accepts", async () => {
    const collector = "stale_r3";
    const clock = { now: NOW };
    const mine = (b: Body) => b.subject === collector;
    await run(collector, NOW - 60 * MIN);
    const engine = engineFor(collector, clock, {
      channels: [webhookChannel({ name: "backup", url: second.url("/hook") })],
    });
    const stateStore = new ClickHouseAlertStateStore(store.client, { key: `test-${collector}` });
    const retryAt = async () => (await stateStore.load()).alerts[`collector_stale|${collector}`]?.delivery;
    second.failNext(3);
    const seen: number[] = [];
    for (const at of [0, 29_999, 30_000, 89_999, 90_000, 209_999]) {
      clock.now = NOW + at;
      const t = await engine.tick();
      if (t.failed.length > 0) seen.push(at);
      expect(t.delivered).toEqual([]);
      expect(await engine.firingAlerts()).toMatchObject([{ notified: false }]);
    }
    expect(seen).toEqual([0, 30_000, 90_000]);
    expect(await retryAt()).toMatchObject({ attempt: 3, nextAttemptAt: NOW + 90_000 + 120_000 });
    expect((await retryAt())?.lastError).toContain("503");
    clock.now = NOW + 210_000;
    const done = await engine.tick();
    expect(done.delivered).toHaveLength(1);
    const bodies = bodiesOf(second, mine);
    expect(bodies.map((b) => b.status)).toEqual([503, 503, 503, 204]);
    expect(new Set(bodies.map((b) => b.id))).toEqual(new Set(done.delivered));
    expect(await engine.firingAlerts()).toMatchObject([{ notified: true }]);
    expect(await retryAt()).toBeNull();
  });
});

describe("AlertEngine: a thousand alerts in one tick", () => {
  it("1,000 failing collector/account/region subjects → 1,000 stored alerts, one grouped notification; all resolve → one grouped resolve", async () => {
    const collector = "bulk_config";
    const clock = { now: NOW };
    // Interval 60 min: the success 40 min ago keeps the collector itself from going stale.
    const bulkSpec = { name: collector, expected_interval_minutes: 60, freshness_threshold_minutes: 120 };
    const subjects: string[] = [];
    const runs: CollectorRunInput[] = [];
    const row = (account: string, region: string, at: number, status: RunStatus): CollectorRunInput => ({
      run_id: uuid(78),
      collector,
      cloud_account_id: account,
      cloud_region: region,
      started_at: at - 1000,
      completed_at: at,
      status,
      events_produced: 0,
      rows_inserted: 0,
      error: status === "failed" ? "AccessDenied: DescribeInstances" : "",
      duration_ms: 1000,
    });
    for (let a = 0; a < 100; a++) {
      for (let r = 0; r < 10; r++) {
        const account = `bulk-${String(a).padStart(3, "0")}`;
        const region = `region-${r}`;
        subjects.push(`${collector}/${account}/${region}`);
        runs.push(row(account, region, NOW - 40 * MIN, "succeeded"));
        for (const m of [30, 20, 10]) runs.push(row(account, region, NOW - m * MIN, "failed"));
      }
    }
    expect((await store.insertRuns(runs)).inserted).toBe(4000);

    const deliveryLog = ClickHouseDeliveryLog.fromStore(store);
    const engine = engineFor(collector, clock, {
      channels: [webhookChannel({ name: "ops-hook", url: receiver.url("/hook") })],
      deliveryLog,
      spec: bulkSpec,
    });
    const bulk = (b: Body) => b.rule === "collector_failure" && String(b.subject).endsWith("subjects");
    const itemSubjects = (b: Body) => (b.details.items as { subject: string }[]).map((i) => i.subject).sort();

    const t1 = await engine.tick();
    expect(t1.flips.filter((f) => f.to === "firing" && f.rule === "collector_failure")).toHaveLength(1000);
    expect(t1.delivered).toHaveLength(1);
    const stored = await new ClickHouseAlertStateStore(store.client, { key: `test-${collector}` }).load();
    const firing = Object.values(stored.alerts).filter((a) => a.status === "firing");
    expect(firing).toHaveLength(1000);
    expect(firing.every((a) => a.rule === "collector_failure" && a.notifiedStart)).toBe(true);
    expect(await engine.firingAlerts()).toHaveLength(1000);

    const fired = bodiesOf(receiver, bulk);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({
      id: t1.delivered[0],
      kind: "firing",
      severity: "warning",
      subject: "1000 subjects",
      title: "[warning] collector_failure: 1000 alerts (firing)",
      status: 204,
    });
    expect(itemSubjects(fired[0])).toEqual([...subjects].sort());
    expect(fired[0].text.split("\n")).toHaveLength(51);
    expect(fired[0].text).toMatch(/\n… and 950 more$/);
    expect(await deliveryLog.attempts(t1.delivered[0] as string)).toMatchObject([
      { channel: "ops-hook", attempt: 1, ok: true },
    ]);

    // A quiet tick: nothing owed.
    clock.now += MIN;
    expect(await engine.tick()).toMatchObject({ flips: [], delivered: [], failed: [] });

    // Every subject succeeds again: all resolve in one tick, announced in one notification.
    await store.insertRuns(
      subjects.map((s) => {
        const [, account, region] = s.split("/") as [string, string, string];
        return row(account, region, clock.now - 1000, "succeeded");
      }),
    );
    clock.now += MIN;
    const t3 = await engine.tick();
    expect(t3.flips.filter((f) => f.to === "resolved")).toHaveLength(1000);
    expect(t3.delivered).toHaveLength(1);
    const all = bodiesOf(receiver, bulk);
    expect(all.map((b) => b.kind)).toEqual(["firing", "resolved"]);
    expect(all[1]).toMatchObject({
      subject: "1000 subjects",
      title: "[warning] collector_failure: 1000 alerts (resolved)",
    });
    expect(itemSubjects(all[1])).toEqual([...subjects].sort());
    expect(await engine.firingAlerts()).toEqual([]);
  });
});
