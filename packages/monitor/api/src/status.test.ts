import type { InMemoryRunStore } from "@monitor/core";
import { DEFAULT_COLLECTORS, InMemoryCollectorRegistry, type RunStore } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, openMemoryStore, runAt, TOKEN, uuid } from "./test-support.ts";

// Real chDB on a temp folder of this file; registries are in-memory registries (see test-support).
let store: InMemoryRunStore;
let cleanup: () => Promise<void>;
const NOW = Math.floor(Date.now() / MIN) * MIN;
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const iso = (ms: number) => new Date(ms).toISOString();
/** A collector entry of a registry without registration times (no grace: never ran is red). */
const unregistered = <T extends object>(c: T) => ({
  ...c,
  registered_at: null,
  new_until: null,
  registered_by: null,
  schedule: null,
  next_expected_run: null,
  duration: expect.objectContaining({ verdict: expect.any(String) }),
});

async function post(body: unknown): Promise<void> {
  const r = await call(makeApp({ store }), "POST", "/api/system/runs", { body });
  expect(r.status).toBe(201);
}

async function putAccount(id: string, name: string, svc_status: string): Promise<void> {
  const r = await call(makeApp({ store, now: () => NOW - 60 * MIN }), "PUT", `/api/system/accounts/${id}`, {
    body: { account_name: name, svc_status },
  });
  expect(r.status).toBe(200);
}

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-api-status-");
  store = t.store;
  cleanup = t.cleanup;
  // fresh / late / stale / never ran (hierarchy_builder), with the default 15 min intervals.
  await post([
    runAt(NOW - 5 * MIN, { collector: "config_ec2", cloud_account_id: "acc-1", run_id: uuid(10) }),
    runAt(NOW - 20 * MIN, { collector: "config_ebs", cloud_account_id: "acc-1", run_id: uuid(10) }),
    runAt(NOW - 40 * MIN, { collector: "config_network", cloud_account_id: "acc-1", run_id: uuid(10) }),
    // Older failure of config_ec2: not its latest run.
    runAt(NOW - 10 * MIN, {
      collector: "config_ec2",
      cloud_account_id: "acc-1",
      status: "failed",
      error: "throttled",
      run_id: uuid(10),
    }),
    // Freshness: not in the default registry (see the freshness test's registry).
    runAt(NOW - 90 * MIN, { collector: "old_one", status: "failed", error: "boom", run_id: uuid(10) }),
    runAt(NOW - 120 * MIN, { collector: "older_one", status: "partial", run_id: uuid(10) }),
    // Failure streaks.
    ...[4, 3, 2].map((m) =>
      runAt(NOW - m * MIN, {
        collector: "streaky",
        cloud_region: "eu-west-1",
        status: "failed",
        run_id: uuid(10),
      }),
    ),
    runAt(NOW - 1 * MIN, { collector: "streaky", cloud_region: "us-east-1", run_id: uuid(10) }),
    runAt(NOW - 10 * MIN, { collector: "streaky_latest", run_id: uuid(10) }),
    ...[6, 4, 2].map((m) =>
      runAt(NOW - m * MIN, {
        collector: "streaky_latest",
        status: "failed",
        error: `e${m}`,
        run_id: uuid(10),
      }),
    ),
    runAt(NOW - 10 * MIN, { collector: "two_fails", run_id: uuid(10) }),
    ...[4, 2].map((m) =>
      runAt(NOW - m * MIN, { collector: "two_fails", status: "failed", run_id: uuid(10) }),
    ),
  ]);
  await putAccount("acc-1", "Scanned", "active");
  await putAccount("acc-2", "Never scanned", "active");
  await putAccount("acc-3", "Pending", "pending_setup");
  await putAccount("acc-4", "Locked out", "no_access");
});

afterAll(async () => {
  await cleanup();
});

describe("GET /api/system/status", () => {
  it("answers the status body: fresh, late, stale and never-ran collectors", async () => {
    const app = makeApp({ store, now: () => NOW });
    const r = await call(app, "GET", "/api/system/status");
    expect(r.status).toBe(200);
    const body = r.body;
    expect(Object.keys(body).sort()).toEqual(
      [
        "accounts",
        "alerts",
        "analytics_db",
        "collectors",
        "generated_at",
        "new_accounts",
        "open_runs",
        "overall_health",
        "queues",
        "triage",
        "unscanned_accounts",
        "warnings",
      ].sort(),
    );
    expect(body.collectors).toEqual(
      [
        {
          name: "config_ec2",
          last_run: iso(NOW - 5 * MIN),
          status: "succeeded",
          minutes_ago: 5,
          health: "green",
        },
        {
          name: "config_ebs",
          last_run: iso(NOW - 20 * MIN),
          status: "succeeded",
          minutes_ago: 20,
          health: "amber",
        },
        {
          name: "config_network",
          last_run: iso(NOW - 40 * MIN),
          status: "succeeded",
          minutes_ago: 40,
          health: "red",
        },
        { name: "hierarchy_builder", last_run: null, status: null, minutes_ago: null, health: "red" },
      ].map(unregistered),
    );
    expect(body.overall_health).toBe("red");
    for (const c of body.collectors) {
      // The status body's five original fields first, then the registration and the grace of a new collector.
      expect(Object.keys(c)).toEqual([
        "name",
        "last_run",
        "status",
        "minutes_ago",
        "health",
        "registered_at",
        "new_until",
        "registered_by",
        "schedule",
        "next_expected_run",
        "duration",
      ]);
      expect(typeof c.name).toBe("string");
      if (c.last_run !== null) {
        expect(c.last_run).toMatch(ISO_RE);
        expect(["succeeded", "failed", "partial"]).toContain(c.status);
        expect(Number.isInteger(c.minutes_ago)).toBe(true);
      }
      expect(["new", "green", "amber", "red"]).toContain(c.health);
    }
    expect(body.accounts).toEqual({ active: 2, pending_setup: 1, no_access: 1 });
    expect(typeof body.analytics_db.disk_used_gb).toBe("number");
    expect(body.analytics_db.disk_used_gb).toBeGreaterThanOrEqual(0);
    expect(typeof body.analytics_db.query_p95_ms).toBe("number");
    // The store's own names for where its figures come from, passed through (the embedded ClickHouse
    // store's, "data-folder+statfs" and "client-timings", are tested in @monitor/clickhouse).
    expect(body.analytics_db.source).toEqual({
      disk: "memory",
      query_latency: "client-timings",
    });
    expect(body.generated_at).toBe(iso(NOW));
    // acc-2 was put active an hour ago and never scanned: new (waiting) for 24 h, not unscanned.
    expect(body.unscanned_accounts).toEqual([]);
    expect(body.new_accounts).toEqual([
      {
        account_id: "acc-2",
        account_name: "Never scanned",
        first_active_at: iso(NOW - 60 * MIN),
        new_until: iso(NOW + 23 * 60 * MIN),
      },
    ]);
    const byKind = (k: string) =>
      body.warnings.filter((w: { kind: string }) => w.kind === k).map((w: { subject: string }) => w.subject);
    expect(byKind("account")).toEqual(["acc-4", "acc-3"]);
    expect(byKind("collector")).toEqual(["config_ebs", "config_network", "hierarchy_builder"]);
    expect(byKind("unregistered_collector")).toEqual([
      "old_one",
      "older_one",
      "streaky",
      "streaky_latest",
      "two_fails",
    ]);
  });

  it("/api/v1/system/status answers the same body", async () => {
    const app = makeApp({ store, now: () => NOW });
    const a = await call(app, "GET", "/api/system/status");
    const b = await call(app, "GET", "/api/v1/system/status");
    expect(b.status).toBe(200);
    // Latency figures move between two calls (every query adds a sample); everything else is equal.
    const strip = (x: { analytics_db: Record<string, unknown> }) => ({
      ...x,
      analytics_db: Object.keys(x.analytics_db).sort(),
    });
    expect(strip(b.body)).toEqual(strip(a.body));
    expect(b.body.analytics_db.disk_used_gb).toBe(a.body.analytics_db.disk_used_gb);
  });

  it("the minute boundaries follow the rules (exactly 2 × interval is amber, 1 ms more is red)", async () => {
    const app = makeApp({ store, now: () => NOW - 40 * MIN + 30 * MIN });
    const r = await call(app, "GET", "/api/system/status");
    const net = r.body.collectors.find((c: { name: string }) => c.name === "config_network");
    expect(net).toEqual(
      unregistered({
        name: "config_network",
        last_run: iso(NOW - 40 * MIN),
        status: "succeeded",
        minutes_ago: 30,
        health: "amber",
      }),
    );
    const later = makeApp({ store, now: () => NOW - 40 * MIN + 30 * MIN + 1 });
    const r2 = await call(later, "GET", "/api/system/status");
    expect(r2.body.collectors.find((c: { name: string }) => c.name === "config_network").health).toBe("red");
  });

  it("failure streaks: 3 consecutive failures of one account/region make the collector amber", async () => {
    const registry = new InMemoryCollectorRegistry([
      { name: "streaky", expected_interval_minutes: 15, freshness_threshold_minutes: 60 },
      { name: "streaky_latest", expected_interval_minutes: 15, freshness_threshold_minutes: 60 },
      { name: "two_fails", expected_interval_minutes: 15, freshness_threshold_minutes: 60 },
    ]);
    const app = makeApp({ store, registry, now: () => NOW });
    const r = await call(app, "GET", "/api/system/status");
    expect(r.body.collectors).toEqual(
      [
        { name: "streaky", last_run: iso(NOW - MIN), status: "succeeded", minutes_ago: 1, health: "amber" },
        {
          name: "streaky_latest",
          last_run: iso(NOW - 2 * MIN),
          status: "failed",
          minutes_ago: 2,
          health: "amber",
        },
        {
          name: "two_fails",
          last_run: iso(NOW - 2 * MIN),
          status: "failed",
          minutes_ago: 2,
          health: "amber",
        },
      ].map(unregistered),
    );
    const reasons = (name: string) =>
      r.body.warnings
        .filter((w: { kind: string; subject: string }) => w.kind === "collector" && w.subject === name)
        .map((w: { message: string }) => w.message);
    expect(reasons("streaky")).toEqual([
      "111111111111/eu-west-1: 3 consecutive failed runs since last success",
    ]);
    expect(reasons("streaky_latest")).toEqual([
      "latest run failed: e2",
      "111111111111/us-east-1: 3 consecutive failed runs since last success",
    ]);
    expect(reasons("two_fails")).toEqual(["latest run failed"]);
  });

  it("reading only the failing series gives the same body, triage and metrics as reading every series", async () => {
    // The store as it was before the status read asked for the failing series only: every series.
    const everySeries = new Proxy(store, {
      get(target, prop) {
        if (prop === "consecutiveFailuresPerCollectorAccountRegion")
          return (since: number) => target.consecutiveFailuresPerCollectorAccountRegion(since);
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    }) as RunStore;
    const all = await store.consecutiveFailuresPerCollectorAccountRegion(NOW - 24 * 60 * MIN);
    const failing = await store.consecutiveFailuresPerCollectorAccountRegion(NOW - 24 * 60 * MIN, {
      failingOnly: true,
    });
    // The fixture has series of both kinds.
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThan(all.length);
    const registry = () =>
      new InMemoryCollectorRegistry([
        ...["config_ec2", "config_ebs", "config_network", "streaky", "streaky_latest", "two_fails"].map(
          (name) => ({ name, expected_interval_minutes: 15, freshness_threshold_minutes: 60 }),
        ),
        { name: "old_one", expected_interval_minutes: 15, freshness_threshold_minutes: 60 },
        { name: "older_one", expected_interval_minutes: 60, freshness_threshold_minutes: 240 },
      ]);
    for (const at of [NOW, NOW + 30 * MIN, NOW + 3 * 60 * MIN]) {
      const read = async (s: RunStore) => {
        const app = makeApp({ store: s, registry: registry(), now: () => at });
        const status = (await call(app, "GET", "/api/system/status")).body;
        delete status.analytics_db;
        const metrics = await (
          await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })
        ).text();
        return {
          status,
          // The gauges from the evaluation (the process and analytics-DB figures vary by call).
          metrics: metrics.split("\n").filter((l) => /^\w*(collector|overall_health|accounts)/.test(l)),
        };
      };
      const before = await read(everySeries);
      expect(before.status.triage.length).toBeGreaterThan(0);
      expect(before.metrics.filter((l) => l.includes("consecutive_failures")).length).toBeGreaterThan(0);
      expect(await read(store)).toEqual(before);
    }
  });

  it("a collector that never ran is new within its grace (waiting, not red), then red", async () => {
    const spec = { name: "fresh_one", expected_interval_minutes: 15, freshness_threshold_minutes: 60 };
    // The registry registers it the first time it lists it: 10 min before NOW.
    const registry = new InMemoryCollectorRegistry([spec], { now: () => NOW - 10 * MIN });
    const r = await call(makeApp({ store, registry, now: () => NOW }), "GET", "/api/system/status");
    expect(r.body.collectors).toEqual([
      {
        name: "fresh_one",
        last_run: null,
        status: null,
        minutes_ago: null,
        health: "new",
        registered_at: iso(NOW - 10 * MIN),
        new_until: iso(NOW + 20 * MIN),
        registered_by: "config",
        schedule: null,
        next_expected_run: null,
        duration: { baseline: null, last_ms: null, verdict: "no_baseline", detail: null },
      },
    ]);
    // Waiting for a first run does not make the system unhealthy.
    expect(r.body.overall_health).toBe("new");
    const reasons = r.body.warnings.filter((w: { subject: string }) => w.subject === "fresh_one");
    expect(reasons.map((w: { message: string }) => w.message)).toEqual([
      `new: waiting for its first run (registered 10 min ago; stale if none by ${iso(NOW + 20 * MIN)})`,
    ]);
    const grace = await call(
      makeApp({ store, registry, now: () => NOW + 20 * MIN }),
      "GET",
      "/api/system/status",
    );
    expect(grace.body.collectors[0].health).toBe("new");
    const late = await call(
      makeApp({ store, registry, now: () => NOW + 20 * MIN + 1 }),
      "GET",
      "/api/system/status",
    );
    expect(late.body.collectors[0]).toMatchObject({
      health: "red",
      registered_at: iso(NOW - 10 * MIN),
      new_until: null,
    });
    expect(late.body.overall_health).toBe("red");
  });

  it("PUT /api/system/collectors changes the interval /status uses", async () => {
    const registry = new InMemoryCollectorRegistry(DEFAULT_COLLECTORS);
    const app = makeApp({ store, registry, now: () => NOW });
    const health = async (name: string) =>
      (await call(app, "GET", "/api/system/status")).body.collectors.find(
        (c: { name: string }) => c.name === name,
      ).health;
    expect(await health("config_network")).toBe("red");
    expect(await health("config_ec2")).toBe("green");
    for (const [name, interval] of [
      ["config_network", 60],
      ["config_ec2", 2],
    ] as const) {
      const r = await call(app, "PUT", `/api/system/collectors/${name}`, {
        body: { expected_interval_minutes: interval, freshness_threshold_minutes: 60 },
      });
      expect(r.status).toBe(200);
    }
    expect(await health("config_network")).toBe("green"); // 40 min ≤ 60
    expect(await health("config_ec2")).toBe("red"); // 5 min > 2 × 2
  });
});

describe("GET /api/system/freshness", () => {
  it("lists collectors over their threshold, never-ran first, then oldest first", async () => {
    const registry = new InMemoryCollectorRegistry([
      ...DEFAULT_COLLECTORS,
      { name: "old_one", expected_interval_minutes: 15, freshness_threshold_minutes: 60 },
      { name: "older_one", expected_interval_minutes: 15, freshness_threshold_minutes: 60 },
    ]);
    const app = makeApp({ store, registry, now: () => NOW });
    const r = await call(app, "GET", "/api/system/freshness");
    expect(r).toEqual({
      status: 200,
      body: {
        generated_at: iso(NOW),
        collectors: [
          {
            name: "hierarchy_builder",
            threshold_minutes: 60,
            last_run: null,
            minutes: null,
            status: null,
            error: null,
          },
          {
            name: "older_one",
            threshold_minutes: 60,
            last_run: iso(NOW - 120 * MIN),
            minutes: 120,
            status: "partial",
            error: "",
          },
          {
            name: "old_one",
            threshold_minutes: 60,
            last_run: iso(NOW - 90 * MIN),
            minutes: 90,
            status: "failed",
            error: "boom",
          },
        ],
      },
    });
  });
});

describe("GET /api/system/accounts", () => {
  it("counts by latest status, warns about pending_setup/no_access, lists unscanned active accounts", async () => {
    const app = makeApp({ store, now: () => NOW });
    const r = await call(app, "GET", "/api/system/accounts");
    expect(r.status).toBe(200);
    expect(r.body.counts).toEqual({ active: 2, pending_setup: 1, no_access: 1 });
    expect(r.body.warnings).toEqual([
      { account_id: "acc-4", account_name: "Locked out", svc_status: "no_access" },
      { account_id: "acc-3", account_name: "Pending", svc_status: "pending_setup" },
    ]);
    // acc-2 (active for an hour, never scanned) is new, not unscanned, until 24 h after it.
    expect(r.body.unscanned).toEqual([]);
    expect(r.body.new_accounts.map((a: { account_id: string }) => a.account_id)).toEqual(["acc-2"]);
    expect(r.body.accounts.map((a: { account_id: string }) => a.account_id)).toEqual([
      "acc-1",
      "acc-2",
      "acc-3",
      "acc-4",
    ]);
    // 25 h later acc-1's last success (5 min before NOW) is older than 24 h: unscanned, and acc-2's
    // grace is over.
    const later = makeApp({ store, now: () => NOW + 25 * 60 * MIN });
    const r2 = await call(later, "GET", "/api/system/accounts");
    expect(r2.body.unscanned).toEqual([
      { account_id: "acc-1", account_name: "Scanned", last_scanned_at: iso(NOW - 5 * MIN) },
      { account_id: "acc-2", account_name: "Never scanned", last_scanned_at: null },
    ]);
  });
});
