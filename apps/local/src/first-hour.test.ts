// "A fresh monitor pages nobody" (issue: the first hour). The embedded stack (npm start's
// startStack) on a fresh DATA_DIR, with an alert webhook (a local receiver double) and a monitor clock
// this test moves: in its first minutes, and across a restart, no collector is stale and nothing is
// sent; once a collector's grace (2 × its interval since it was registered) has passed without a run,
// the stale alert fires. An account added in the first minute and never scanned likewise waits 24 h
// before it is unscanned. Ticks of the alert engine are driven directly; no real minute is waited.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, call, MONITOR_TOKEN } from "./test-support.ts";

const MIN = 60_000;
const quiet: Logger = { info() {}, warn() {}, error() {} };
const monitor = { authorization: `Bearer ${MONITOR_TOKEN}` };
// Near the real time: run records carry real-looking timestamps (chDB's TTLs count from them).
const T0 = Math.floor(Date.now() / MIN) * MIN;
let clock = T0;

let hook: HttpReceiverDouble;
let stack: Stack | null = null;
const dataDir = join(mkdtempSync(join(tmpdir(), "first-hour-")), "data");

async function start(): Promise<Stack> {
  const env = {
    PORT: "0",
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    MONITOR_TOKEN,
    DEMO: "0",
    ALERT_WEBHOOK_URL: hook.url("/hook"),
    // Only the ticks this test drives matter (an automatic one reads the same clock anyway).
    ALERT_EVAL_INTERVAL_S: "3600",
  };
  return startStack(configFrom(env), quiet, { monitorNow: () => clock });
}

/** One evaluation at `clock` (a tick in progress is joined first, so this one reads the clock now). */
async function evaluateAt(at: number): Promise<void> {
  clock = at;
  if (stack === null) throw new Error("no stack");
  await stack.alerts.tick();
  await stack.alerts.tick();
}

interface Sent {
  rule: string;
  kind: string;
  details: { items: { subject: string; kind: string }[] };
  alerts: { subject: string; status: string; startsAt: string; generatorURL: string | null }[];
}
const staleSent = () => hook.received.map((r) => r.body as Sent).filter((b) => b.rule === "collector_stale");

async function status() {
  if (stack === null) throw new Error("no stack");
  const r = await call(stack.url, "GET", "/api/system/status", undefined, monitor);
  expect(r.status).toBe(200);
  return r.body;
}

beforeAll(async () => {
  hook = await startHttpReceiverDouble();
  stack = await start();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await hook.close();
});

describe("the first hour of a fresh monitor", () => {
  it("sends no stale alert in its first minutes, nor after a restart; the collectors are new", async () => {
    // An account set up in the first minute, never scanned yet: waiting for its first scan too.
    const put = await call(
      stack?.url ?? "",
      "PUT",
      "/api/system/accounts/123456789012",
      { account_name: "prod", svc_status: "active" },
      monitor,
    );
    expect(put.status).toBe(200);
    await evaluateAt(T0);
    await evaluateAt(T0 + 5 * MIN);
    expect(staleSent()).toEqual([]);
    expect(hook.received).toEqual([]);

    const body = await status();
    expect(body.collectors.map((c: { name: string; health: string }) => [c.name, c.health])).toEqual([
      ["config_ec2", "new"],
      ["config_ebs", "new"],
      ["config_network", "new"],
      ["hierarchy_builder", "new"],
    ]);
    expect(body.collectors[0]).toMatchObject({
      last_run: null,
      registered_at: new Date(T0).toISOString(),
      new_until: new Date(T0 + 30 * MIN).toISOString(),
    });
    expect(body.overall_health).toBe("new");
    expect(body.alerts).toEqual([]);
    expect(body.unscanned_accounts).toEqual([]);
    expect(body.new_accounts.map((a: { account_id: string }) => a.account_id)).toEqual(["123456789012"]);

    // A restart 20 min in: the registration time is stored, so the grace still counts from T0.
    await stack?.stop();
    stack = null;
    clock = T0 + 20 * MIN;
    stack = await start();
    await evaluateAt(T0 + 20 * MIN);
    const after = await status();
    expect(after.collectors[0]).toMatchObject({
      health: "new",
      registered_at: new Date(T0).toISOString(),
    });
    // Exactly at the end of the config collectors' grace (2 × 15 min): still new, still quiet.
    await evaluateAt(T0 + 30 * MIN);
    expect(staleSent()).toEqual([]);
  }, 60_000);

  it("fires the stale alert once a collector's grace has passed without a run", async () => {
    await evaluateAt(T0 + 31 * MIN);
    const firing = staleSent();
    expect(firing).toHaveLength(1);
    expect(firing[0]?.kind).toBe("firing");
    expect(firing[0]?.details.items.map((i) => i.subject).sort()).toEqual([
      "config_ebs",
      "config_ec2",
      "config_network",
    ]);
    // Without MONITOR_PUBLIC_URL each alert links to the stack's own /system, at its collector's card.
    expect(firing[0]?.alerts.map((x) => [x.subject, x.status, x.startsAt, x.generatorURL])).toEqual(
      ["config_ebs", "config_ec2", "config_network"].map((c) => [
        c,
        "firing",
        new Date(T0 + 31 * MIN).toISOString(),
        `${stack?.url}/system#collector-${c}`,
      ]),
    );
    const body = await status();
    expect(body.collectors.map((c: { health: string }) => c.health)).toEqual(["red", "red", "red", "new"]);
    expect(body.overall_health).toBe("red");

    // hierarchy_builder runs every 30 min: its grace is 60 min.
    await evaluateAt(T0 + 61 * MIN);
    const later = staleSent();
    expect(later).toHaveLength(2);
    expect(later[1]?.details.items.map((i) => [i.subject, i.kind])).toEqual([
      ["hierarchy_builder", "firing"],
    ]);

    // The account, never scanned, is unscanned (and alerted on) once 24 h have passed since it was added.
    const unscanned = () =>
      hook.received
        .map((r) => r.body as Sent & { subject: string })
        .filter((b) => b.rule === "account_unscanned");
    await evaluateAt(T0 + 24 * 60 * MIN);
    expect(unscanned()).toEqual([]);
    await evaluateAt(T0 + 24 * 60 * MIN + MIN);
    expect(unscanned().map((b) => [b.kind, b.subject])).toEqual([["firing", "123456789012"]]);
  }, 60_000);
});
