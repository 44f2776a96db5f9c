// The production composition of a cron collector: the status function (function URL) takes its schedule
// and its runs, the alerts function ticks once per invocation, both on one ClickHouse (chDB here) and a
// clock the test moves. A weekday 02:00 Europe/Berlin job is green over a weekend that crosses the
// autumn DST change and pages once, an hour after a missed Monday run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DynamoDbTransitionStore } from "@monitor/aws";
import {
  startTransitionsDynalite,
  type TransitionsDynalite,
} from "@monitor/aws/test-support/dynalite-transitions";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { webhookChannel } from "@shared/notify";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import type { APIGatewayProxyResult } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAlertsHandler } from "./alerts.ts";
import { createStatusHandler } from "./status.ts";
import { functionUrlEvent, memoryLogger } from "./test-support.ts";

const TOKEN = "schedules-token-0123456789";
const at = (iso: string) => Date.parse(iso);
// Friday 29 October 2027, 02:00 CEST; the clocks go back on Sunday 31 October. Later than today, so
// the TTL of svc.collector_runs (counted from the records' own times) keeps the rows.
let clock = at("2027-10-29T00:00:00Z");
const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-schedules-"));
let store: ClickHouseRunStore;
let receiver: HttpReceiverDouble;
let dynamo: TransitionsDynalite;
// The transitions table both functions use, as the stack gives them (DynamoDB API: dynalite).
let transitions: DynamoDbTransitionStore;

beforeAll(async () => {
  store = openChdbRunStore(join(dir, "chdb"), { timeoutMs: 10_000 });
  await store.migrate();
  receiver = await startHttpReceiverDouble();
  dynamo = await startTransitionsDynalite();
  transitions = await dynamo.newStore();
});

afterAll(async () => {
  await dynamo.close();
  await receiver.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The status function behind its function URL, as Lambda invokes it. */
async function call(method: string, path: string, body?: unknown) {
  const handler = createStatusHandler({
    store,
    token: TOKEN,
    log: memoryLogger(),
    now: () => clock,
    transitions,
  });
  const event = functionUrlEvent(method, path, {
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const res = (await handler(event as never, {} as never)) as APIGatewayProxyResult;
  // biome-ignore lint/suspicious/noExplicitAny: the bodies are checked field by field
  return { status: res.statusCode, json: JSON.parse(res.body) as any };
}

/** One invocation of the alerts function at `iso`. */
async function tickAt(iso: string): Promise<void> {
  clock = at(iso);
  const invoke = createAlertsHandler({
    store,
    channels: [webhookChannel({ url: receiver.url("/hook") })],
    log: memoryLogger(),
    now: () => clock,
    transitions,
  });
  expect((await invoke()).failed).toBe(0);
}

const health = async () =>
  // biome-ignore lint/suspicious/noExplicitAny: one collector of the status body
  (await call("GET", "/api/system/status")).json.collectors.find((c: any) => c.name === "nightly_backup");
const pages = () =>
  receiver.received
    .map((r) => r.body as { rule: string; subject: string; kind: string })
    .filter((b) => b.rule === "collector_stale" && b.subject === "nightly_backup");

describe("a cron collector through the Lambda handlers", () => {
  it("is green over the weekend across the autumn change, late from 02:00 CET on Monday, paged at 03:00", async () => {
    const put = await call("PUT", "/api/system/collectors/nightly_backup", {
      schedule: "0 2 * * 1-5",
      timezone: "Europe/Berlin",
    });
    expect(put.json).toMatchObject({ schedule: "0 2 * * 1-5", timezone: "Europe/Berlin", grace_minutes: 60 });
    clock = at("2027-10-29T00:10:00Z");
    const posted = await call("POST", "/api/system/runs", {
      collector: "nightly_backup",
      cloud_account_id: "111111111111",
      cloud_region: "eu-central-1",
      started_at: "2027-10-29T00:00:00Z",
      completed_at: "2027-10-29T00:07:00Z",
      status: "succeeded",
      events_produced: 1,
      rows_inserted: 1,
    });
    expect(posted.status).toBe(201);

    for (const now of ["2027-10-30T12:00:00Z", "2027-10-31T01:30:00Z", "2027-11-01T00:30:00Z"]) {
      await tickAt(now);
      // Monday 02:00 CET is 01:00Z after the change: at 00:30Z it is not due yet.
      expect(await health(), now).toMatchObject({
        health: "green",
        next_expected_run: "2027-11-01T01:00:00.000Z",
      });
    }
    await tickAt("2027-11-01T01:30:00Z");
    expect((await health()).health).toBe("amber");
    expect(pages()).toEqual([]);
    await tickAt("2027-11-01T02:00:01Z");
    expect((await health()).health).toBe("red");
    expect(pages().map((p) => p.kind)).toEqual(["firing"]);

    // The run comes in late: it resolves.
    await call("POST", "/api/system/runs", {
      collector: "nightly_backup",
      cloud_account_id: "111111111111",
      cloud_region: "eu-central-1",
      started_at: "2027-11-01T02:05:00Z",
      completed_at: "2027-11-01T02:09:00Z",
      status: "succeeded",
      events_produced: 1,
      rows_inserted: 1,
    });
    await tickAt("2027-11-01T02:10:00Z");
    expect((await health()).health).toBe("green");
    expect(pages().map((p) => p.kind)).toEqual(["firing", "resolved"]);
  }, 60_000);

  it("tells the collector's story from the status function: runs, flips and each delivery", async () => {
    const t = await call("GET", "/api/system/timeline?collector=nightly_backup&since=2027-10-28T00:00:00Z");
    expect(t.status).toBe(200);
    expect(t.json.events.map((e: { kind: string; summary: string }) => `${e.kind}: ${e.summary}`)).toEqual([
      "run: run succeeded on 111111111111/eu-central-1 in 7 min",
      "flip: collector_stale nightly_backup: new → firing",
      "notification: collector_stale start notification: delivered to webhook",
      "run: run succeeded on 111111111111/eu-central-1 in 4 min",
      "flip: collector_stale nightly_backup: firing → resolved",
      "notification: collector_stale resolve notification: delivered to webhook",
    ]);
  }, 60_000);
});
