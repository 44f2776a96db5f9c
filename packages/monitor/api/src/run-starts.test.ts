// Runs seen while they run, end to end: the monitor API and the alert engine over one real chDB store
// and the ClickHouse collector registry, on one clock this test moves. A started run that has not
// ended within its collector's max duration is shown hung and raises collector_hung; its final record
// resolves it. A start older than the expiry bound is forgotten. No real time is waited.

import {
  ClickHouseAlertStateStore,
  ClickHouseCollectorRegistry,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import { MAX_OPEN_RUN_HOURS } from "@monitor/core";
import { AlertEngine } from "@monitor/runtime";
import { InMemoryDeliveryLog, webhookChannel } from "@shared/notify";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, memoryLog, openTempStore, runAt, uuid } from "./test-support.ts";

const HOUR = 60 * MIN;
const T0 = Math.floor(Date.now() / MIN) * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

let store: ClickHouseRunStore;
let cleanup: () => Promise<void>;
let hook: HttpReceiverDouble;

beforeAll(async () => {
  const t = await openTempStore("svcmon-api-runstarts-");
  store = t.store;
  cleanup = t.cleanup;
  hook = await startHttpReceiverDouble();
});

afterAll(async () => {
  await hook.close();
  await cleanup();
});

function setup(key: string, clock: { now: number }) {
  const registry = ClickHouseCollectorRegistry.fromStore(store, { defaults: [], now: () => clock.now });
  const app = makeApp({ store, registry, now: () => clock.now });
  const engine = new AlertEngine({
    store,
    registry,
    stateStore: new ClickHouseAlertStateStore(store.client, { key }),
    channels: [webhookChannel({ url: hook.url(`/${key}`) })],
    deliveryLog: new InMemoryDeliveryLog(),
    now: () => clock.now,
    log: memoryLog(),
  });
  const hung = () =>
    hook.received
      .filter((r) => r.path === `/${key}`)
      .map((r) => r.body as { rule?: string; subject?: string; kind?: string })
      .filter((b) => b.rule === "collector_hung");
  return { registry, app, engine, hung };
}

const start = (run_id: string, p: Record<string, unknown> = {}) => ({
  run_id,
  collector: "backup",
  cloud_account_id: "111111111111",
  cloud_region: "us-east-1",
  ...p,
});

describe("a run that starts and does not end within its max duration", () => {
  it("is running, then hung with a collector_hung alert, which its final record resolves", async () => {
    const clock = { now: T0 };
    const { app, engine, hung } = setup("runstart-hung", clock);
    const put = await call(app, "PUT", "/api/system/collectors/backup", {
      body: { expected_interval_minutes: 1440, max_duration_minutes: 60 },
    });
    expect(put.body).toMatchObject({ name: "backup", max_duration_minutes: 60 });
    const id = uuid(0x28);

    const posted = await call(app, "POST", "/api/system/runs/start", { body: start(id) });
    expect(posted).toEqual({ status: 202, body: { run_id: id, started_at: iso(T0), registered: [] } });

    clock.now = T0 + 60 * MIN;
    const running = (await call(app, "GET", "/api/system/status")).body;
    expect(running.open_runs).toEqual([
      {
        run_id: id,
        collector: "backup",
        cloud_account_id: "111111111111",
        cloud_region: "us-east-1",
        state: "running",
        started_at: iso(T0),
        elapsed_ms: 60 * MIN,
        max_duration_ms: 60 * MIN,
        max_duration_source: "set",
      },
    ]);
    await engine.tick();
    expect(hung()).toEqual([]);

    // One minute past its max duration: hung, and the alert fires.
    clock.now = T0 + 61 * MIN;
    const st = (await call(app, "GET", "/api/system/status")).body;
    expect(st.open_runs[0]).toMatchObject({ state: "hung", elapsed_ms: 61 * MIN });
    const metrics = await app.request("/metrics", {
      headers: { authorization: "Bearer test-token-0123456789" },
    });
    const text = await metrics.text();
    expect(text).toContain('svcmon_runs_open{state="hung"} 1');
    expect(text).toContain('svcmon_runs_open{state="running"} 0');
    await engine.tick();
    expect(hung().map((b) => [b.kind, b.subject])).toEqual([["firing", "backup/111111111111/us-east-1"]]);
    const firing = JSON.stringify(hung()[0]);
    expect(firing).toContain(`run ${id} started ${iso(T0)}`);
    expect(firing).toContain("after 1 h 1 min; its max duration is 1 h (set)");

    // Its final record arrives: no longer open, and the alert resolves.
    clock.now = T0 + 70 * MIN;
    const done = await call(app, "POST", "/api/system/runs", {
      body: runAt(clock.now, { collector: "backup", run_id: id, started_at: iso(T0) }),
    });
    expect(done.status).toBe(201);
    expect((await call(app, "GET", "/api/system/status")).body.open_runs).toEqual([]);
    await engine.tick();
    expect(hung().map((b) => b.kind)).toEqual(["firing", "resolved"]);
  }, 60_000);
});

describe("a start that never gets its final record", () => {
  it("is forgotten after the expiry bound: neither shown nor alerted on", async () => {
    const clock = { now: T0 };
    const { app, engine, hung } = setup("runstart-expiry", clock);
    await call(app, "PUT", "/api/system/collectors/export", {
      body: { expected_interval_minutes: 60, max_duration_minutes: 30 },
    });
    const id = uuid(0x28);
    expect(
      (await call(app, "POST", "/api/system/runs/start", { body: start(id, { collector: "export" }) }))
        .status,
    ).toBe(202);
    clock.now = T0 + 2 * HOUR;
    await engine.tick();
    expect(hung().map((b) => b.kind)).toEqual(["firing"]);
    clock.now = T0 + MAX_OPEN_RUN_HOURS * HOUR + MIN;
    const st = (await call(app, "GET", "/api/system/status")).body;
    expect(st.open_runs.filter((r: { run_id: string }) => r.run_id === id)).toEqual([]);
    await engine.tick();
    expect(hung().map((b) => b.kind)).toEqual(["firing", "resolved"]);
  }, 60_000);
});

describe("POST /api/system/runs/start", () => {
  it("keeps the first start of a run_id, registers an unknown collector, and refuses bad fields naming them", async () => {
    const clock = { now: T0 };
    const { app, registry } = setup("runstart-input", clock);
    const id = uuid(0x28);
    const first = await call(app, "POST", "/api/system/runs/start", {
      body: start(id, { collector: "brand_new", started_at: T0 - 5 * MIN }),
    });
    expect(first).toEqual({
      status: 202,
      body: { run_id: id, started_at: iso(T0 - 5 * MIN), registered: ["brand_new"] },
    });
    expect(await registry.get("brand_new")).toMatchObject({ registered_by: "first_run" });
    await call(app, "POST", "/api/system/runs/start", { body: start(id, { collector: "brand_new" }) });
    const open = (await call(app, "GET", "/api/system/status")).body.open_runs.filter(
      (r: { run_id: string }) => r.run_id === id,
    );
    expect(open.map((r: { started_at: string }) => r.started_at)).toEqual([iso(T0 - 5 * MIN)]);

    const bad = await call(app, "POST", "/api/system/runs/start", {
      body: { collector: "x y", cloud_account_id: "111111111111", cloud_region: "us-east-1" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(["run_id", "collector"]);
    const ahead = await call(app, "POST", "/api/system/runs/start", {
      body: start(uuid(0x28), { started_at: T0 + HOUR }),
    });
    expect(ahead.status).toBe(422);
    expect(ahead.body.error.details[0]).toMatchObject({ path: "started_at" });
    expect(ahead.body.error.details[0].message).toContain("ahead of the server clock");
  }, 60_000);
});
