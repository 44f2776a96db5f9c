import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channelsFromEnv, createChannels, validateChannelsConfig } from "./config.ts";
import { deliver, MAX_RECORDED_ERROR_CHARS } from "./deliver.ts";
import type { FetchLike } from "./http.ts";
import { InMemoryDeliveryLog } from "./ports.ts";
import { slackChannel } from "./slack.ts";
import { smtpChannel } from "./smtp.ts";
import { type HttpReceiverDouble, sampleNotification, startHttpReceiverDouble } from "./test-doubles.ts";
import { webhookChannel } from "./webhook.ts";

const never = new AbortController().signal;
const once = { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 };
let first: HttpReceiverDouble;
let second: HttpReceiverDouble;

beforeAll(async () => {
  first = await startHttpReceiverDouble();
  second = await startHttpReceiverDouble();
});
afterAll(async () => {
  await first.close();
  await second.close();
});

/** The global fetch, counting what it was asked to fetch. */
function countingFetch(): FetchLike & { urls: string[] } {
  const urls: string[] = [];
  const f = (input: string, init: RequestInit) => {
    urls.push(input);
    return fetch(input, init);
  };
  return Object.assign(f, { urls });
}

describe("a redirect is a failed delivery, never followed", () => {
  it.each([301, 302, 303, 307, 308])(
    "a webhook answering %i to a second server: the second server receives nothing; the attempt is recorded failed",
    async (status) => {
      const before = second.received.length;
      first.redirectNext(1, second.url("/hook"), status);
      const n = sampleNotification({ id: `redirect-${status}` });
      const log = new InMemoryDeliveryLog();
      const out = await deliver(
        n,
        [webhookChannel({ name: "ops-hook", url: first.url("/hook") })],
        log,
        once,
      );

      expect(second.received.length).toBe(before);
      expect(first.received.at(-1)?.status).toBe(status);
      expect(out.delivered).toBe(false);
      const [attempt] = await log.attempts(n.id);
      expect(attempt).toMatchObject({ channel: "ops-hook", ok: false });
      expect(attempt?.error).toBe(
        `ops-hook: HTTP ${status}: the target answered with a redirect, which is not followed`,
      );
      expect(attempt?.error).not.toContain(second.url(""));
    },
  );

  it("a Slack webhook answering 307 is not followed either", async () => {
    const before = second.received.length;
    first.redirectNext(1, second.url("/slack"));
    const err = await slackChannel({ webhookUrl: first.url("/slack") })
      .send(sampleNotification(), never)
      .catch((e: Error) => e);
    expect(String(err)).toContain("slack: HTTP 307: the target answered with a redirect");
    expect(second.received.length).toBe(before);
  });
});

describe("what a target answers is kept to 200 characters", () => {
  it("an error answer of 100 KB is recorded as its first 200 characters", async () => {
    first.failNext(1, 500, `${"<html>".repeat(20)}\n${"x".repeat(100_000)}`);
    const n = sampleNotification({ id: "long-answer" });
    const log = new InMemoryDeliveryLog();
    await deliver(n, [webhookChannel({ name: "ops-hook", url: first.url("/hook") })], log, once);
    const [attempt] = await log.attempts(n.id);
    const snippet = attempt?.error?.replace(/^ops-hook: HTTP 500: /, "") ?? "";
    expect(snippet).toHaveLength(200);
    expect(snippet.startsWith("<html><html>")).toBe(true);
    expect(snippet).not.toContain("\n");
  });

  it("an accepted notification's answer is not read, however long", async () => {
    let pulled = 0;
    const endless: FetchLike = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled++;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
        }),
        { status: 200 },
      );
    await webhookChannel({ url: "https://hooks.example.test/a", fetch: endless }).send(
      sampleNotification(),
      never,
    );
    expect(pulled).toBeLessThan(5);
  });

  it("any recorded error is bounded, whatever a channel throws", async () => {
    const n = sampleNotification({ id: "huge-error" });
    const log = new InMemoryDeliveryLog();
    const loud = {
      name: "loud",
      async send(): Promise<void> {
        throw new Error(`loud: ${"y".repeat(10_000)}`);
      },
    };
    const out = await deliver(n, [loud], log, once);
    expect(out.channels[0]?.error?.length).toBe(MAX_RECORDED_ERROR_CHARS);
    expect((await log.attempts(n.id))[0]?.error?.length).toBe(MAX_RECORDED_ERROR_CHARS);
  });
});

describe("link-local and metadata targets are refused at config time", () => {
  it("a channel URL on 169.254.169.254 is refused, naming the field and the flag", () => {
    const r = validateChannelsConfig({
      channels: [
        { type: "webhook", url: "http://169.254.169.254/latest/meta-data/" },
        { type: "slack", webhookUrl: "http://[fd00:ec2::254]/x" },
        { type: "smtp", host: "metadata.google.internal", port: 25, from: "a@x.test", to: ["b@x.test"] },
        { type: "webhook", url: "http://127.0.0.1/hook", allowPrivateTargets: "yes" },
      ],
    });
    expect(r).toEqual({
      ok: false,
      errors: [
        {
          path: "channels[0].url",
          message:
            "refers to 169.254.169.254 is a link-local address (169.254.0.0/16), which notifications are not sent to; set allowPrivateTargets: true on the channel to allow it",
        },
        { path: "channels[1].webhookUrl", message: expect.stringContaining("fd00:ec2::/32") },
        { path: "channels[2].host", message: expect.stringContaining("metadata.google.internal") },
        { path: "channels[3].allowPrivateTargets", message: "must be a boolean" },
      ],
    });
  });

  it("allowPrivateTargets: true on the channel allows it, and only that channel", () => {
    const r = validateChannelsConfig({
      channels: [
        {
          type: "webhook",
          name: "imds-proxy",
          url: "http://169.254.169.254/hook",
          allowPrivateTargets: true,
        },
        { type: "webhook", name: "other", url: "http://169.254.169.254/hook", allowPrivateTargets: false },
      ],
    });
    expect(r).toEqual({
      ok: false,
      errors: [{ path: "channels[1].url", message: expect.stringMatching(/^refers to 169\.254\.169\.254/) }],
    });
    expect(
      validateChannelsConfig({
        channels: [
          {
            type: "webhook",
            name: "imds-proxy",
            url: "http://169.254.169.254/hook",
            allowPrivateTargets: true,
          },
        ],
      }),
    ).toEqual({
      ok: true,
      value: {
        channels: [
          {
            type: "webhook",
            name: "imds-proxy",
            url: "http://169.254.169.254/hook",
            allowPrivateTargets: true,
          },
        ],
      },
    });
  });

  it("a file: URL is refused", () => {
    expect(validateChannelsConfig({ channels: [{ type: "webhook", url: "file:///etc/passwd" }] })).toEqual({
      ok: false,
      errors: [{ path: "channels[0].url", message: "must be an http or https URL" }],
    });
    expect(
      validateChannelsConfig({
        channels: [{ type: "webhook", url: "file:///etc/passwd", allowPrivateTargets: true }],
      }).ok,
    ).toBe(false);
  });

  it("ALERT_WEBHOOK_URL on a metadata address is refused (the shortcut has no flag)", () => {
    expect(
      channelsFromEnv({ ALERT_WEBHOOK_URL: "http://metadata.google.internal/computeMetadata/v1/" }),
    ).toEqual({
      ok: false,
      errors: [{ path: "ALERT_WEBHOOK_URL", message: expect.stringContaining("cloud metadata host") }],
    });
  });
});

describe("…and again at send time, before any request", () => {
  it("a webhook built on a metadata URL fails without fetching; the attempt is recorded", async () => {
    const f = countingFetch();
    const n = sampleNotification({ id: "metadata-send" });
    const log = new InMemoryDeliveryLog();
    const out = await deliver(
      n,
      [
        webhookChannel({ name: "imds", url: "http://169.254.169.254/latest/meta-data/", fetch: f }),
        slackChannel({ name: "s", webhookUrl: "file:///etc/passwd", fetch: f }),
      ],
      log,
      once,
    );
    expect(f.urls).toEqual([]);
    expect(out.delivered).toBe(false);
    expect(await log.attempts(n.id)).toEqual([
      expect.objectContaining({
        channel: "imds",
        ok: false,
        error: expect.stringMatching(/^imds: target refused: the URL refers to 169\.254\.169\.254/),
      }),
      expect.objectContaining({
        channel: "s",
        ok: false,
        error: "s: target refused: the URL must be an http or https URL",
      }),
    ]);
  });

  it("an SMTP channel on a link-local host fails without connecting", async () => {
    const ch = smtpChannel({
      name: "mail",
      host: "169.254.169.254",
      port: 25,
      from: "a@x.test",
      to: ["b@x.test"],
    });
    await expect(ch.send(sampleNotification(), never)).rejects.toThrow(
      /^mail: target refused: the host refers to 169\.254/,
    );
  });

  it("a channel with allowPrivateTargets sends to its target", async () => {
    const urls: string[] = [];
    const accept: FetchLike = async (input) => {
      urls.push(input);
      return new Response(null, { status: 204 });
    };
    const [ch] = createChannels(
      [
        {
          type: "webhook",
          name: "imds-proxy",
          url: "http://169.254.169.254/hook",
          allowPrivateTargets: true,
        },
      ],
      { fetch: accept },
    );
    await ch?.send(sampleNotification(), never);
    expect(urls).toEqual(["http://169.254.169.254/hook"]);
  });
});
