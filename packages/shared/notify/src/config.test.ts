import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  channelsFromEnv,
  createChannels,
  ENV_WEBHOOK_CHANNEL,
  parseChannelsConfig,
  resolveEnvReferences,
  validateChannelsConfig,
} from "./config.ts";
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

describe("environment references in the config file", () => {
  const smtp = {
    type: "smtp",
    name: "mail",
    host: "mail.example.test",
    port: 587,
    user: "svcmon",
    password: { env: "SMTP_PASSWORD" },
    from: "a@x.test",
    to: ["b@x.test"],
  };

  it('replaces {"env": "NAME"} anywhere by the variable\'s value', () => {
    const text = JSON.stringify({
      channels: [
        smtp,
        { type: "slack", name: "s", webhookUrl: { env: "SLACK_URL" } },
        {
          type: "webhook",
          name: "w",
          url: "https://h.test/a",
          headers: { authorization: { env: "HOOK_AUTH" } },
        },
      ],
    });
    const r = parseChannelsConfig(text, {
      SMTP_PASSWORD: "s3cret",
      SLACK_URL: "https://hooks.slack.com/services/T/B/X",
      HOOK_AUTH: "Bearer abc",
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.channels).toMatchObject([
      { name: "mail", password: "s3cret" },
      { name: "s", webhookUrl: "https://hooks.slack.com/services/T/B/X" },
      { name: "w", headers: { authorization: "Bearer abc" } },
    ]);
  });

  it("reports an unset or empty variable and a bad name at the reference's path", () => {
    const r = resolveEnvReferences(
      {
        channels: [
          { password: { env: "SMTP_PASSWORD" } },
          { url: { env: "EMPTY" } },
          { headers: { a: { env: "not a name" } } },
        ],
      },
      { EMPTY: "" },
    );
    expect(r).toEqual({
      ok: false,
      errors: [
        { path: "channels[0].password", message: "environment variable SMTP_PASSWORD is not set" },
        { path: "channels[1].url", message: "environment variable EMPTY is not set" },
        { path: "channels[2].headers.a.env", message: "must be the name of an environment variable" },
      ],
    });
  });

  it("leaves objects with other keys alone (validation then judges them)", () => {
    const r = parseChannelsConfig(
      JSON.stringify({ channels: [{ ...smtp, password: { env: "P", default: "x" } }] }),
      { P: "p" },
    );
    expect(r).toEqual({
      ok: false,
      errors: [{ path: "channels[0].password", message: "must be a string" }],
    });
  });

  it("parseChannelsConfig reports invalid JSON without throwing", () => {
    const r = parseChannelsConfig('{"channels": [', {});
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.path).toBe("");
    expect(r.errors[0]?.message).toMatch(/^not valid JSON: /);
  });
});
