/**
 * Maintenance windows through the real alert engine on chDB, with a moved clock: a collector that
 * misses its runs during a 2-hour window sends nothing during it, and no stale page follows the
 * window (it becomes stale only with no success 2 × interval after the window's end); a recurring
 * weekly window mutes each occurrence. The status body says "in maintenance" meanwhile.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClickHouseAlertStateStore, type ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import {
  type CollectorSpec,
  InMemoryCollectorRegistry,
  InMemoryMaintenanceStore,
  type MaintenanceWindow,
  maintenanceView,
  type RunStatus,
} from "@monitor/core";
import { AlertEngine } from "@monitor/runtime";
import { type Channel, InMemoryDeliveryLog, type Notification } from "@shared/notify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, memoryLog, uuid } from "./test-support.ts";

const dir = mkdtempSync(join(tmpdir(), "svcmon-maintenance-"));
let store: ClickHouseRunStore;
const NOW = Math.floor(Date.now() / MIN) * MIN;
// A weekly window at 02:00 on the weekday three days from now: NOW (the wall clock, which the stores'
// retention needs) is never inside an occurrence, whatever day and hour the test runs (a fixed
// Sunday 02:00 Berlin window failed when the suite ran on a Sunday night).
const WEEKLY = `0 2 * * ${new Date(NOW + 3 * 24 * 60 * MIN).getUTCDay()}`;
const H = 60 * MIN;
let seq = 0;

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const WEEK_MINUTES = 7 * 24 * 60;
const spec = (name: string, interval = 15): CollectorSpec => ({
  name,
  expected_interval_minutes: interval,
  freshness_threshold_minutes: 2 * interval,
});

async function run(collector: string, at: number, status: RunStatus = "succeeded"): Promise<void> {
  await store.insertRuns([
    {
      run_id: uuid(1000 + ++seq),
      collector,
      cloud_account_id: "111111111111",
      cloud_region: "us-east-1",
      started_at: at - 2000,
      completed_at: at,
      status,
      events_produced: 1,
      rows_inserted: 1,
      error: status === "failed" ? "AccessDenied" : "",
      duration_ms: 2000,
    },
  ]);
}

/** `interval`: a weekly collector never goes stale across these tests, so only its failures alert. */
function world(collector: string, interval = 15) {
  const clock = { now: NOW };
  const sent: Notification[] = [];
  const channel: Channel = {
    name: "recording",
    async send(n) {
      sent.push(n);
    },
  };
  const maintenance = new InMemoryMaintenanceStore();
  const registry = new InMemoryCollectorRegistry([spec(collector, interval)]);
  const stateStore = new ClickHouseAlertStateStore(store.client, { key: `maint-${collector}` });
  const engine = new AlertEngine({
    store,
    registry,
    stateStore,
    channels: [channel],
    deliveryLog: new InMemoryDeliveryLog(),
    now: () => clock.now,
    log: memoryLog(),
    maintenance,
  });
  const app = makeApp({ store, registry, now: () => clock.now, maintenance });
  // The store is shared by the tests: each reads only its own collector's notifications.
  const firing = () =>
    sent.flatMap((n) => (n.alerts ?? []).filter((a) => a.subject.split("/")[0] === collector));
  return { clock, sent, maintenance, engine, stateStore, app, firing };
}

function window(id: string, over: Partial<MaintenanceWindow>): MaintenanceWindow {
  return {
    id,
    scope: { all: true },
    author: "ann",
    reason: "database upgrade",
    createdAt: NOW - H,
    timing: { kind: "once", startsAt: NOW, endsAt: NOW + 2 * H },
    endedAt: null,
    ...over,
  };
}

describe("maintenance windows through the alert engine on chDB", () => {
  it("a 2-hour window sends nothing, and no stale page follows it: stale only 2 × interval after its end", async () => {
    const w = world("maint_stale");
    await run("maint_stale", NOW - 5 * MIN);
    await w.maintenance.create(window("w1", { scope: { collectors: ["maint_stale"] } }));
    // Every 5 minutes through the window: the collector misses every run.
    for (let t = NOW; t < NOW + 2 * H; t += 5 * MIN) {
      w.clock.now = t;
      await w.engine.tick();
    }
    expect(w.firing()).toEqual([]);
    const during = Object.values((await w.stateStore.load()).alerts).filter(
      (a) => a.subject === "maint_stale",
    );
    expect(during.map((a) => [a.rule, a.status, a.muted, a.mutedBy?.kind])).toEqual([
      ["collector_stale", "firing", true, "maintenance"],
    ]);
    // The status says "in maintenance" while it is in effect.
    w.clock.now = NOW + 90 * MIN;
    const status = await call(w.app, "GET", "/api/system/status");
    expect(status.status).toBe(200);
    expect(status.body.collectors[0]).toMatchObject({ name: "maint_stale", in_maintenance: true });
    expect(status.body.maintenance.map((m: { id: string }) => m.id)).toEqual(["w1"]);

    // After the window: its end is where freshness counts from; nothing until 2 × 15 min after it.
    const end = NOW + 2 * H;
    for (let t = end; t <= end + 30 * MIN; t += 5 * MIN) {
      w.clock.now = t;
      await w.engine.tick();
    }
    expect(w.firing()).toEqual([]);
    const own = Object.values((await w.stateStore.load()).alerts).filter((a) => a.subject === "maint_stale");
    expect(own.map((a) => a.status)).toEqual(["resolved"]);
    w.clock.now = end + 20 * MIN;
    const after = await call(w.app, "GET", "/api/system/status");
    expect(after.body.collectors[0].in_maintenance).toBeUndefined();
    expect(after.body.collectors[0].health).toBe("amber");
    expect(after.body.maintenance).toEqual([]);

    // Still no success 2 × interval after the window's end: stale, notified once.
    w.clock.now = end + 31 * MIN;
    await w.engine.tick();
    w.clock.now = end + 32 * MIN;
    await w.engine.tick();
    expect(w.firing().map((a) => [a.rule, a.kind])).toEqual([["collector_stale", "firing"]]);
  });

  it("a success after the window keeps the collector quiet; without the window the same gap pages", async () => {
    const quiet = world("maint_quiet");
    await run("maint_quiet", NOW - 5 * MIN);
    await quiet.maintenance.create(window("w2", {}));
    for (let t = NOW; t <= NOW + 2 * H + 25 * MIN; t += 5 * MIN) {
      quiet.clock.now = t;
      if (t === NOW + 2 * H + 10 * MIN) await run("maint_quiet", t);
      await quiet.engine.tick();
    }
    expect(quiet.firing()).toEqual([]);

    const control = world("maint_control");
    await run("maint_control", NOW - 5 * MIN);
    for (let t = NOW; t <= NOW + 60 * MIN; t += 5 * MIN) {
      control.clock.now = t;
      await control.engine.tick();
    }
    expect(control.firing().map((a) => [a.rule, a.kind])).toEqual([["collector_stale", "firing"]]);
  });

  it("what still fails after the window notifies once", async () => {
    const w = world("maint_failing", WEEK_MINUTES);
    await run("maint_failing", NOW - 5 * MIN);
    await w.maintenance.create(window("w3", { scope: { accounts: ["111111111111"] } }));
    for (let t = NOW + 10 * MIN; t < NOW + 2 * H; t += 10 * MIN) {
      w.clock.now = t;
      await run("maint_failing", t, "failed");
      await w.engine.tick();
    }
    expect(w.firing()).toEqual([]);
    w.clock.now = NOW + 2 * H;
    await w.engine.tick();
    w.clock.now = NOW + 2 * H + MIN;
    await w.engine.tick();
    expect(w.firing().map((a) => [a.rule, a.subject, a.kind])).toEqual([
      ["collector_failure", "maint_failing/111111111111/us-east-1", "firing"],
    ]);
  });

  it("a recurring weekly window mutes each occurrence", async () => {
    const w = world("maint_weekly", WEEK_MINUTES);
    await run("maint_weekly", NOW - 5 * MIN);
    const weekly = window("w4", {
      scope: { collectors: ["maint_weekly"] },
      createdAt: NOW,
      timing: { kind: "recurring", schedule: WEEKLY, timezone: "Europe/Berlin", durationMinutes: 120 },
    });
    await w.maintenance.create(weekly);
    // The first occurrence after creation, and the one a week later.
    const first = maintenanceView(weekly, NOW + 1).current;
    expect(first).not.toBeNull();
    const second = maintenanceView(weekly, (first as { endsAt: number }).endsAt).current;
    expect(second).not.toBeNull();
    for (const occurrence of [first, second]) {
      const start = (occurrence as { startsAt: number }).startsAt;
      // Three failed runs in a row during the occurrence, then a success before its end.
      for (const offset of [10, 20, 30]) {
        w.clock.now = start + offset * MIN;
        await run("maint_weekly", w.clock.now, "failed");
        await w.engine.tick();
      }
      const held = Object.values((await w.stateStore.load()).alerts).find(
        (a) =>
          a.status === "firing" && a.rule === "collector_failure" && a.subject.startsWith("maint_weekly/"),
      );
      expect(held).toMatchObject({
        rule: "collector_failure",
        muted: true,
        mutedBy: { kind: "maintenance" },
      });
      w.clock.now = start + 60 * MIN;
      await run("maint_weekly", w.clock.now);
      await w.engine.tick();
      w.clock.now = start + 3 * H;
      await w.engine.tick();
    }
    expect(w.firing()).toEqual([]);
    // The same failures between occurrences are notified.
    const between = (second as { startsAt: number }).startsAt + 24 * H;
    for (const offset of [10, 20, 30]) {
      w.clock.now = between + offset * MIN;
      await run("maint_weekly", w.clock.now, "failed");
      await w.engine.tick();
    }
    expect(w.firing().map((a) => [a.rule, a.kind])).toEqual([["collector_failure", "firing"]]);
  });
});
