import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const never = new AbortController().signal;
let http: HttpReceiverDouble;
let smtp: SmtpDouble;

beforeAll(async () => {
  http = await startHttpReceiverDouble();
  smtp = await startSmtpDouble();
});
afterAll(async () => {
  await http.close();
  await smtp.close();
});

describe("webhook channel (against the local receiver double)", () => {
  it("POSTs the notification as JSON with configured headers and the idempotency key", async () => {
    const n = sampleNotification();
    const ch = webhookChannel({
      name: "ops-hook",
      url: http.url("/hook"),
      headers: { authorization: "Bearer t0k" },
    });
    await ch.send(n, never);
    const got = http.received.at(-1);
    expect(got?.body).toEqual(n);
    expect(got?.headers.authorization).toBe("Bearer t0k");
    expect(got?.headers["idempotency-key"]).toBe(n.id);
    expect(got?.headers["content-type"]).toBe("application/json");
  });

  it("treats a non-2xx answer as a failure, naming the channel and the status", async () => {
    http.failNext(1, 500);
    const ch = webhookChannel({ name: "ops-hook", url: http.url("/hook") });
    await expect(ch.send(sampleNotification(), never)).rejects.toThrow(/^ops-hook: HTTP 500/);
    http.failNext(0);
    await expect(
      webhookChannel({ url: http.url("/nope") }).send(sampleNotification(), never),
    ).rejects.toThrow(/HTTP 404/);
  });

  it("times out on a receiver that does not answer", async () => {
    http.hang(true);
    try {
      const ch = webhookChannel({ name: "slow", url: http.url("/hook"), timeoutMs: 150 });
      const before = http.received.length;
      await expect(ch.send(sampleNotification(), never)).rejects.toThrow("slow: timed out after 150 ms");
      // The receiver got the request and has not answered it (status 0): the channel gave up on its own.
      expect(http.received.slice(before)).toEqual([expect.objectContaining({ path: "/hook", status: 0 })]);
    } finally {
      http.hang(false);
    }
  });

  it("fails on a receiver that is down (connection refused)", async () => {
    const down = await startHttpReceiverDouble();
    const url = down.url("/hook");
    await down.close();
    await expect(webhookChannel({ name: "gone", url }).send(sampleNotification(), never)).rejects.toThrow(
      /^gone: /,
    );
  });
});

describe("slack channel (against the Slack-webhook double)", () => {
  it("POSTs { text, blocks } whose text names rule, subject and severity", async () => {
    const n = sampleNotification({
      severity: "warning",
      rule: "collector_failure",
      subject: "collector/cur-ingest",
    });
    await slackChannel({ webhookUrl: http.url("/slack") }).send(n, never);
    const got = http.received.at(-1);
    expect(got?.status).toBe(200);
    const body = got?.body as { text: string; blocks: unknown[] };
    expect(body.text).toContain("collector_failure");
    expect(body.text).toContain("collector/cur-ingest");
    expect(body.text).toContain("warning");
    expect(body.blocks.length).toBeGreaterThan(0);
  });

  it("escapes Slack mrkdwn control characters", async () => {
    await slackChannel({ webhookUrl: http.url("/slack") }).send(
      sampleNotification({ subject: "a<b>&c" }),
      never,
    );
    expect((http.received.at(-1)?.body as { text?: string } | undefined)?.text).toContain("a&lt;b&gt;&amp;c");
  });

  it("fails on a Slack error answer without leaking the webhook URL", async () => {
    http.failNext(1, 403);
    const url = http.url("/slack");
    const err = await slackChannel({ webhookUrl: url })
      .send(sampleNotification(), never)
      .catch((e: Error) => e);
    expect(String(err)).toMatch(/slack: HTTP 403/);
    expect(String(err)).not.toContain(url);
  });
});

describe("smtp channel (against a real local smtp-server)", () => {
  it("sends a mail with subject `[severity] rule — subject` and the details in the body", async () => {
    const n = sampleNotification();
    const ch = smtpChannel({
      host: smtp.host,
      port: smtp.port,
      secure: false,
      auth: { user: "u", pass: "p" },
      from: "svcmon@example.test",
      to: ["ops@example.test", "oncall@example.test"],
    });
    await ch.send(n, never);
    const mail = smtp.mails.at(-1);
    expect(mail?.subject).toBe("[critical] dead_letter_queue_non_empty — queue/events-dlq");
    expect(mail?.envelopeFrom).toBe("svcmon@example.test");
    expect(mail?.authUser).toBe("u");
    expect(mail?.envelopeTo).toEqual(["ops@example.test", "oncall@example.test"]);
    expect(mail?.headers["x-notification-id"]).toBe(n.id);
    expect(mail?.text).toContain(n.title);
    expect(mail?.text).toContain(n.text);
    expect(mail?.text).toContain("Rule: dead_letter_queue_non_empty");
    expect(mail?.text).toContain("Subject: queue/events-dlq");
    expect(mail?.text).toContain("Severity: critical");
    expect(mail?.text).toContain('"messages": 3');
  });

  it("fails when the mail server is down", async () => {
    const down = await startSmtpDouble();
    const port = down.port;
    await down.close();
    const ch = smtpChannel({
      name: "mail",
      host: "127.0.0.1",
      port,
      from: "a@x.test",
      to: ["b@x.test"],
      timeoutMs: 2_000,
    });
    await expect(ch.send(sampleNotification(), never)).rejects.toThrow(/^mail: /);
  });
});
