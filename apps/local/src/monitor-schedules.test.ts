// npm start's monitor (startStack: chDB, the alert engine, a webhook receiver double) with a clock the
// test moves: a weekday 02:00 Europe/Berlin job registered through the API with a cron schedule stays
// green over a weekend that crosses the spring DST change, is late on Monday from 02:00 local time and
// red, with one stale page, an hour after its missed run.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, call, MONITOR_TOKEN } from "./test-support.ts";

const quiet: Logger = { info() {}, warn() {}, error() {} };
const monitor = { authorization: `Bearer ${MONITOR_TOKEN}` };
// Friday 26 March 2027, 02:00 CET; the clocks go forward on Sunday 28 March. Later than today, so
// chDB's TTL (counted from the records' own times) keeps the rows.
const at = (iso: string) => Date.parse(iso);
let clock = at("2027-03-26T00:55:00Z");

let hook: HttpReceiverDouble;
let stack: Stack;

beforeAll(async () => {
  hook = await startHttpReceiverDouble();
  const env = {
    PORT: "0",
    DATA_DIR: join(mkdtempSync(join(tmpdir(), "monitor-schedules-")), "data"),
    ADMIN_TOKEN,
    MONITOR_TOKEN,
    DEMO: "0",
    ALERT_WEBHOOK_URL: hook.url("/hook"),
    ALERT_EVAL_INTERVAL_S: "3600",
  };
  stack = await startStack(configFrom(env), quiet, { monitorNow: () => clock });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await hook.close();
});

async function evaluateAt(iso: string): Promise<void> {
  clock = at(iso);
  await stack.alerts.tick();
  await stack.alerts.tick();
}

async function nightly(): Promise<{ health: string; reasons: string[]; next_expected_run: string | null }> {
  const r = await call(stack.url, "GET", "/api/system/status", undefined, monitor);
  expect(r.status).toBe(200);
  const c = r.body.collectors.find((x: { name: string }) => x.name === "nightly_backup");
  const reasons = r.body.warnings
    .filter((w: { subject: string }) => w.subject === "nightly_backup")
    .map((w: { message: string }) => w.message);
  return { health: c.health, reasons, next_expected_run: c.next_expected_run };
}

const stalePages = () =>
  hook.received
    .map((r) => r.body as { rule: string; alerts: { labels?: Record<string, string>; status: string }[] })
    .filter((b) => b.rule === "collector_stale" && JSON.stringify(b).includes("nightly_backup"));

describe("a cron collector on npm start", () => {
  it("is green through a weekend across the DST change and red 1 h after a missed weekday run", async () => {
    const put = await call(
      stack.url,
      "PUT",
      "/api/system/collectors/nightly_backup",
      { schedule: "0 2 * * 1-5", timezone: "Europe/Berlin", grace_minutes: 60 },
      monitor,
    );
    expect(put.status).toBe(200);
    clock = at("2027-03-26T01:06:00Z");
    const posted = await call(
      stack.url,
      "POST",
      "/api/system/runs",
      {
        collector: "nightly_backup",
        cloud_account_id: "111111111111",
        cloud_region: "eu-central-1",
        started_at: "2027-03-26T01:00:00Z",
        completed_at: "2027-03-26T01:05:00Z",
        status: "succeeded",
        events_produced: 1,
        rows_inserted: 1,
      },
      monitor,
    );
    expect(posted.status).toBe(201);

    for (const now of [
      "2027-03-26T12:00:00Z",
      "2027-03-27T12:00:00Z",
      "2027-03-28T12:00:00Z",
      "2027-03-28T23:59:00Z",
    ]) {
      await evaluateAt(now);
      expect(await nightly(), now).toEqual({
        health: "green",
        reasons: [],
        // Monday 02:00 CEST, the first expected run after the change.
        next_expected_run: "2027-03-29T00:00:00.000Z",
      });
    }
    await evaluateAt("2027-03-29T00:30:00Z");
    const late = await nightly();
    expect(late.health).toBe("amber");
    expect(late.reasons[0]).toMatch(/^late: the run expected at 2027-03-29T00:00:00.000Z/);
    expect(stalePages()).toEqual([]);

    await evaluateAt("2027-03-29T01:01:00Z");
    expect((await nightly()).health).toBe("red");
    expect(stalePages()).toHaveLength(1);
  }, 60_000);

  it("tells the collector's story in one timeline: its run, the flip, the page and where it was delivered", async () => {
    const r = await call(
      stack.url,
      "GET",
      "/api/system/timeline?collector=nightly_backup&since=2027-03-25T00:00:00Z",
      undefined,
      monitor,
    );
    expect(r.status).toBe(200);
    expect(r.body.sources).toEqual({
      runs: true,
      alerts: true,
      deliveries: true,
      silences: true,
      maintenance: expect.any(Boolean),
    });
    const story = r.body.events.map((e: { kind: string; at: string; summary: string }) => [
      e.kind,
      e.at,
      e.summary,
    ]);
    expect(story).toEqual([
      ["run", "2027-03-26T01:05:00.000Z", "run succeeded on 111111111111/eu-central-1 in 5 min"],
      ["flip", "2027-03-29T01:01:00.000Z", "collector_stale nightly_backup: new → firing"],
      [
        "notification",
        expect.stringMatching(/^2027-03-29T01:01/),
        "collector_stale start notification: delivered to alert-webhook-url",
      ],
    ]);
    const page = r.body.events[2];
    expect(page.deliveries).toEqual([
      { channel: "alert-webhook-url", attempt: 1, at: expect.any(String), ok: true, error: null },
    ]);
    // An alert's own timeline, and a bad query named field by field.
    const alert = await call(
      stack.url,
      "GET",
      "/api/system/timeline?rule=collector_stale&subject=nightly_backup&since=2027-03-25T00:00:00Z",
      undefined,
      monitor,
    );
    expect(alert.body.events.map((e: { kind: string }) => e.kind)).toEqual(["run", "flip", "notification"]);
    const bad = await call(stack.url, "GET", "/api/system/timeline?rule=nope&limit=0", undefined, monitor);
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      "limit",
      "rule",
      "subject",
    ]);
  });
});
