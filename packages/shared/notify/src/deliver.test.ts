import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { backoffDelay, deliver } from "./deliver.ts";
import { type Channel, type DeliveryLog, InMemoryDeliveryLog } from "./ports.ts";
import { slackChannel } from "./slack.ts";
import { smtpChannel } from "./smtp.ts";
import {
  type HttpReceiverDouble,
  type SmtpDouble,
  sampleNotification,
  startHttpReceiverDouble,
  startSmtpDouble,
} from "./test-doubles.ts";
import { webhookChannel } from "./webhook.ts";

let http: HttpReceiverDouble;
let smtp: SmtpDouble;
let sleeps: number[];
const sleep = async (ms: number) => {
  sleeps.push(ms);
};
const retry = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, sleep };

beforeAll(async () => {
  http = await startHttpReceiverDouble();
  smtp = await startSmtpDouble();
});
afterAll(async () => {
  await http.close();
  await smtp.close();
});
beforeEach(() => {
  sleeps = [];
  http.failNext(0);
  http.received.length = 0;
});

describe("deliver", () => {
  it("delivers to webhook, Slack and SMTP on the first try, recording one attempt each", async () => {
    const n = sampleNotification();
    const log = new InMemoryDeliveryLog();
    const channels = [
      webhookChannel({ name: "hook", url: http.url("/hook") }),
      slackChannel({ name: "slack", webhookUrl: http.url("/slack") }),
      smtpChannel({ name: "mail", host: smtp.host, port: smtp.port, from: "a@x.test", to: ["b@x.test"] }),
    ];
    const out = await deliver(n, channels, log, retry);
    expect(out.delivered).toBe(true);
    expect(out.channels.map((c) => [c.channel, c.ok, c.attempts])).toEqual([
      ["hook", true, 1],
      ["slack", true, 1],
      ["mail", true, 1],
    ]);
    const attempts = await log.attempts(n.id);
    expect(attempts.map((a) => [a.channel, a.attempt, a.ok])).toEqual(
      expect.arrayContaining([
        ["hook", 1, true],
        ["slack", 1, true],
        ["mail", 1, true],
      ]),
    );
    expect(attempts).toHaveLength(3);
    expect(sleeps).toEqual([]);
    expect(smtp.mails.at(-1)?.subject).toBe("[critical] dead_letter_queue_non_empty — queue/events-dlq");
  });

  it("retries a channel that is down with exponential backoff and records every attempt", async () => {
    http.failNext(2, 503);
    const n = sampleNotification();
    const log = new InMemoryDeliveryLog();
    const out = await deliver(n, [webhookChannel({ name: "hook", url: http.url("/hook") })], log, retry);
    expect(out.delivered).toBe(true);
    expect(out.channels[0]).toMatchObject({ channel: "hook", ok: true, attempts: 3 });
    expect(sleeps).toEqual([100, 200]);
    const attempts = await log.attempts(n.id);
    expect(attempts.map((a) => [a.attempt, a.ok, a.error])).toEqual([
      [1, false, "hook: HTTP 503: receiver double: told to fail"],
      [2, false, "hook: HTTP 503: receiver double: told to fail"],
      [3, true, undefined],
    ]);
    for (const a of attempts) {
      expect(a.notificationId).toBe(n.id);
      expect(Number.isNaN(Date.parse(a.at))).toBe(false);
      expect(a.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(http.received).toHaveLength(3);
  });

  it("caps the backoff at maxDelayMs", async () => {
    expect([2, 3, 4, 5, 6].map((i) => backoffDelay(i, 100, 250))).toEqual([100, 200, 250, 250, 250]);
  });

  it("permanent failure: not delivered, every attempt recorded, other channels still delivered", async () => {
    http.failNext(100, 500);
    const n = sampleNotification({ id: "perm" });
    const log = new InMemoryDeliveryLog();
    const mail = smtpChannel({
      name: "mail",
      host: smtp.host,
      port: smtp.port,
      from: "a@x.test",
      to: ["b@x.test"],
    });
    const out = await deliver(
      n,
      [webhookChannel({ name: "hook", url: http.url("/hook") }), mail],
      log,
      retry,
    );
    expect(out.delivered).toBe(false);
    expect(out.channels[0]).toMatchObject({ channel: "hook", ok: false, attempts: 4 });
    expect(out.channels[0]?.error).toMatch(/HTTP 500/);
    expect(out.channels[1]).toMatchObject({ channel: "mail", ok: true, attempts: 1 });
    const hookAttempts = (await log.attempts(n.id)).filter((a) => a.channel === "hook");
    expect(hookAttempts.map((a) => [a.attempt, a.ok])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, false],
    ]);
    expect(sleeps).toEqual([100, 200, 400]);

    // Later, the receiver is back: a second call retries only the channel that has not accepted it.
    http.failNext(0);
    const mailsBefore = smtp.mails.length;
    const again = await deliver(
      n,
      [webhookChannel({ name: "hook", url: http.url("/hook") }), mail],
      log,
      retry,
    );
    expect(again.delivered).toBe(true);
    expect(again.channels[1]).toMatchObject({
      channel: "mail",
      ok: true,
      attempts: 0,
      alreadyDelivered: true,
    });
    expect(smtp.mails.length).toBe(mailsBefore);
    const after = (await log.attempts(n.id)).filter((a) => a.channel === "hook");
    expect(after.at(-1)).toMatchObject({ attempt: 5, ok: true });
  });

  it("records a timeout as a failed attempt", async () => {
    http.hang(true);
    try {
      const n = sampleNotification({ id: "slow" });
      const log = new InMemoryDeliveryLog();
      const ch = webhookChannel({ name: "hook", url: http.url("/hook"), timeoutMs: 100 });
      const out = await deliver(n, [ch], log, { ...retry, attempts: 2 });
      expect(out.delivered).toBe(false);
      const attempts = await log.attempts(n.id);
      expect(attempts.map((a) => a.error)).toEqual([
        "hook: timed out after 100 ms",
        "hook: timed out after 100 ms",
      ]);
      expect(attempts.every((a) => a.durationMs >= 90)).toBe(true);
    } finally {
      http.hang(false);
    }
  });

  it("is not delivered with no channels", async () => {
    const out = await deliver(sampleNotification(), [], new InMemoryDeliveryLog(), retry);
    expect(out).toMatchObject({ delivered: false, channels: [] });
  });

  it("never throws: a failing log and a throwing channel end up in the outcome", async () => {
    const brokenLog: DeliveryLog = {
      record: async () => {
        throw new Error("disk full");
      },
      attempts: async () => {
        throw new Error("unreadable");
      },
    };
    const bad: Channel = {
      name: "bad",
      send: () => {
        throw new TypeError("boom");
      },
    };
    const out = await deliver(sampleNotification(), [bad], brokenLog, { ...retry, attempts: 2 });
    expect(out.delivered).toBe(false);
    expect(out.channels[0]).toMatchObject({ channel: "bad", ok: false, attempts: 2, error: "boom" });
    expect(out.logErrors).toEqual([
      "reading attempts: unreadable",
      "recording bad attempt 1: disk full",
      "recording bad attempt 2: disk full",
    ]);
  });

  it("stops retrying when the signal aborts", async () => {
    const ac = new AbortController();
    let calls = 0;
    const flaky: Channel = {
      name: "flaky",
      send: async () => {
        calls++;
        ac.abort();
        throw new Error("down");
      },
    };
    const log = new InMemoryDeliveryLog();
    const out = await deliver(sampleNotification(), [flaky], log, { ...retry, signal: ac.signal });
    expect(calls).toBe(1);
    expect(out.channels[0]).toMatchObject({ ok: false, attempts: 1, error: "down; then aborted" });
  });
});

describe("InMemoryDeliveryLog", () => {
  it("returns copies and drops the oldest notifications past its bound", async () => {
    const log = new InMemoryDeliveryLog({ maxNotifications: 2 });
    const a = { channel: "c", attempt: 1, at: "2025-01-01T00:00:00.000Z", ok: true, durationMs: 1 };
    await log.record({ ...a, notificationId: "n1" });
    await log.record({ ...a, notificationId: "n2" });
    await log.record({ ...a, notificationId: "n3" });
    expect(await log.attempts("n1")).toEqual([]);
    expect(await log.attempts("n3")).toHaveLength(1);
    const got = await log.attempts("n2");
    (got[0] as { ok: boolean }).ok = false;
    expect((await log.attempts("n2"))[0]?.ok).toBe(true);
  });
});
