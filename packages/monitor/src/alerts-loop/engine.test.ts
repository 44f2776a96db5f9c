import { type CollectorSpec, emptyState, type RunStatus } from "@svcmon/core";
import { InMemoryDeliveryLog, webhookChannel } from "@svcmon/notify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "../../../notify/src/test-doubles.ts";
import {
  call,
  InMemoryCollectorRegistry,
  MIN,
  makeApp,
  memoryLog,
  openTempStore,
  uuid,
} from "../api/test-support.ts";
import type { ClickHouseRunStore } from "../clickhouse-run-store.ts";
import { AlertEngine } from "./engine.ts";
import { ClickHouseAlertStateStore } from "./state-store.ts";

// Real chDB on this file's own temp folder; a real HTTP receiver behind a real webhook channel.
// Each test uses its own collector and its own state key, so the tests share the store.
let store: ClickHouseRunStore;
let cleanup: () => Promise<void>;
let receiver: HttpReceiverDouble;
const NOW = Math.floor(Date.now() / MIN) * MIN;

beforeAll(async () => {
  const t = await openTempStore("svcmon-alerts-loop-");
  store = t.store;
  cleanup = t.cleanup;
  receiver = await startHttpReceiverDouble();
});

afterAll(async () => {
  await receiver.close();
  await cleanup();
});

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

function setup(collector: string, opts: { channels?: boolean; log?: InMemoryDeliveryLog } = {}) {
  const clock = { now: NOW };
  const deliveryLog = opts.log ?? new InMemoryDeliveryLog();
  const make = () =>
    new AlertEngine({
      store,
      registry: new InMemoryCollectorRegistry([spec(collector)]),
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
    expect(t.failed).toHaveLength(1);
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
