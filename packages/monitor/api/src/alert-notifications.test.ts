// Notifications a person can act on, and muting that is visible: a real
// webhook receiver gets the firing, reminder and resolved messages of an alert with the same
// fingerprint, its start time (kept across a restart of the engine), the collector's last error and a
// link to /system; a muted alert says it is muted in the status body and in the delivery log.
// Real chDB on this file's own folder; injected clock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ClickHouseAlertStateStore,
  ClickHouseDeliveryLog,
  type ClickHouseRunStore,
} from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import {
  alertFingerprint,
  type CollectorSpec,
  InMemoryCollectorRegistry,
  notificationIntentId,
  type RunStatus,
} from "@monitor/core";
import { AlertEngine } from "@monitor/runtime";
import { type Notification, webhookChannel } from "@shared/notify";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, memoryLog, uuid } from "./test-support.ts";

const dir = mkdtempSync(join(tmpdir(), "svcmon-alert-notifications-"));
let store: ClickHouseRunStore;
let receiver: HttpReceiverDouble;
const NOW = Math.floor(Date.now() / MIN) * MIN;
const HOUR = 60 * MIN;
const PUBLIC_URL = "https://monitor.example.com/";

beforeAll(async () => {
  store = openChdbRunStore(dir, { timeoutMs: 10_000 });
  await store.migrate();
  receiver = await startHttpReceiverDouble();
});

afterAll(async () => {
  await receiver.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const spec = (name: string): CollectorSpec => ({
  name,
  expected_interval_minutes: 15,
  freshness_threshold_minutes: 30,
});

let seq = 0;
async function run(collector: string, account: string, at: number, status: RunStatus, error = "") {
  seq += 1;
  await store.insertRuns([
    {
      run_id: uuid(1000 + seq),
      collector,
      cloud_account_id: account,
      cloud_region: "us-east-1",
      started_at: at - 2000,
      completed_at: at,
      status,
      events_produced: 0,
      rows_inserted: 0,
      error,
      duration_ms: 2000,
    },
  ]);
}

function engineFor(collector: string, clock: { now: number }, deliveryLog: ClickHouseDeliveryLog) {
  return new AlertEngine({
    store,
    registry: new InMemoryCollectorRegistry([spec(collector)]),
    stateStore: new ClickHouseAlertStateStore(store.client, { key: `notify-${collector}` }),
    channels: [webhookChannel({ name: "ops-hook", url: receiver.url("/hook") })],
    deliveryLog,
    now: () => clock.now,
    log: memoryLog(),
    publicUrl: PUBLIC_URL,
  });
}

/** The webhook bodies (notifications) of one rule whose alerts include `subject`, oldest first. */
function received(rule: string, subject: string): Notification[] {
  return receiver.received
    .filter((r) => r.status < 300)
    .map((r) => r.body as Notification)
    .filter((n) => n.rule === rule && (n.alerts ?? []).some((a) => a.subject === subject));
}

describe("a webhook receiver gets notifications a person can act on", () => {
  it("firing, reminder and resolved messages share the fingerprint and the start time (across an engine restart), carry the last error and a link to /system", async () => {
    const collector = "notify_fail_a";
    const subject = `${collector}/111111111111/us-east-1`;
    const clock = { now: NOW };
    const log = ClickHouseDeliveryLog.fromStore(store);
    // Fresh (a success a minute ago for another account), but three failures in a row in this one.
    await run(collector, "999999999999", NOW - 1 * MIN, "succeeded");
    await run(collector, "111111111111", NOW - 30 * MIN, "failed", "Throttling: first");
    await run(collector, "111111111111", NOW - 20 * MIN, "failed", "Throttling: second");
    await run(
      collector,
      "111111111111",
      NOW - 10 * MIN,
      "failed",
      "AccessDenied: not authorized to perform ec2:DescribeInstances",
    );

    await engineFor(collector, clock, log).tick();
    const [firing] = received("collector_failure", subject);
    expect(firing).toMatchObject({ kind: "firing", status: "firing", subject });
    const a1 = firing?.alerts?.[0];
    expect(a1).toEqual({
      fingerprint: alertFingerprint("collector_failure", subject),
      status: "firing",
      kind: "firing",
      startsAt: new Date(NOW).toISOString(),
      endsAt: null,
      severity: "warning",
      rule: "collector_failure",
      subject,
      summary: "3 consecutive failed runs: AccessDenied: not authorized to perform ec2:DescribeInstances",
      lastError: "AccessDenied: not authorized to perform ec2:DescribeInstances",
      generatorURL: `https://monitor.example.com/system#collector-${collector}`,
      labels: {
        alertname: "collector_failure",
        rule: "collector_failure",
        subject,
        severity: "warning",
        source: "monitor",
        collector,
        cloud_account_id: "111111111111",
        cloud_region: "us-east-1",
      },
      annotations: {
        summary: "3 consecutive failed runs: AccessDenied: not authorized to perform ec2:DescribeInstances",
        last_error: "AccessDenied: not authorized to perform ec2:DescribeInstances",
        link: `https://monitor.example.com/system#collector-${collector}`,
      },
    });

    // A new engine (the next process) on the same stored state, 4 h later: a reminder, same start.
    clock.now = NOW + 4 * HOUR;
    await run(collector, "999999999999", clock.now - MIN, "succeeded");
    await engineFor(collector, clock, log).tick();
    const reminder = received("collector_failure", subject)[1];
    expect(reminder).toMatchObject({ kind: "reminder", status: "firing" });
    expect(reminder?.alerts?.[0]).toMatchObject({
      fingerprint: a1?.fingerprint,
      kind: "reminder",
      status: "firing",
      startsAt: a1?.startsAt,
      endsAt: null,
      lastError: a1?.lastError,
    });

    // It recovers: one resolved message, same fingerprint and start, with its end; overall resolved.
    clock.now = NOW + 4 * HOUR + 5 * MIN;
    await run(collector, "111111111111", clock.now - MIN, "succeeded");
    await engineFor(collector, clock, log).tick();
    const msgs = received("collector_failure", subject);
    expect(msgs).toHaveLength(3);
    const resolved = msgs[2];
    expect(resolved).toMatchObject({ kind: "resolved", status: "resolved" });
    expect(resolved?.alerts?.[0]).toMatchObject({
      fingerprint: a1?.fingerprint,
      status: "resolved",
      kind: "resolved",
      startsAt: a1?.startsAt,
      endsAt: new Date(clock.now).toISOString(),
      lastError: a1?.lastError,
      generatorURL: a1?.generatorURL,
    });
    expect(resolved?.alerts?.[0]?.summary).toMatch(/resolved/);
  });

  it("a message mixing a firing and a resolved alert is overall firing; each alert says its own status", async () => {
    const collector = "notify_mixed";
    const [s1, s2] = [`${collector}/111111111111/us-east-1`, `${collector}/222222222222/us-east-1`];
    const clock = { now: NOW };
    const log = ClickHouseDeliveryLog.fromStore(store);
    await run(collector, "999999999999", NOW - MIN, "succeeded");
    for (const acc of ["111111111111", "222222222222"])
      for (const m of [30, 20, 10]) await run(collector, acc, NOW - m * MIN, "failed", `boom ${acc}`);
    await engineFor(collector, clock, log).tick();
    // One account recovers while another account fails for the first time → resolve + start together.
    clock.now = NOW + 5 * MIN;
    await run(collector, "111111111111", clock.now - MIN, "succeeded");
    for (const m of [4, 3, 2]) await run(collector, "333333333333", clock.now - m * MIN, "failed", "new");
    await engineFor(collector, clock, log).tick();
    const mixed = received("collector_failure", s1).at(-1);
    expect(mixed?.alerts?.map((a) => [a.subject, a.status])).toEqual([
      [s1, "resolved"],
      [`${collector}/333333333333/us-east-1`, "firing"],
    ]);
    expect(mixed?.status).toBe("firing");
    expect(received("collector_failure", s2)).toHaveLength(1);
  });
});

describe("a muted alert says it is muted", () => {
  it("an account in no_access mutes its collector failures: status body says muted and why; the delivery log records it muted, not sent", async () => {
    const collector = "notify_muted";
    const account = "444444444444";
    const subject = `${collector}/${account}/us-east-1`;
    const clock = { now: NOW };
    const log = ClickHouseDeliveryLog.fromStore(store);
    await store.upsertAccount({
      account_id: account,
      account_name: "legacy",
      svc_status: "no_access",
      updated_at: NOW - HOUR,
    });
    await run(collector, "999999999999", NOW - MIN, "succeeded");
    for (const m of [30, 20, 10]) await run(collector, account, NOW - m * MIN, "failed", "AssumeRole denied");
    const engine = engineFor(collector, clock, log);
    await engine.tick();

    // Not sent: the webhook got the cause (account_no_access), not the muted symptom.
    expect(received("collector_failure", subject)).toEqual([]);
    expect(received("account_no_access", account)).toHaveLength(1);

    // The status body lists it, muted, with what mutes it and why.
    const app = makeApp({
      store,
      registry: new InMemoryCollectorRegistry([spec(collector)]),
      now: () => clock.now,
      alerts: () => engine.firingAlerts(),
    });
    const body = (await call(app, "GET", "/api/system/status")).body;
    const muted = body.alerts.find((a: { subject: string }) => a.subject === subject);
    expect(muted).toMatchObject({
      rule: "collector_failure",
      muted: true,
      notified: false,
      fingerprint: alertFingerprint("collector_failure", subject),
      last_error: "AssumeRole denied",
      muted_by: {
        kind: "alert",
        rule: "account_no_access",
        subject: account,
        fingerprint: alertFingerprint("account_no_access", account),
      },
    });
    expect(muted.reason).toContain("account legacy is no_access");
    const cause = body.alerts.find((a: { rule: string }) => a.rule === "account_no_access");
    expect(cause).toMatchObject({ subject: account, muted: false, muted_by: null, reason: null });

    // The delivery log: one record, muted, not sent (channel *, attempt 0), once, even after more ticks.
    const stored = await new ClickHouseAlertStateStore(store.client, { key: `notify-${collector}` }).load();
    expect(stored.alerts[`collector_failure|${subject}`]).toMatchObject({ muted: true, mutedNoted: true });
    clock.now += MIN;
    await engineFor(collector, clock, log).tick();
    const id = notificationIntentId("collector_failure", [`collector_failure|${subject}|start|1|${NOW}`]);
    const attempts = await log.attempts(id);
    expect(attempts).toEqual([
      {
        notificationId: id,
        channel: "*",
        attempt: 0,
        at: new Date(NOW).toISOString(),
        ok: false,
        durationMs: 0,
        muted: {
          by: `account_no_access|${account}`,
          reason: expect.stringContaining("account legacy is no_access"),
        },
      },
    ]);
  });
});
