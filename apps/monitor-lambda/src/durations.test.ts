// Durations judged in the production composition: the status function takes a nightly backup's runs,
// the alerts function ticks on the same ClickHouse (chDB here). Ten runs of about ten minutes, then one
// of 2 seconds: a collector_duration warning is sent, the status body says why, and the next normal
// run resolves it.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { webhookChannel } from "@shared/notify";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import type { APIGatewayProxyResult } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAlertsHandler } from "./alerts.ts";
import { createStatusHandler } from "./status.ts";
import { functionUrlEvent, memoryLogger } from "./test-support.ts";

const TOKEN = "durations-token-0123456789";
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
// Near the real time: svc.collector_runs keeps 90 days counted from the records' own times.
const T0 = Math.floor(Date.now() / MIN) * MIN - 12 * DAY;
let clock = T0;
const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-durations-"));
let store: ClickHouseRunStore;
let receiver: HttpReceiverDouble;

beforeAll(async () => {
  store = openChdbRunStore(join(dir, "chdb"), { timeoutMs: 10_000 });
  await store.migrate();
  receiver = await startHttpReceiverDouble();
});

afterAll(async () => {
  await receiver.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown) {
  const handler = createStatusHandler({ store, token: TOKEN, log: memoryLogger(), now: () => clock });
  const event = functionUrlEvent(method, path, {
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const res = (await handler(event as never, {} as never)) as APIGatewayProxyResult;
  const json = res.body.startsWith("{") ? JSON.parse(res.body) : null;
  // biome-ignore lint/suspicious/noExplicitAny: the bodies are checked field by field
  return { status: res.statusCode, json: json as any, text: res.body };
}

/** A backup run that ends at `at` after `ms`, reported through the status function. */
async function backup(at: number, ms: number): Promise<void> {
  clock = at;
  const r = await call("POST", "/api/system/runs", {
    run_id: randomUUID(),
    collector: "pg_backup",
    cloud_account_id: "111111111111",
    cloud_region: "eu-central-1",
    started_at: new Date(at - ms).toISOString(),
    completed_at: new Date(at).toISOString(),
    status: "succeeded",
    events_produced: 1,
    rows_inserted: 1,
  });
  expect(r.status).toBe(201);
  const invoke = createAlertsHandler({
    store,
    channels: [webhookChannel({ url: receiver.url("/hook") })],
    log: memoryLogger(),
    now: () => clock,
  });
  expect((await invoke()).failed).toBe(0);
}

const warnings = () =>
  receiver.received
    .map((r) => r.body as { rule: string; subject: string; kind: string; text: string })
    .filter((b) => b.rule === "collector_duration" && b.subject === "pg_backup");

describe("durations through the Lambda handlers", () => {
  it("warns once when a 10-minute backup finishes in 2 seconds, and resolves at the next normal run", async () => {
    clock = T0;
    expect(
      (await call("PUT", "/api/system/collectors/pg_backup", { expected_interval_minutes: 1440 })).status,
    ).toBe(200);
    for (let d = 0; d < 10; d++) await backup(T0 + d * DAY + 2 * 60 * MIN, (9 + (d % 3)) * MIN);
    expect(warnings()).toEqual([]);

    await backup(T0 + 10 * DAY + 2 * 60 * MIN, 2000);
    expect(warnings().map((w) => w.kind)).toEqual(["firing"]);
    const st = (await call("GET", "/api/system/status")).json;
    const c = st.collectors.find((x: { name: string }) => x.name === "pg_backup");
    expect(c.duration).toEqual({
      baseline: { runs: 10, median_ms: 10 * MIN, p90_ms: 11 * MIN },
      last_ms: 2000,
      verdict: "too_short",
      detail:
        "too short: the latest successful run took 2.0 s, under 0.1 × its median of 10.0 min (last 10 runs)",
    });
    expect(st.warnings).toContainEqual({
      kind: "collector",
      subject: "pg_backup",
      message: c.duration.detail,
    });
    const metrics = await call("GET", "/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain(
      'svcmon_collector_duration_baseline_seconds{collector="pg_backup",quantile="0.5"} 600',
    );
    expect(metrics.text).toContain('svcmon_collector_last_success_duration_seconds{collector="pg_backup"} 2');

    await backup(T0 + 11 * DAY + 2 * 60 * MIN, 10 * MIN);
    expect(warnings().map((w) => w.kind)).toEqual(["firing", "resolved"]);
  }, 60_000);
});
