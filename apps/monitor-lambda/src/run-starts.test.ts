// Runs seen while they run, through the Lambda handlers on one chDB database: the status function
// takes a run's start (POST /api/system/runs/start) and its final record; the alerts function, one
// tick per invocation, raises collector_hung once the run is past its max duration and resolves it
// when the final record arrives. The clock is a variable; nothing waits.
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

const TOKEN = "status-token-0123456789";
const MIN = 60_000;
const T0 = Math.floor(Date.now() / MIN) * MIN;
const RUN_ID = "00000000-0000-4000-8000-000000002828";
const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-runstarts-"));
let store: ClickHouseRunStore;
let receiver: HttpReceiverDouble;
let clock = T0;

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
  // biome-ignore lint/suspicious/noExplicitAny: answers are read loosely
  return { status: res.statusCode, json: JSON.parse(res.body) as any };
}

const tick = () =>
  createAlertsHandler({
    store,
    channels: [webhookChannel({ url: receiver.url("/hook") })],
    log: memoryLogger(),
    now: () => clock,
  })();

const hung = () =>
  receiver.received
    .map((r) => r.body as { rule?: string; subject?: string; kind?: string })
    .filter((b) => b.rule === "collector_hung")
    .map((b) => `${b.kind} ${b.subject}`);

describe("svcmon-status and svcmon-alerts: a run that hangs", () => {
  it("takes the start, shows it hung past the default max duration, alerts, and resolves on its final record", async () => {
    const started = await call("POST", "/api/system/runs/start", {
      run_id: RUN_ID,
      collector: "config_ec2",
      cloud_account_id: "111111111111",
      cloud_region: "eu-west-1",
    });
    expect(started).toMatchObject({
      status: 202,
      json: { run_id: RUN_ID, started_at: new Date(T0).toISOString() },
    });

    // config_ec2 runs every 15 minutes and sets no max duration: 2 × 15 min by default.
    clock = T0 + 30 * MIN;
    expect((await call("GET", "/api/system/status")).json.open_runs).toMatchObject([
      { run_id: RUN_ID, state: "running", max_duration_ms: 30 * MIN, max_duration_source: "default" },
    ]);
    await tick();
    expect(hung()).toEqual([]);

    clock = T0 + 31 * MIN;
    expect((await call("GET", "/api/system/status")).json.open_runs).toMatchObject([
      { run_id: RUN_ID, state: "hung" },
    ]);
    await tick();
    expect(hung()).toEqual(["firing config_ec2/111111111111/eu-west-1"]);

    clock = T0 + 40 * MIN;
    const done = await call("POST", "/api/system/runs", {
      run_id: RUN_ID,
      collector: "config_ec2",
      cloud_account_id: "111111111111",
      cloud_region: "eu-west-1",
      started_at: new Date(T0).toISOString(),
      completed_at: new Date(clock).toISOString(),
      status: "succeeded",
      events_produced: 1,
      rows_inserted: 1,
    });
    expect(done.status).toBe(201);
    expect((await call("GET", "/api/system/status")).json.open_runs).toEqual([]);
    await tick();
    expect(hung()).toEqual([
      "firing config_ec2/111111111111/eu-west-1",
      "resolved config_ec2/111111111111/eu-west-1",
    ]);
  }, 60_000);
});
