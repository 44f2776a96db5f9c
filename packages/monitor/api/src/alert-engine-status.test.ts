/**
 * The monitor watched, as the status endpoint, /metrics and the /system page show it: a real alert
 * engine records its rounds in the tick store the app reads (as svcmon-alerts and svcmon-status share
 * svc.engine_ticks); with the clock moved, the engine's lag grows, it turns late and the overall
 * status turns amber; a failing round says why.
 */
import {
  type CollectorRegistry,
  type EngineTickStore,
  InMemoryCollectorRegistry,
  InMemoryEngineTickStore,
  InMemoryRunStore,
} from "@monitor/core";
import { AlertEngine } from "@monitor/runtime";
import { InMemoryDeliveryLog } from "@shared/notify";
import { describe, expect, it } from "vitest";
import { atLeastAmberFor } from "./engine-health.ts";
import { LiveContent } from "./page/view.ts";
import { StatusSchema } from "./schemas/status.ts";
import { call, makeApp, memoryLog } from "./test-support.ts";

const T0 = Date.UTC(2026, 10, 28, 9, 0, 0);
const MIN = 60_000;

class StateInMemory {
  #s: unknown = null;
  async load() {
    return (this.#s ?? { version: 1, seq: 0, alerts: {}, outbox: {} }) as never;
  }
  async save(s: unknown) {
    this.#s = structuredClone(s);
  }
}

function world() {
  const clock = { now: T0 };
  const store = new InMemoryRunStore();
  const ticks = new InMemoryEngineTickStore();
  const registry = new InMemoryCollectorRegistry([]);
  let broken = false;
  const engineRegistry: CollectorRegistry = Object.assign(Object.create(registry), {
    list: async () => {
      if (broken) throw new Error("the analytics database did not answer");
      return registry.list();
    },
  });
  const engine = new AlertEngine({
    store,
    registry: engineRegistry,
    stateStore: new StateInMemory(),
    channels: [],
    deliveryLog: new InMemoryDeliveryLog(),
    now: () => clock.now,
    log: memoryLog(),
    intervalMs: MIN,
    claimant: "engine-a",
    ticks,
  });
  const app = makeApp({ store, registry, now: () => clock.now, engineTicks: ticks });
  return {
    clock,
    engine,
    ticks,
    app,
    break: (on: boolean) => {
      broken = on;
    },
    status: async () => {
      const r = await call(app, "GET", "/api/system/status");
      expect(r.status).toBe(200);
      expect(StatusSchema.safeParse(r.body).success).toBe(true);
      return r.body;
    },
    metrics: async () => (await call(app, "GET", "/metrics")).body as string,
  };
}

const page = (status: unknown) =>
  String(
    LiveContent({
      status: status as never,
      statusAt: new Date(T0).toISOString(),
      failures: null,
      silences: null,
      problems: [],
      csrf: null,
    }),
  );

describe("status body, metrics and page: the alert engine watched", () => {
  it("never_ran before the engine's first round; the overall status is unchanged by it", async () => {
    const w = world();
    const body = await w.status();
    expect(body.alert_engine).toEqual({
      last_tick_at: null,
      last_completed_at: null,
      lag_s: null,
      interval_s: null,
      state: "never_ran",
      last_error: null,
    });
    expect(body.overall_health).toBe("new");
    expect(await w.metrics()).toContain('svcmon_alert_engine_state{state="never_ran"} 1');
    expect(await w.metrics()).not.toContain("svcmon_alert_engine_lag_seconds");
  });

  it("ok after a round; as the clock moves with the loop stopped the lag grows, then late makes the status amber", async () => {
    const w = world();
    await w.engine.tick();
    w.clock.now = T0 + 30_000;
    expect((await w.status()).alert_engine).toEqual({
      last_tick_at: new Date(T0).toISOString(),
      last_completed_at: new Date(T0).toISOString(),
      lag_s: 30,
      interval_s: 60,
      state: "ok",
      last_error: null,
    });
    expect((await w.status()).overall_health).toBe("new");
    let m = await w.metrics();
    expect(m).toContain(`svcmon_alert_engine_last_tick_timestamp_seconds ${T0 / 1000}`);
    expect(m).toContain("svcmon_alert_engine_lag_seconds 30");
    expect(m).toContain("svcmon_alert_engine_last_tick_ok 1");
    expect(m).toContain("svcmon_alert_engine_interval_seconds 60");
    expect(m).toContain('svcmon_alert_engine_state{state="ok"} 1');

    w.clock.now = T0 + 3 * MIN;
    expect((await w.status()).alert_engine).toMatchObject({ state: "ok", lag_s: 180 });
    w.clock.now = T0 + 3 * MIN + 1000;
    const late = await w.status();
    expect(late.alert_engine).toMatchObject({ state: "late", lag_s: 181 });
    expect(late.overall_health).toBe("amber");
    m = await w.metrics();
    expect(m).toContain('svcmon_alert_engine_state{state="late"} 1');
    expect(m).toContain("svcmon_alert_engine_lag_seconds 181");
    expect(m).toContain('svcmon_overall_health{health="amber"} 1');
    const html = page(late);
    expect(html).toContain(
      '<p id="alert-engine" class="engine late">Alert engine: <span class="badge amber">late</span>',
    );
    expect(html).toContain("(181 s ago, every 60 s)");
    expect(html).toContain("alert engine late or failing");

    // The loop runs again: ok, and the status is back to what the collectors say.
    await w.engine.tick();
    expect((await w.status()).alert_engine).toMatchObject({ state: "ok", lag_s: 0 });
    expect((await w.status()).overall_health).toBe("new");
  });

  it("a failed round is failing, with its error in the body, the metrics and the page", async () => {
    const w = world();
    w.break(true);
    await expect(w.engine.tick()).rejects.toThrow(/did not answer/);
    w.clock.now = T0 + 5000;
    const body = await w.status();
    expect(body.alert_engine).toMatchObject({
      state: "failing",
      last_error: "Error: the analytics database did not answer",
      lag_s: 5,
    });
    expect(body.overall_health).toBe("amber");
    const m = await w.metrics();
    expect(m).toContain("svcmon_alert_engine_last_tick_ok 0");
    expect(m).toContain('svcmon_alert_engine_state{state="failing"} 1');
    expect(page(body)).toContain("— Error: the analytics database did not answer");
  });

  it("an unreadable tick store is said in the body; the status still answers", async () => {
    const ticks: EngineTickStore = {
      record: async () => {},
      latest: async () => {
        throw new Error("svc.engine_ticks does not exist");
      },
    };
    const app = makeApp({ store: new InMemoryRunStore(), now: () => T0, engineTicks: ticks });
    const r = await call(app, "GET", "/api/system/status");
    expect(r.status).toBe(200);
    expect(r.body.alert_engine).toBeUndefined();
    expect(r.body.alert_engine_error).toBe("svc.engine_ticks does not exist");
  });

  it("without a tick store the body has no alert_engine", async () => {
    const r = await call(
      makeApp({ store: new InMemoryRunStore(), now: () => T0 }),
      "GET",
      "/api/system/status",
    );
    expect(r.status).toBe(200);
    expect("alert_engine" in r.body).toBe(false);
  });

  it("late or failing raises a new or green status to amber; red stays red; never_ran changes nothing", () => {
    expect(atLeastAmberFor("green", "late")).toBe("amber");
    expect(atLeastAmberFor("new", "failing")).toBe("amber");
    expect(atLeastAmberFor("amber", "late")).toBe("amber");
    expect(atLeastAmberFor("red", "failing")).toBe("red");
    expect(atLeastAmberFor("green", "never_ran")).toBe("green");
    expect(atLeastAmberFor("green", "ok")).toBe("green");
    expect(atLeastAmberFor("green", undefined)).toBe("green");
  });
});
