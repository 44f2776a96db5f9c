// The triage of unhealthy collectors (status body `triage`, the /system page's "Needs attention") and
// its read route GET /api/system/runs, over the in-memory run store with an injected clock.

import { DEFAULT_COLLECTORS, InMemoryCollectorRegistry, type InMemoryRunStore } from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, openMemoryStore, runAt, uuid } from "./test-support.ts";

const NOW = Date.UTC(2026, 10, 25, 12);
const REGISTERED = NOW - 7 * 24 * 60 * MIN;
let store: InMemoryRunStore;
let cleanup: () => Promise<void>;
let app: ReturnType<typeof makeApp>;

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-triage-");
  store = t.store;
  cleanup = t.cleanup;
  app = makeApp({
    store,
    registry: new InMemoryCollectorRegistry(DEFAULT_COLLECTORS, { now: () => REGISTERED }),
    now: () => NOW,
  });
  const runs = [
    runAt(NOW - 5 * MIN, { collector: "config_ec2", run_id: uuid(90) }),
    // config_ebs: succeeded in eu-west-1, then 3 failures in a row in acc-2/us-east-1
    runAt(NOW - 30 * MIN, { collector: "config_ebs", cloud_account_id: "acc-2", run_id: uuid(90) }),
    ...[20, 10, 2].map((m, i) =>
      runAt(NOW - m * MIN, {
        collector: "config_ebs",
        cloud_account_id: "acc-2",
        status: "failed",
        error: `AccessDenied: sts:AssumeRole (${i + 1})`,
        run_id: uuid(90),
      }),
    ),
    runAt(NOW - 4 * MIN, {
      collector: "config_ebs",
      cloud_account_id: "acc-1",
      cloud_region: "eu-west-1",
      run_id: uuid(90),
    }),
    // config_network: stale, its last run 3 hours ago succeeded
    runAt(NOW - 180 * MIN, { collector: "config_network", run_id: uuid(90) }),
  ];
  expect((await call(app, "POST", "/api/system/runs", { body: runs })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await cleanup?.();
});

describe("triage in the status body", () => {
  it("lists each red or amber collector, red first, with where it fails, since when, the last error and its runs", async () => {
    const r = await call(app, "GET", "/api/system/status");
    expect(r.status).toBe(200);
    const triage = (r.body as { triage: Record<string, unknown>[] }).triage;
    expect(triage.map((t) => [t.collector, t.health])).toEqual([
      ["config_network", "red"],
      ["hierarchy_builder", "red"],
      ["config_ebs", "amber"],
    ]);
    const ebs = triage.find((t) => t.collector === "config_ebs");
    expect(ebs).toMatchObject({
      since: new Date(NOW - 4 * MIN).toISOString(),
      last_error: "AccessDenied: sts:AssumeRole (3)",
      last_error_at: new Date(NOW - 2 * MIN).toISOString(),
      at_fault: [
        {
          cloud_account_id: "acc-2",
          cloud_region: "us-east-1",
          consecutive_failures: 3,
          last_status: "failed",
          last_run_at: new Date(NOW - 2 * MIN).toISOString(),
          last_success_at: new Date(NOW - 30 * MIN).toISOString(),
        },
      ],
      runs: {
        href: "/api/system/runs?collector=config_ebs",
        command:
          'curl -sH "Authorization: Bearer $MONITOR_TOKEN" "$MONITOR_URL/api/system/runs?collector=config_ebs"',
      },
    });
    expect(((ebs?.reasons ?? []) as string[]).join("\n")).toContain(
      "acc-2/us-east-1: 3 consecutive failed runs",
    );
    const network = triage.find((t) => t.collector === "config_network");
    expect(network).toMatchObject({
      since: new Date(NOW - 180 * MIN).toISOString(),
      last_error: null,
      at_fault: [],
    });
    // never ran: unhealthy since its registration
    expect(triage.find((t) => t.collector === "hierarchy_builder")?.since).toBe(
      new Date(REGISTERED).toISOString(),
    );
  });
});

describe("GET /api/system/runs", () => {
  it("returns a collector's recent runs newest first, optionally of one account and region", async () => {
    const r = await call(app, "GET", "/api/system/runs?collector=config_ebs");
    expect(r.status).toBe(200);
    const runs = (r.body as { runs: Record<string, unknown>[] }).runs;
    expect(runs.map((x) => x.completed_at)).toEqual(
      [2, 4, 10, 20, 30].map((m) => new Date(NOW - m * MIN).toISOString()),
    );
    expect(runs[0]).toMatchObject({
      status: "failed",
      error: "AccessDenied: sts:AssumeRole (3)",
      cloud_account_id: "acc-2",
    });
    const one = await call(
      app,
      "GET",
      "/api/system/runs?collector=config_ebs&account=acc-1&region=eu-west-1&limit=5",
    );
    expect((one.body as { runs: unknown[] }).runs).toHaveLength(1);
    const two = await call(app, "GET", "/api/system/runs?collector=config_ebs&limit=2");
    expect((two.body as { runs: unknown[] }).runs).toHaveLength(2);
  });

  it("needs the token, a collector and a sane limit", async () => {
    expect((await call(app, "GET", "/api/system/runs?collector=config_ebs", { token: null })).status).toBe(
      401,
    );
    const missing = await call(app, "GET", "/api/system/runs");
    expect(missing.status).toBe(422);
    expect(JSON.stringify(missing.body)).toContain("collector");
    expect((await call(app, "GET", "/api/system/runs?collector=config_ebs&limit=0")).status).toBe(422);
    expect((await call(app, "GET", "/api/system/runs?collector=config_ebs&limit=201")).status).toBe(422);
    expect((await call(app, "GET", "/api/system/runs?collector=a%20b")).status).toBe(422);
  });

  it("is in the OpenAPI document", async () => {
    const doc = (await call(app, "GET", "/api/system/openapi.json")).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const path = doc.paths["/api/system/runs"] as Record<string, unknown>;
    expect(Object.keys(path).sort()).toEqual(["get", "post"]);
  });
});
