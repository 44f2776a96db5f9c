/**
 * The monitor watched: every round of the alert engine is recorded (start, end, ok or its error) and
 * pinged to a healthchecks-like dead-man's switch (a real local HTTP server): /start then success per
 * healthy round, /fail with the reason when a round fails, nothing once the loop is stopped — while
 * the engine's health, read from the recorded rounds and a moved clock, turns late.
 */
import {
  type CollectorRegistry,
  type EngineTick,
  type EngineTickStore,
  InMemoryCollectorRegistry,
  InMemoryEngineTickStore,
} from "@monitor/core";
import { engineHealth } from "@monitor/jobs";
import { InMemoryDeliveryLog } from "@shared/notify";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AlertEngine, type AlertEngineDeps } from "./alert-engine.ts";
import { httpHeartbeat } from "./heartbeat.ts";
import { emptyRunStore, MemoryStateStore, quiet } from "./test-support/engine-fixtures.ts";
import { type HealthchecksDouble, startHealthchecksDouble } from "./test-support/healthchecks-double.ts";

const T0 = Date.UTC(2026, 10, 28, 9, 0, 0);
const MIN = 60_000;

let hc: HealthchecksDouble;
beforeAll(async () => {
  hc = await startHealthchecksDouble();
});
afterAll(async () => hc.close());
afterEach(() => vi.useRealTimers());

function logLines() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(fields === undefined ? {} : { fields }) });
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}

function world(over: Partial<AlertEngineDeps> = {}) {
  const clock = { now: T0 };
  const ticks = new InMemoryEngineTickStore();
  const log = logLines();
  let brokenRegistry = false;
  const registry = new InMemoryCollectorRegistry([]);
  const reg: CollectorRegistry = Object.assign(Object.create(registry), {
    list: async () => {
      if (brokenRegistry) throw new Error("analytics database unreachable: ECONNREFUSED 127.0.0.1:8123");
      return registry.list();
    },
  });
  const engine = new AlertEngine({
    store: emptyRunStore,
    registry: reg,
    stateStore: new MemoryStateStore(),
    channels: [],
    deliveryLog: new InMemoryDeliveryLog(),
    now: () => clock.now,
    log,
    intervalMs: MIN,
    claimant: "engine-a",
    ticks,
    heartbeat: httpHeartbeat({ url: hc.checkUrl, log }),
    ...over,
  });
  return {
    clock,
    ticks,
    log,
    engine,
    breakStore: (on: boolean) => {
      brokenRegistry = on;
    },
  };
}

const pingsSince = (n: number) =>
  hc.received.slice(n).map((p) => (p.kind === "fail" ? `fail: ${p.body}` : p.kind));

describe("AlertEngine watched: ticks recorded, heartbeat pinged", () => {
  it("a healthy round pings /start then success, and is recorded ok with its start, end and claimant", async () => {
    const w = world();
    const before = hc.received.length;
    for (let i = 0; i < 2; i++) {
      w.clock.now = T0 + i * MIN;
      await w.engine.tick();
    }
    expect(pingsSince(before)).toEqual(["start", "success", "start", "success"]);
    expect(await w.ticks.latest()).toEqual({
      tick_at: T0 + MIN,
      completed_at: T0 + MIN,
      duration_ms: 0,
      ok: true,
      error: null,
      claimant: "engine-a",
      interval_ms: MIN,
    } satisfies EngineTick);
    expect(engineHealth(await w.ticks.latest(), T0 + MIN + 30_000)).toMatchObject({
      state: "ok",
      lag_s: 30,
      interval_s: 60,
    });
  });

  it("a failed round (the store throws) pings /fail with the reason, is recorded failed, and still rejects", async () => {
    const w = world();
    const before = hc.received.length;
    w.breakStore(true);
    await expect(w.engine.tick()).rejects.toThrow(/ECONNREFUSED/);
    const reason = "Error: analytics database unreachable: ECONNREFUSED 127.0.0.1:8123";
    expect(pingsSince(before)).toEqual(["start", `fail: ${reason}`]);
    expect(await w.ticks.latest()).toMatchObject({ ok: false, error: reason });
    expect(engineHealth(await w.ticks.latest(), T0 + 1000)).toMatchObject({
      state: "failing",
      last_error: reason,
    });
    // The store is back: the next round is healthy again.
    w.breakStore(false);
    w.clock.now = T0 + MIN;
    await w.engine.tick();
    expect(pingsSince(before).slice(2)).toEqual(["start", "success"]);
    expect(engineHealth(await w.ticks.latest(), T0 + MIN)).toMatchObject({ state: "ok", last_error: null });
  });

  it("a tick store that cannot be written is logged; the round and its pings are unchanged", async () => {
    const failing: EngineTickStore = {
      record: async () => {
        throw new Error("svc.engine_ticks: table is read-only");
      },
      latest: async () => null,
    };
    const w = world({ ticks: failing });
    const before = hc.received.length;
    await expect(w.engine.tick()).resolves.toMatchObject({ flips: [] });
    expect(pingsSince(before)).toEqual(["start", "success"]);
    expect(w.log.lines).toContainEqual({
      level: "warn",
      message: "alerts: engine tick not recorded",
      fields: { error: "Error: svc.engine_ticks: table is read-only" },
    });
  });

  it("an unreachable switch never fails the round", async () => {
    const w = world({ heartbeat: httpHeartbeat({ url: "http://127.0.0.1:1/ping/x", log: quiet }) });
    await expect(w.engine.tick()).resolves.toMatchObject({ flips: [] });
    expect(await w.ticks.latest()).toMatchObject({ ok: true });
  });

  it("once the loop is stopped the switch hears nothing more, and the engine's lag grows until it is late", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // Pings asked for, counted as they are asked (a round asks for its start as it begins).
    const http = httpHeartbeat({ url: hc.checkUrl, log: quiet });
    let asked = 0;
    const w = world({
      heartbeat: {
        ping: (kind, reason) => {
          asked++;
          return http.ping(kind, reason);
        },
      },
    });
    const before = hc.received.length;
    w.engine.start();
    // The first round runs at once, the next one interval later.
    await vi.advanceTimersByTimeAsync(0);
    await vi.waitUntil(() => hc.received.length - before >= 2, { interval: 5, timeout: 5000 });
    w.clock.now = T0 + MIN;
    await vi.advanceTimersByTimeAsync(MIN);
    await vi.waitUntil(() => hc.received.length - before >= 4, { interval: 5, timeout: 5000 });
    await w.engine.stop();
    expect(pingsSince(before)).toEqual(["start", "success", "start", "success"]);
    const last = await w.ticks.latest();

    // The clock moves on; no round is scheduled any more, so nothing is pinged or recorded.
    w.clock.now = T0 + 10 * MIN;
    await vi.advanceTimersByTimeAsync(10 * MIN);
    expect(vi.getTimerCount()).toBe(0);
    expect(asked).toBe(4);
    expect(pingsSince(before)).toHaveLength(4);
    expect(await w.ticks.latest()).toEqual(last);
    expect(engineHealth(last, T0 + 3 * MIN)).toMatchObject({ state: "ok", lag_s: 120 });
    expect(engineHealth(last, T0 + 4 * MIN + 1000)).toMatchObject({ state: "late", lag_s: 181 });
    expect(engineHealth(last, T0 + 10 * MIN)).toMatchObject({ state: "late", lag_s: 540 });
  });
});
