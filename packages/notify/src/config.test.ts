import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channelsFromEnv, createChannels, ENV_WEBHOOK_CHANNEL, validateChannelsConfig } from "./config.ts";
import { deliver } from "./deliver.ts";
import { InMemoryDeliveryLog } from "./ports.ts";
import { type HttpReceiverDouble, sampleNotification, startHttpReceiverDouble } from "./test-doubles.ts";

describe("validateChannelsConfig", () => {
  it("accepts every channel type and fills defaults", () => {
    const r = validateChannelsConfig({
      channels: [
        { type: "webhook", url: "https://hooks.example.test/a", headers: { authorization: "Bearer x" } },
        { type: "slack", name: "ops-slack", webhookUrl: "https://hooks.slack.com/services/T/B/X" },
        {
          type: "smtp",
          host: "mail.example.test",
          port: 587,
          user: "u",
          password: "p",
          from: "a@x.test",
          to: ["b@x.test"],
        },
      ],
    });
    expect(r).toEqual({
      ok: true,
      value: {
        channels: [
          {
            type: "webhook",
            name: "webhook-1",
            url: "https://hooks.example.test/a",
            headers: { authorization: "Bearer x" },
          },
          { type: "slack", name: "ops-slack", webhookUrl: "https://hooks.slack.com/services/T/B/X" },
          {
            type: "smtp",
            name: "smtp-3",
            host: "mail.example.test",
            port: 587,
            secure: false,
            user: "u",
            password: "p",
            from: "a@x.test",
            to: ["b@x.test"],
          },
        ],
      },
    });
    expect(validateChannelsConfig({ channels: [] })).toEqual({ ok: true, value: { channels: [] } });
  });

  it("reports every problem with its path", () => {
    const r = validateChannelsConfig({
      channels: [
        { type: "webhook", url: "ftp://x", headers: { a: 1 } },
        { type: "slack" },
        {
          type: "smtp",
          host: "",
          port: 70000,
          secure: "yes",
          user: "u",
          from: "nobody",
          to: ["ok@x.test", 3],
        },
        { type: "pager" },
        "nope",
        { type: "webhook", name: "dup", url: "http://a.test" },
        { type: "webhook", name: "dup", url: "http://b.test", timeoutMs: 0 },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path)).toEqual([
      "channels[0].url",
      "channels[0].headers.a",
      "channels[1].webhookUrl",
      "channels[2].host",
      "channels[2].port",
      "channels[2].secure",
      "channels[2].password",
      "channels[2].from",
      "channels[2].to[1]",
      "channels[3].type",
      "channels[4]",
      "channels[6].name",
      "channels[6].timeoutMs",
    ]);
    expect(r.errors[0]?.message).toBe("must be an http or https URL");
  });

  it("rejects a non-object and a missing channels array", () => {
    expect(validateChannelsConfig(null)).toEqual({
      ok: false,
      errors: [{ path: "", message: "must be an object" }],
    });
    expect(validateChannelsConfig({})).toMatchObject({ ok: false, errors: [{ path: "channels" }] });
    expect(
      validateChannelsConfig({ channels: [{ type: "smtp", host: "h", port: 25, from: "a@x", to: [] }] }),
    ).toMatchObject({
      ok: false,
      errors: [{ path: "channels[0].to" }],
    });
  });
});

describe("channelsFromEnv (ALERT_WEBHOOK_URL shortcut)", () => {
  let http: HttpReceiverDouble;
  beforeAll(async () => {
    http = await startHttpReceiverDouble();
  });
  afterAll(async () => {
    await http.close();
  });

  it("adds a webhook channel, ignores a blank value, and does not duplicate a configured URL", () => {
    const file = [{ type: "slack" as const, name: "s", webhookUrl: "https://hooks.slack.com/x" }];
    expect(channelsFromEnv({ ALERT_WEBHOOK_URL: "https://h.test/a" }, file)).toEqual({
      ok: true,
      value: [...file, { type: "webhook", name: ENV_WEBHOOK_CHANNEL, url: "https://h.test/a" }],
    });
    expect(channelsFromEnv({ ALERT_WEBHOOK_URL: "  " }, file)).toEqual({ ok: true, value: file });
    expect(channelsFromEnv({}, [])).toEqual({ ok: true, value: [] });
    const same = [{ type: "webhook" as const, name: "w", url: "https://h.test/a" }];
    expect(channelsFromEnv({ ALERT_WEBHOOK_URL: "https://h.test/a" }, same)).toEqual({
      ok: true,
      value: same,
    });
  });

  it("reports an invalid URL under the variable's name", () => {
    expect(channelsFromEnv({ ALERT_WEBHOOK_URL: "not a url" })).toEqual({
      ok: false,
      errors: [{ path: "ALERT_WEBHOOK_URL", message: "not a valid URL" }],
    });
  });

  it("delivers through the shortcut channel end to end", async () => {
    const r = channelsFromEnv({ ALERT_WEBHOOK_URL: http.url("/hook") });
    if (!r.ok) throw new Error("unexpected");
    const n = sampleNotification();
    const log = new InMemoryDeliveryLog();
    const out = await deliver(n, createChannels(r.value), log, {
      attempts: 1,
      baseDelayMs: 1,
      maxDelayMs: 1,
    });
    expect(out.delivered).toBe(true);
    expect(http.received.at(-1)?.body).toEqual(n);
    expect((await log.attempts(n.id))[0]).toMatchObject({ channel: ENV_WEBHOOK_CHANNEL, ok: true });
  });
});
