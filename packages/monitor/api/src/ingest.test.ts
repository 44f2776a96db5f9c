import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { createChdbClient } from "@monitor/clickhouse/chdb";
import { InMemoryCollectorRegistry } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, openTempStore, runAt, TOKEN, uuid } from "./test-support.ts";

// Real chDB on a temp folder of this file; the registry is an in-memory registry (see test-support).
let store: ClickHouseRunStore;
let cleanup: () => Promise<void>;
let countRuns: (collector: string) => Promise<number>;
const NOW = Math.floor(Date.now() / MIN) * MIN;

beforeAll(async () => {
  const t = await openTempStore("svcmon-api-ingest-");
  store = t.store;
  cleanup = t.cleanup;
  const admin = createChdbClient(t.dir);
  countRuns = async (collector) => {
    const rs = await admin.query({
      query: "SELECT count() AS n FROM svc.collector_runs WHERE collector = {c:String}",
      query_params: { c: collector },
      format: "JSONEachRow",
    });
    const [row] = await rs.json<{ n: number | string }>();
    return Number(row?.n ?? 0);
  };
});

afterAll(async () => {
  await cleanup();
});

describe("auth", () => {
  const routes: [string, string, unknown?][] = [
    ["POST", "/api/system/runs", runAt(NOW)],
    ["PUT", "/api/system/accounts/a1", { account_name: "A", svc_status: "active" }],
    ["PUT", "/api/system/collectors/c1", { expected_interval_minutes: 5 }],
    ["GET", "/api/system/collectors"],
    ["GET", "/api/system/status"],
    ["GET", "/api/v1/system/status"],
    ["GET", "/api/system/freshness"],
    ["GET", "/api/system/accounts"],
    ["GET", "/api/system/no-such-route"],
  ];

  it.each(routes)("%s %s answers 401 without, with a wrong, or with a non-bearer token", async (m, p, b) => {
    const app = makeApp({ store, now: () => NOW });
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer wrong-token" },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${TOKEN}` },
      { authorization: TOKEN },
    ]) {
      const res = await app.request(p, {
        method: m,
        headers: { ...headers, "content-type": "application/json" },
        ...(b === undefined ? {} : { body: JSON.stringify(b) }),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: { code: "unauthorized", message: expect.any(String) },
      });
    }
    expect(await countRuns("config_ec2")).toBe(0);
  });

  it("GET /healthz is open", async () => {
    const app = makeApp({ store });
    const res = await app.request("/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("refuses an empty token at construction", () => {
    expect(() => makeApp({ store, token: "" })).toThrow(/token/);
  });
});

describe("POST /api/system/runs", () => {
  it("stores one record and answers 201 with counts", async () => {
    const app = makeApp({ store });
    const r = await call(app, "POST", "/api/system/runs", {
      body: runAt(NOW - MIN, { collector: "ing_one" }),
    });
    expect(r).toEqual({
      status: 201,
      body: { received: 1, stored: 1, duplicates: [], registered: ["ing_one"] },
    });
    expect(await countRuns("ing_one")).toBe(1);
  });

  it("a batch with bad records stores nothing and reports every error with its path", async () => {
    const app = makeApp({ store });
    const batch = [0, 1, 2, 3, 4].map((i) => runAt(NOW - i * MIN, { collector: "ing_bad", run_id: uuid(1) }));
    batch[1] = { ...batch[1], status: "exploded" } as (typeof batch)[number];
    batch[3] = {
      ...batch[3],
      completed_at: new Date(NOW - 10 * MIN).toISOString(),
    } as (typeof batch)[number];
    batch[4] = {
      ...batch[4],
      events_produced: -1,
      rows_inserted: 2 ** 32,
      started_at: "yesterday",
    } as (typeof batch)[number];
    const r = await call(app, "POST", "/api/system/runs", { body: batch });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    const paths = r.body.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual([
      "[1].status",
      "[3].completed_at",
      "[4].events_produced",
      "[4].rows_inserted",
      "[4].started_at",
    ]);
    for (const d of r.body.error.details) expect(d.message).toEqual(expect.any(String));
    expect(await countRuns("ing_bad")).toBe(0);
  });

  it("a single bad record reports bare paths; a missing field is reported", async () => {
    const app = makeApp({ store });
    const { collector: _c, ...noCollector } = runAt(NOW, {
      completed_at: new Date(NOW - 5 * MIN).toISOString(),
    });
    const r = await call(app, "POST", "/api/system/runs", { body: noCollector });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([
      { path: "collector", message: "is required" },
      { path: "completed_at", message: "must not be before started_at" },
    ]);
  });

  it("a run_id sent twice (in one batch, then again) is stored once", async () => {
    const app = makeApp({ store });
    const id = uuid(2);
    const rec = runAt(NOW - 2 * MIN, { collector: "ing_dup", run_id: id });
    const first = await call(app, "POST", "/api/system/runs", { body: [rec, rec] });
    expect(first).toEqual({
      status: 201,
      body: { received: 2, stored: 1, duplicates: [id], registered: ["ing_dup"] },
    });
    const again = await call(app, "POST", "/api/system/runs", { body: { ...rec, run_id: id.toUpperCase() } });
    expect(again).toEqual({
      status: 201,
      body: { received: 1, stored: 0, duplicates: [id], registered: [] },
    });
    expect(await countRuns("ing_dup")).toBe(1);
  });

  it("an empty array is accepted and stores nothing", async () => {
    const app = makeApp({ store });
    expect(await call(app, "POST", "/api/system/runs", { body: [] })).toEqual({
      status: 201,
      body: { received: 0, stored: 0, duplicates: [], registered: [] },
    });
  });

  it("a body that is not JSON is 400", async () => {
    const app = makeApp({ store });
    const r = await call(app, "POST", "/api/system/runs", { raw: "{not json" });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_json");
  });

  it("a body over the limit is 413 naming the limit (configured and the 1 MiB default)", async () => {
    const small = makeApp({ store, maxBodyBytes: 1024 });
    const big = JSON.stringify([runAt(NOW, { collector: "ing_big", error: "x".repeat(2000) })]);
    const r = await call(small, "POST", "/api/system/runs", { raw: big });
    expect(r.status).toBe(413);
    expect(r.body.error).toEqual({
      code: "payload_too_large",
      message: "the request body is larger than the limit of 1 KiB",
      details: [{ path: "body", message: "must be at most 1024 bytes" }],
    });

    const dflt = makeApp({ store });
    const huge = JSON.stringify([runAt(NOW, { collector: "ing_big", error: "x".repeat(1024 * 1024) })]);
    const r2 = await call(dflt, "POST", "/api/system/runs", { raw: huge });
    expect(r2.status).toBe(413);
    expect(r2.body.error.message).toContain("1 MiB");
    expect(await countRuns("ing_big")).toBe(0);
  });
});

describe("PUT /api/system/accounts/{account_id}", () => {
  it("writes versions; the latest counts in /accounts and /status (same millisecond too)", async () => {
    const app = makeApp({ store, now: () => NOW });
    const a = await call(app, "PUT", "/api/system/accounts/acc-v", {
      body: { account_name: "Versioned", svc_status: "active" },
    });
    expect(a).toEqual({
      status: 200,
      body: {
        account_id: "acc-v",
        account_name: "Versioned",
        svc_status: "active",
        updated_at: new Date(NOW).toISOString(),
      },
    });
    // Same `now`: the new version still wins (updated_at = previous + 1 ms).
    const b = await call(app, "PUT", "/api/system/accounts/acc-v", {
      body: { account_name: "Versioned", svc_status: "no_access" },
    });
    expect(b.status).toBe(200);
    expect(b.body.updated_at).toBe(new Date(NOW + 1).toISOString());

    const accounts = await call(app, "GET", "/api/system/accounts");
    expect(accounts.status).toBe(200);
    expect(accounts.body.counts).toEqual({ active: 0, pending_setup: 0, no_access: 1 });
    expect(accounts.body.warnings).toEqual([
      { account_id: "acc-v", account_name: "Versioned", svc_status: "no_access" },
    ]);
    const status = await call(app, "GET", "/api/system/status");
    expect(status.body.accounts).toEqual({ active: 0, pending_setup: 0, no_access: 1 });

    // A later `now` and a third version: back to active, never scanned: new (waiting for its first
    // scan) for 24 h after its first active version (NOW), then unscanned.
    const later = makeApp({ store, now: () => NOW + 5 * MIN });
    await call(later, "PUT", "/api/system/accounts/acc-v", {
      body: { account_name: "Renamed", svc_status: "active" },
    });
    const after = await call(later, "GET", "/api/system/accounts");
    expect(after.body.counts).toEqual({ active: 1, pending_setup: 0, no_access: 0 });
    expect(after.body.accounts).toEqual([
      {
        account_id: "acc-v",
        account_name: "Renamed",
        svc_status: "active",
        updated_at: new Date(NOW + 5 * MIN).toISOString(),
      },
    ]);
    expect(after.body.unscanned).toEqual([]);
    expect(after.body.new_accounts).toEqual([
      {
        account_id: "acc-v",
        account_name: "Renamed",
        first_active_at: new Date(NOW).toISOString(),
        new_until: new Date(NOW + 24 * 60 * MIN).toISOString(),
      },
    ]);
    const dayLater = makeApp({ store, now: () => NOW + 24 * 60 * MIN + 1 });
    const late = await call(dayLater, "GET", "/api/system/accounts");
    expect(late.body.new_accounts).toEqual([]);
    expect(late.body.unscanned).toEqual([
      { account_id: "acc-v", account_name: "Renamed", last_scanned_at: null },
    ]);
  });

  it("422 for an invalid body, with every field at fault", async () => {
    const app = makeApp({ store });
    const r = await call(app, "PUT", "/api/system/accounts/acc-bad", { body: { svc_status: "gone" } });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([
      { path: "account_name", message: "is required" },
      { path: "svc_status", message: "must be one of active, pending_setup, no_access" },
    ]);
    const mismatch = await call(app, "PUT", "/api/system/accounts/acc-bad", {
      body: { account_id: "other", account_name: "X", svc_status: "active" },
    });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.error.details[0].path).toBe("account_id");
    const arr = await call(app, "PUT", "/api/system/accounts/acc-bad", { body: [] });
    expect(arr.status).toBe(422);
    const notJson = await call(app, "PUT", "/api/system/accounts/acc-bad", { raw: "nope" });
    expect(notJson.status).toBe(400);
  });
});

describe("PUT /api/system/collectors/{name}", () => {
  it("validates, stores through the registry, and lists", async () => {
    const registry = new InMemoryCollectorRegistry(undefined, { now: () => NOW });
    const app = makeApp({ store, registry });
    const bad = await call(app, "PUT", "/api/system/collectors/ext_x", {
      body: { expected_interval_minutes: 0, freshness_threshold_minutes: "60" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      "expected_interval_minutes",
      "freshness_threshold_minutes",
    ]);
    expect(await registry.get("ext_x")).toBeNull();

    const ok = await call(app, "PUT", "/api/system/collectors/ext_x", {
      body: { expected_interval_minutes: 5, freshness_threshold_minutes: 20 },
    });
    const noSchedule = {
      schedule: null,
      timezone: null,
      grace_minutes: null,
      duration_too_long_factor: null,
      duration_too_short_factor: null,
      runs_too_often_factor: null,
      duration_baseline_runs: null,
      max_duration_minutes: null,
    };
    expect(ok).toEqual({
      status: 200,
      body: { name: "ext_x", expected_interval_minutes: 5, freshness_threshold_minutes: 20, ...noSchedule },
    });
    // The registry also keeps when it first knew the collector (the grace of a new collector).
    expect(await registry.get("ext_x")).toEqual({
      name: "ext_x",
      expected_interval_minutes: 5,
      freshness_threshold_minutes: 20,
      registered_at: NOW,
      registered_by: "api",
    });
    // A max duration is bounded like the intervals, and kept when valid.
    const tooLong = await call(app, "PUT", "/api/system/collectors/ext_x", {
      body: { expected_interval_minutes: 5, max_duration_minutes: 0 },
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.details.map((d: { path: string }) => d.path)).toEqual(["max_duration_minutes"]);
    const dflt = await call(app, "PUT", "/api/system/collectors/ext_y", {
      body: { expected_interval_minutes: 7 },
    });
    expect(dflt.body.freshness_threshold_minutes).toBe(60);
    const list = await call(app, "GET", "/api/system/collectors");
    expect(list.body.collectors.map((c: { name: string }) => c.name)).toEqual([
      "config_ec2",
      "config_ebs",
      "config_network",
      "hierarchy_builder",
      "ext_x",
      "ext_y",
    ]);
    const bounded = await call(app, "PUT", "/api/system/collectors/ext_y", {
      body: { expected_interval_minutes: 7, max_duration_minutes: 45 },
    });
    expect(bounded.body.max_duration_minutes).toBe(45);
    expect(await registry.get("ext_y")).toMatchObject({ max_duration_minutes: 45 });
    expect(list.body.collectors[4]).toEqual({
      name: "ext_x",
      expected_interval_minutes: 5,
      freshness_threshold_minutes: 20,
      ...noSchedule,
      registered_at: new Date(NOW).toISOString(),
      registered_by: "api",
    });
  });

  it("takes a cron schedule in a time zone with a grace instead of an interval, with defaults", async () => {
    const registry = new InMemoryCollectorRegistry(undefined, { now: () => NOW });
    const app = makeApp({ store, registry });
    const ok = await call(app, "PUT", "/api/system/collectors/nightly_backup", {
      body: { schedule: "0 2 * * 1-5", timezone: "Europe/Berlin", grace_minutes: 30 },
    });
    expect(ok).toEqual({
      status: 200,
      body: {
        name: "nightly_backup",
        expected_interval_minutes: null,
        freshness_threshold_minutes: 60,
        schedule: "0 2 * * 1-5",
        timezone: "Europe/Berlin",
        grace_minutes: 30,
        duration_too_long_factor: null,
        duration_too_short_factor: null,
        runs_too_often_factor: null,
        duration_baseline_runs: null,
        max_duration_minutes: null,
      },
    });
    const dflt = await call(app, "PUT", "/api/system/collectors/hourly", { body: { schedule: "5 * * * *" } });
    expect(dflt.body).toMatchObject({ schedule: "5 * * * *", timezone: "UTC", grace_minutes: 60 });
  });

  it("answers 422 naming every bad field of a schedule at once, and stores nothing", async () => {
    const registry = new InMemoryCollectorRegistry(undefined, { now: () => NOW });
    const app = makeApp({ store, registry });
    const paths = async (body: Record<string, unknown>) => {
      const r = await call(app, "PUT", "/api/system/collectors/nightly_backup", { body });
      expect(r.status).toBe(422);
      return r.body.error.details.map((d: { path: string; message: string }) => `${d.path}: ${d.message}`);
    };
    expect(await paths({ schedule: "0 25 * * *", timezone: "Europe/Berlin" })).toEqual([
      expect.stringMatching(/^schedule: is not a valid cron expression/),
    ]);
    expect(await paths({ schedule: "0 2 * * *", timezone: "Mars/Olympus", grace_minutes: -1 })).toEqual([
      "timezone: must be an IANA time zone such as Europe/Berlin",
      "grace_minutes: must be a whole number from 0 to 10080",
    ]);
    expect(await paths({ schedule: "0 2 * * *", expected_interval_minutes: 60 })).toEqual([
      "schedule: must not be given with expected_interval_minutes (a collector runs on one or the other)",
    ]);
    expect(await paths({ timezone: "UTC" })).toEqual([
      "expected_interval_minutes: is required (or give a cron schedule)",
      "timezone: is only read with a schedule",
    ]);
    expect(await paths({ schedule: "x".repeat(121) })).toEqual(["schedule: must be at most 120 characters"]);
    expect(await registry.get("nightly_backup")).toBeNull();
  });
});
