/**
 * Maintenance windows through the svcmon-alerts handler (one engine per invocation, as Lambda runs
 * it) on chDB, with the windows, transitions and claims in a DynamoDB transitions table (dynalite)
 * and a moved clock: a collector that misses its runs during a 2-hour window sends nothing during it,
 * no stale page follows it, and it pages only with no success 2 × interval after the window's end;
 * a weekly window mutes each occurrence.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDbMaintenanceStore, DynamoDbTransitionStore } from "@monitor/aws";
import {
  startTransitionsDynalite,
  type TransitionsDynalite,
} from "@monitor/aws/test-support/dynalite-transitions";
import { ClickHouseCollectorRegistry, type ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { type MaintenanceWindow, maintenanceView, type RunStatus } from "@monitor/core";
import type { Channel, Notification } from "@shared/notify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAlertsHandler } from "./alerts.ts";
import { memoryLogger } from "./test-support.ts";

const MIN = 60_000;
const H = 60 * MIN;
const NOW = Math.floor(Date.now() / MIN) * MIN;
// A weekly window at 02:00 on the weekday three days from now: NOW (the wall clock, which the stores'
// retention needs) is never inside an occurrence, whatever day and hour the test runs (a fixed
// Sunday 02:00 Berlin window failed when the suite ran on a Sunday night).
const WEEKLY = `0 2 * * ${new Date(NOW + 3 * 24 * 60 * MIN).getUTCDay()}`;
const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-maintenance-"));
let store: ClickHouseRunStore;
let dynamo: TransitionsDynalite;

beforeAll(async () => {
  store = openChdbRunStore(join(dir, "chdb"), { timeoutMs: 10_000 });
  await store.migrate();
  dynamo = await startTransitionsDynalite();
});
afterAll(async () => {
  await dynamo?.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(collector: string, at: number, status: RunStatus = "succeeded"): Promise<void> {
  await store.insertRuns([
    {
      run_id: randomUUID(),
      collector,
      cloud_account_id: "111111111111",
      cloud_region: "eu-west-1",
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

async function world(collector: string, interval: number) {
  await ClickHouseCollectorRegistry.fromStore(store).put({
    name: collector,
    expected_interval_minutes: interval,
    freshness_threshold_minutes: 2 * interval,
  });
  const table = await dynamo.newTable();
  const maintenance = new DynamoDbMaintenanceStore(table);
  const transitions = new DynamoDbTransitionStore(table);
  const sent: Notification[] = [];
  const channel: Channel = {
    name: "recording",
    async send(n) {
      sent.push(n);
    },
  };
  /** One invocation at `now`: a new engine, as a new execution environment would build. */
  const invoke = (now: number) =>
    createAlertsHandler({
      store,
      channels: [channel],
      log: memoryLogger(),
      now: () => now,
      transitions,
      maintenance,
    })();
  // Other collectors of the store (the configured ones) alert too: each test reads only its own.
  const firing = () =>
    sent.flatMap((n) =>
      (n.alerts ?? []).filter((a) => a.subject.split("/")[0] === collector && a.kind === "firing"),
    );
  return { maintenance, invoke, firing };
}

const window = (id: string, over: Partial<MaintenanceWindow>): MaintenanceWindow => ({
  id,
  scope: { all: true },
  author: "ann",
  reason: "database upgrade",
  createdAt: NOW - H,
  timing: { kind: "once", startsAt: NOW, endsAt: NOW + 2 * H },
  endedAt: null,
  ...over,
});

describe("svcmon-alerts with maintenance windows", () => {
  it("a 2-hour window sends nothing and no stale page follows it; stale 2 × interval after its end", async () => {
    const w = await world("lambda_maint", 15);
    await run("lambda_maint", NOW - 5 * MIN);
    await w.maintenance.create(window("w1", { scope: { collectors: ["lambda_maint"] } }));
    for (let t = NOW; t < NOW + 2 * H; t += 10 * MIN) await w.invoke(t);
    const end = NOW + 2 * H;
    for (let t = end; t <= end + 30 * MIN; t += 10 * MIN) await w.invoke(t);
    expect(w.firing()).toEqual([]);
    await w.invoke(end + 31 * MIN);
    await w.invoke(end + 32 * MIN);
    expect(w.firing().map((a) => a.rule)).toEqual(["collector_stale"]);
  });

  it("a weekly window mutes each occurrence; the same failures outside it page", async () => {
    const w = await world("lambda_weekly", 7 * 24 * 60);
    await run("lambda_weekly", NOW - 5 * MIN);
    const weekly = window("w2", {
      createdAt: NOW,
      timing: { kind: "recurring", schedule: WEEKLY, timezone: "Europe/Berlin", durationMinutes: 120 },
    });
    await w.maintenance.create(weekly);
    const first = maintenanceView(weekly, NOW + 1).current as { startsAt: number; endsAt: number };
    const second = maintenanceView(weekly, first.endsAt).current as { startsAt: number; endsAt: number };
    for (const start of [first.startsAt, second.startsAt]) {
      for (const offset of [10, 20, 30]) {
        await run("lambda_weekly", start + offset * MIN, "failed");
        await w.invoke(start + offset * MIN);
      }
      await run("lambda_weekly", start + 60 * MIN);
      await w.invoke(start + 60 * MIN);
      await w.invoke(start + 3 * H);
    }
    expect(w.firing()).toEqual([]);
    const between = second.startsAt + 24 * H;
    for (const offset of [10, 20, 30]) {
      await run("lambda_weekly", between + offset * MIN, "failed");
      await w.invoke(between + offset * MIN);
    }
    expect(w.firing().map((a) => a.rule)).toEqual(["collector_failure"]);
  });
});
