// An alert that fired while no notification channel was configured is sent once a channel is: the
// engine of the next start (same stores as npm start: chDB for runs, the state's copy and the
// delivery log, SQLite for the status changes and their claims) delivers it at its first tick,
// however long it waited, and /api/system/status stops saying "not notified". Real webhook receiver,
// injected clock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ClickHouseAlertStateStore,
  ClickHouseDeliveryLog,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { type CollectorSpec, InMemoryCollectorRegistry, type RunStatus } from "@monitor/core";
import { AlertEngine, SqliteTransitionStore } from "@monitor/runtime";
import { type Channel, type Notification, webhookChannel } from "@shared/notify";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, memoryLog, uuid } from "./test-support.ts";

const dir = mkdtempSync(join(tmpdir(), "svcmon-alert-channel-added-"));
let store: ClickHouseRunStore;
let receiver: HttpReceiverDouble;
const NOW = Math.floor(Date.now() / MIN) * MIN;

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
  receiver = await startHttpReceiverDouble();
});

afterAll(async () => {
  await receiver.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const spec = (name: string): CollectorSpec => ({
  name,
  expected_interval_minutes: 15,
  freshness_threshold_minutes: 30,
});

let seq = 0;
async function run(collector: string, account: string, at: number, status: RunStatus, error = "") {
  seq += 1;
  await store.insertRuns([
    {
      run_id: uuid(3000 + seq),
      collector,
      cloud_account_id: account,
      cloud_region: "us-east-1",
      started_at: at - 2000,
      completed_at: at,
      status,
      events_produced: 0,
      rows_inserted: 0,
      error,
      duration_ms: 2000,
    },
  ]);
}

/** The stores one data folder keeps across restarts (apps/local's wiring). */
function stores(name: string) {
  return {
    stateStore: new ClickHouseAlertStateStore(store.client, { key: `channel-added-${name}` }),
    deliveryLog: ClickHouseDeliveryLog.fromStore(store),
    transitions: new SqliteTransitionStore(join(dir, `${name}-alerts.sqlite`)),
  };
}

/** One process's engine over those stores, with the channels of its configuration. */
function engine(
  collector: string,
  s: ReturnType<typeof stores>,
  clock: { now: number },
  channels: Channel[],
  claimant: string,
) {
  return new AlertEngine({
    store,
    registry: new InMemoryCollectorRegistry([spec(collector)]),
    channels,
    now: () => clock.now,
    log: memoryLog(),
    claimant,
    ...s,
  });
}

const hook = () => webhookChannel({ name: "ops-hook", url: receiver.url("/hook") });

/** The webhook bodies whose alerts include `subject`. */
const received = (subject: string): Notification[] =>
  receiver.received
    .filter((r) => r.status < 300)
    .map((r) => r.body as Notification)
    .filter((n) => (n.alerts ?? []).some((a) => a.subject === subject));

describe("alerts that fired before any channel was configured", () => {
  it("are sent at the first tick once a channel is configured, once, and then show as notified", async () => {
    const collector = "late_channel";
    const subject = `${collector}/111111111111/us-east-1`;
    const clock = { now: NOW };
    const s = stores("late");
    await run(collector, "999999999999", NOW - MIN, "succeeded");
    for (const m of [30, 20, 10])
      await run(collector, "111111111111", NOW - m * MIN, "failed", "AccessDenied");

    // Two hours with no channel (a tick every 10 min): the alert fires, is stored, is not notified.
    const silent = engine(collector, s, clock, [], "first-start");
    for (let m = 0; m <= 120; m += 10) {
      clock.now = NOW + m * MIN;
      await run(collector, "999999999999", clock.now - MIN, "succeeded");
      const t = await silent.tick();
      expect(t).toMatchObject({ delivered: [], failed: [], held: [`collector_failure|${subject}`] });
    }
    const app = makeApp({ store, alerts: () => silent.firingAlerts() });
    expect((await call(app, "GET", "/api/system/status")).body.alerts).toEqual([
      expect.objectContaining({ rule: "collector_failure", subject, notified: false }),
    ]);
    expect(received(subject)).toEqual([]);

    // Restarted with ALERT_WEBHOOK_URL set: the first tick sends the start, with when it began.
    clock.now = NOW + 121 * MIN;
    const a = engine(collector, s, clock, [hook()], "second-start-a");
    const first = await a.tick();
    expect(first.delivered).toHaveLength(1);
    const sent = received(subject);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: "firing", status: "firing", subject });
    expect(sent[0]?.alerts?.[0]).toMatchObject({
      status: "firing",
      startsAt: new Date(NOW).toISOString(),
      lastError: "AccessDenied",
    });
    const after = makeApp({ store, alerts: () => a.firingAlerts() });
    expect((await call(after, "GET", "/api/system/status")).body.alerts).toEqual([
      expect.objectContaining({ subject, notified: true }),
    ]);

    // Nothing twice: two engines of the new configuration tick at once, later.
    clock.now += MIN;
    const b = engine(collector, s, clock, [hook()], "second-start-b");
    await Promise.all([a.tick(), b.tick()]);
    expect(received(subject)).toHaveLength(1);
  });

  it("one that fired and resolved while there was no channel is never sent", async () => {
    const collector = "gone_before_channel";
    const subject = `${collector}/111111111111/us-east-1`;
    const clock = { now: NOW };
    const s = stores("gone");
    await run(collector, "999999999999", NOW - MIN, "succeeded");
    for (const m of [30, 20, 10]) await run(collector, "111111111111", NOW - m * MIN, "failed", "boom");
    // (The store holds the other test's runs too: only this subject's flips are looked at.)
    const flips = async (e: AlertEngine) =>
      (await e.tick()).flips.filter((f) => f.subject === subject).map((f) => f.to);
    const silent = engine(collector, s, clock, [], "first-start");
    expect(await flips(silent)).toEqual(["firing"]);
    clock.now = NOW + 5 * MIN;
    await run(collector, "111111111111", clock.now - MIN, "succeeded");
    expect(await flips(silent)).toEqual(["resolved"]);

    clock.now = NOW + 10 * MIN;
    const withHook = engine(collector, s, clock, [hook()], "second-start");
    await withHook.tick();
    expect(received(subject)).toEqual([]);
  });
});
