// Auto-registration and time sanity end to end: the monitor API and the
// alert engine over one real chDB store and the ClickHouse collector registry, on one clock this test
// moves. A job nobody registered reports once: it is registered (first_run, 24 h / 48 h defaults),
// shown as such, and when it then falls silent it turns red and the stale alert reaches the webhook.
// One whose runs all fail is failing: one collector_failure alert, no stale alert beside it.
// No real time is waited: the clock is a variable.

import {
  ClickHouseAlertStateStore,
  ClickHouseCollectorRegistry,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import { DEFAULT_AUTO_REGISTER, InMemoryCollectorRegistry } from "@monitor/core";
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
  const t = await openTempStore("svcmon-api-autoreg-");
  store = t.store;
  cleanup = t.cleanup;
  hook = await startHttpReceiverDouble();
});

afterAll(async () => {
  await hook.close();
  await cleanup();
});

async function countRuns(collector: string): Promise<number> {
  const rs = await store.client.query({
    query: "SELECT count() AS n FROM svc.collector_runs WHERE collector = {c:String}",
    query_params: { c: collector },
    format: "JSONEachRow",
  });
  const [row] = await rs.json<{ n: number | string }>();
  return Number(row?.n ?? 0);
}

describe("an unregistered job that reports, then falls silent", () => {
  it("is registered by its first run (first_run, 24 h / 48 h), then turns red and alerts like any other", async () => {
    let clock = T0;
    // No configured collectors: the job is the only subject.
    const registry = ClickHouseCollectorRegistry.fromStore(store, { defaults: [], now: () => clock });
    const app = makeApp({ store, registry, now: () => clock });
    const engine = new AlertEngine({
      store,
      registry,
      stateStore: new ClickHouseAlertStateStore(store.client, { key: "test-autoreg" }),
      channels: [webhookChannel({ url: hook.url("/hook") })],
      deliveryLog: new InMemoryDeliveryLog(),
      now: () => clock,
      log: memoryLog(),
    });
    const stale = () =>
      hook.received
        .map((r) => r.body as { rule?: string; subject?: string; kind?: string })
        .filter((b) => b.rule === "collector_stale" && b.subject === "nightly_backup")
        .map((b) => b.kind);

    const posted = await call(app, "POST", "/api/system/runs", {
      body: runAt(T0, { collector: "nightly_backup", run_id: uuid(90) }),
    });
    expect(posted).toEqual({
      status: 201,
      body: { received: 1, stored: 1, duplicates: [], registered: ["nightly_backup"] },
    });
    // In the registry: the deployment's defaults, marked first_run, registered at the server's clock.
    expect((await call(app, "GET", "/api/system/collectors")).body.collectors).toEqual([
      {
        name: "nightly_backup",
        expected_interval_minutes: 24 * 60,
        freshness_threshold_minutes: 48 * 60,
        schedule: null,
        timezone: null,
        grace_minutes: null,
        duration_too_long_factor: null,
        duration_too_short_factor: null,
        runs_too_often_factor: null,
        duration_baseline_runs: null,
        max_duration_minutes: null,
        registered_at: iso(T0),
        registered_by: "first_run",
      },
    ]);
    // In the status body: a collector like any other, marked first_run; no "unregistered" warning.
    const st = (await call(app, "GET", "/api/system/status")).body;
    expect(st.collectors).toEqual([
      {
        name: "nightly_backup",
        last_run: iso(T0),
        status: "succeeded",
        minutes_ago: 0,
        health: "green",
        registered_at: iso(T0),
        new_until: null,
        registered_by: "first_run",
        schedule: null,
        next_expected_run: null,
        duration: { baseline: null, last_ms: 2000, verdict: "no_baseline", detail: null },
      },
    ]);
    expect(st.warnings).toEqual([]);
    // A second run of it registers nothing more.
    clock = T0 + HOUR;
    const again = await call(app, "POST", "/api/system/runs", {
      body: [runAt(T0 + HOUR, { collector: "nightly_backup", run_id: uuid(90) })],
    });
    expect(again.body.registered).toEqual([]);

    await engine.tick();
    expect(stale()).toEqual([]);
    // Exactly 2 × 24 h after its last success: amber, not stale yet.
    clock = T0 + HOUR + 48 * HOUR;
    await engine.tick();
    expect(stale()).toEqual([]);
    // One minute more without a run: red, and the stale alert fires.
    clock += MIN;
    await engine.tick();
    expect(stale()).toEqual(["firing"]);
    const red = (await call(app, "GET", "/api/system/status")).body;
    expect(red.collectors[0]).toMatchObject({
      name: "nightly_backup",
      health: "red",
      registered_by: "first_run",
    });
    expect(red.overall_health).toBe("red");
  }, 60_000);
});

describe("an unregistered job whose runs all fail", () => {
  it("is reported once, as failing: amber in the status, one collector_failure warning, no stale alert", async () => {
    let clock = T0;
    const registry = ClickHouseCollectorRegistry.fromStore(store, { defaults: [], now: () => clock });
    const app = makeApp({ store, registry, now: () => clock });
    const engine = new AlertEngine({
      store,
      registry,
      stateStore: new ClickHouseAlertStateStore(store.client, { key: "test-autoreg-failing" }),
      channels: [webhookChannel({ url: hook.url("/failing") })],
      deliveryLog: new InMemoryDeliveryLog(),
      now: () => clock,
      log: memoryLog(),
    });
    for (const [i, m] of [0, 5, 10].entries()) {
      clock = T0 + m * MIN;
      const r = await call(app, "POST", "/api/system/runs", {
        body: runAt(clock, {
          collector: "weekly_export",
          status: "failed",
          error: "exit code 2: bucket not found",
          run_id: uuid(200 + i),
        }),
      });
      expect(r.status).toBe(201);
    }
    await engine.tick();
    const sent = hook.received
      .filter((r) => r.path === "/failing")
      .map((r) => r.body as { rule: string; subject: string; severity: string });
    expect(sent.map((b) => `${b.rule} ${b.severity} ${b.subject}`)).toEqual([
      "collector_failure warning weekly_export/111111111111/us-east-1",
    ]);
    const st = (await call(app, "GET", "/api/system/status")).body;
    const c = st.collectors.find((x: { name: string }) => x.name === "weekly_export");
    expect(c).toMatchObject({ health: "amber", registered_by: "first_run" });
    const reasons = st.warnings
      .filter((w: { subject: string }) => w.subject === "weekly_export")
      .map((w: { message: string }) => w.message);
    expect(reasons[0]).toMatch(
      /^failing: no run has succeeded yet \(registered 10 min ago; stale if none succeeds by /,
    );
    expect(reasons.join(" ")).not.toContain("no succeeded run ever");
    expect((await engine.firingAlerts()).map((a) => `${a.rule} ${a.subject}`)).toEqual([
      "collector_failure weekly_export/111111111111/us-east-1",
    ]);
  }, 60_000);
});

describe("DELETE /api/system/collectors/{name}", () => {
  it("removes an auto-registered collector; 404 for an unknown one, 409 for a configured one, 401 without the token", async () => {
    let clock = T0;
    const registry = ClickHouseCollectorRegistry.fromStore(store, { now: () => clock });
    const app = makeApp({ store, registry, now: () => clock });
    await call(app, "POST", "/api/system/runs", {
      body: runAt(T0, { collector: "adhoc_job", run_id: uuid(91) }),
    });
    expect(await registry.get("adhoc_job")).toMatchObject({ registered_by: "first_run" });

    expect((await call(app, "DELETE", "/api/system/collectors/adhoc_job", { token: null })).status).toBe(401);
    expect(await call(app, "DELETE", "/api/system/collectors/adhoc_job")).toEqual({
      status: 200,
      body: { name: "adhoc_job", deleted: true },
    });
    expect(await registry.get("adhoc_job")).toBeNull();
    const names = (await call(app, "GET", "/api/system/collectors")).body.collectors.map(
      (c: { name: string }) => c.name,
    );
    expect(names).not.toContain("adhoc_job");
    // Its runs stay.
    expect(await countRuns("adhoc_job")).toBe(1);

    const missing = await call(app, "DELETE", "/api/system/collectors/adhoc_job");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    const configured = await call(app, "DELETE", "/api/system/collectors/config_ec2");
    expect(configured.status).toBe(409);
    expect(configured.body.error).toMatchObject({ code: "configured_collector" });
    expect(configured.body.error.message).toContain("config_ec2");

    // If the job keeps reporting, its next run registers it again, from then.
    clock = T0 + 5 * MIN;
    await call(app, "POST", "/api/system/runs", {
      body: runAt(clock, { collector: "adhoc_job", run_id: uuid(91) }),
    });
    expect(await registry.get("adhoc_job")).toMatchObject({
      registered_at: clock,
      registered_by: "first_run",
    });
  }, 60_000);
});

describe("auto-registration switched off (AUTO_REGISTER=0)", () => {
  it("stores the run, registers nothing, and the status warns about the unregistered collector", async () => {
    const registry = new InMemoryCollectorRegistry([], { now: () => T0 });
    const app = makeApp({
      store,
      registry,
      now: () => T0,
      autoRegister: { ...DEFAULT_AUTO_REGISTER, enabled: false },
    });
    const r = await call(app, "POST", "/api/system/runs", {
      body: runAt(T0, { collector: "unwatched_job" }),
    });
    expect(r.body).toMatchObject({ stored: 1, registered: [] });
    expect(await registry.get("unwatched_job")).toBeNull();
    const st = (await call(app, "GET", "/api/system/status")).body;
    expect(st.warnings).toContainEqual(
      expect.objectContaining({ kind: "unregistered_collector", subject: "unwatched_job" }),
    );
  });

  it("the deployment's defaults apply to what it registers", async () => {
    const registry = new InMemoryCollectorRegistry([], { now: () => T0 });
    const app = makeApp({
      store,
      registry,
      now: () => T0,
      autoRegister: { enabled: true, expected_interval_minutes: 60, freshness_threshold_minutes: 90 },
    });
    await call(app, "POST", "/api/system/runs", { body: runAt(T0, { collector: "hourly_job" }) });
    expect(await registry.get("hourly_job")).toEqual({
      name: "hourly_job",
      expected_interval_minutes: 60,
      freshness_threshold_minutes: 90,
      registered_at: T0,
      registered_by: "first_run",
    });
  });
});

describe("time sanity: a record dated ahead of the server clock", () => {
  it("a record 200 years ahead is refused with 422 naming both fields and the skew; nothing is stored or registered", async () => {
    const registry = new InMemoryCollectorRegistry([], { now: () => T0 });
    const app = makeApp({ store, registry, now: () => T0 });
    const far = Date.UTC(2225, 0, 31, 12);
    const r = await call(app, "POST", "/api/system/runs", {
      body: runAt(far, { collector: "future_job", started_at: iso(far - 1000) }),
    });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.message).toBe("2 problem(s) in the run records; nothing was stored");
    expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual(["started_at", "completed_at"]);
    expect(r.body.error.details[1].message).toMatch(
      /^is \d+ d ahead of the server clock; at most 15 min \(900 s\) ahead is accepted$/,
    );
    expect(await countRuns("future_job")).toBe(0);
    expect(await registry.get("future_job")).toBeNull();
  });

  it("in a batch, one record 16 min ahead refuses the whole batch, naming its index; 15 min ahead is accepted", async () => {
    const app = makeApp({ store, now: () => T0 });
    const bad = await call(app, "POST", "/api/system/runs", {
      body: [
        runAt(T0, { collector: "skew_job" }),
        runAt(T0 + 16 * MIN, { collector: "skew_job", started_at: iso(T0) }),
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([
      {
        path: "[1].completed_at",
        message: "is 16 min ahead of the server clock; at most 15 min (900 s) ahead is accepted",
      },
    ]);
    expect(await countRuns("skew_job")).toBe(0);
    const edge = await call(app, "POST", "/api/system/runs", {
      body: [runAt(T0 + 15 * MIN, { collector: "skew_job", started_at: iso(T0) })],
    });
    expect(edge.status).toBe(201);
  });

  it("the allowance is the deployment's (MAX_CLOCK_SKEW_S)", async () => {
    const app = makeApp({ store, now: () => T0, maxClockSkewMs: MIN });
    const r = await call(app, "POST", "/api/system/runs", {
      body: runAt(T0 + 2 * MIN, { collector: "skew_job2", started_at: iso(T0) }),
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([
      {
        path: "completed_at",
        message: "is 2 min ahead of the server clock; at most 1 min (60 s) ahead is accepted",
      },
    ]);
  });
});
