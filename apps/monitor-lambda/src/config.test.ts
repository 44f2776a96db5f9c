import { describe, expect, it } from "vitest";
import {
  alertsFromEnv,
  clickHouseFromEnv,
  collectorFromEnv,
  collectorWiringFromEnv,
  orThrow,
  runIntakeFromEnv,
  statusFromEnv,
} from "./config.ts";

describe("clickHouseFromEnv", () => {
  it("reads the URL, credentials and defaults", () => {
    expect(
      clickHouseFromEnv({
        CLICKHOUSE_URL: "https://ch.example:8443",
        CLICKHOUSE_USERNAME: "svcmon",
        CLICKHOUSE_PASSWORD: "pw",
      }),
    ).toEqual({
      ok: true,
      value: {
        url: "https://ch.example:8443",
        username: "svcmon",
        password: "pw",
        database: "default",
        timeoutMs: 5000,
      },
    });
  });

  it("names every variable at fault", () => {
    expect(clickHouseFromEnv({ CLICKHOUSE_URL: "ftp://x", CLICKHOUSE_TIMEOUT_MS: "soon" })).toEqual({
      ok: false,
      errors: [
        { path: "CLICKHOUSE_URL", message: "must be an http(s) URL" },
        { path: "CLICKHOUSE_USERNAME", message: "is not set" },
        { path: "CLICKHOUSE_PASSWORD", message: "is not set" },
        { path: "CLICKHOUSE_TIMEOUT_MS", message: "must be a positive integer" },
      ],
    });
  });
});

describe("collectorFromEnv", () => {
  it("reads the collector, its regions (commas or spaces, deduplicated) and the run timeout", () => {
    expect(
      collectorFromEnv({
        COLLECTOR: "config_ec2",
        COLLECTOR_REGIONS: "us-east-1, eu-west-1,us-east-1",
        RUN_TIMEOUT_MS: "780000",
      }),
    ).toEqual({
      ok: true,
      value: { collector: "config_ec2", regions: ["us-east-1", "eu-west-1"], runTimeoutMs: 780_000 },
    });
  });

  it("refuses a region that is not one", () => {
    expect(collectorFromEnv({ COLLECTOR: "config_ec2", COLLECTOR_REGIONS: "us-east-1,Ireland" })).toEqual({
      ok: false,
      errors: [{ path: "COLLECTOR_REGIONS", message: '"Ireland" is not an AWS region' }],
    });
  });
});

describe("collectorWiringFromEnv", () => {
  it("reads the collector role, its external id and the event queue, naming every one missing or wrong", () => {
    expect(
      collectorWiringFromEnv({
        COLLECTOR_ROLE_NAME: "svcmon-collector",
        COLLECTOR_EXTERNAL_ID: "ext-1",
        EVENT_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/999999999999/svcmon-events",
      }),
    ).toEqual({
      ok: true,
      value: {
        roleName: "svcmon-collector",
        externalId: "ext-1",
        eventQueueUrl: "https://sqs.eu-west-1.amazonaws.com/999999999999/svcmon-events",
      },
    });
    expect(
      collectorWiringFromEnv({ COLLECTOR_ROLE_NAME: "no spaces", EVENT_QUEUE_URL: "svcmon-events" }),
    ).toEqual({
      ok: false,
      errors: [
        { path: "COLLECTOR_ROLE_NAME", message: "must be an IAM role name" },
        { path: "COLLECTOR_EXTERNAL_ID", message: "is not set" },
        { path: "EVENT_QUEUE_URL", message: "must be an https:// SQS queue URL" },
      ],
    });
  });
});

const SESSION_KEY = "k".repeat(40);

describe("statusFromEnv and orThrow", () => {
  it("wants a token of at least 16 characters, and says so with the component's name", () => {
    expect(statusFromEnv({ MONITOR_TOKEN: "0123456789abcdef", MONITOR_SESSION_KEYS: SESSION_KEY })).toEqual({
      ok: true,
      value: { token: "0123456789abcdef", sessionKeys: [SESSION_KEY] },
    });
    expect(() =>
      orThrow("svcmon-status", statusFromEnv({ MONITOR_TOKEN: "short", MONITOR_SESSION_KEYS: SESSION_KEY })),
    ).toThrow("svcmon-status: MONITOR_TOKEN must be at least 16 characters");
  });

  it("wants the session keys (the secret svcmon/monitor-session-keys): the first signs, all verify", () => {
    const token = "0123456789abcdef";
    expect(() => orThrow("svcmon-status", statusFromEnv({ MONITOR_TOKEN: token }))).toThrow(
      "svcmon-status: MONITOR_SESSION_KEYS is not set",
    );
    expect(
      statusFromEnv({ MONITOR_TOKEN: token, MONITOR_SESSION_KEYS: `${"n".repeat(32)},${SESSION_KEY}` }),
    ).toEqual({
      ok: true,
      value: { token, sessionKeys: ["n".repeat(32), SESSION_KEY] },
    });
    expect(() =>
      orThrow("svcmon-status", statusFromEnv({ MONITOR_TOKEN: token, MONITOR_SESSION_KEYS: "short" })),
    ).toThrow("svcmon-status: MONITOR_SESSION_KEYS[0] must be at least 32 characters");
  });
});

describe("runIntakeFromEnv", () => {
  it("auto-registration on (24 h / 48 h) and a 15 min clock skew by default; each variable named when wrong", () => {
    expect(runIntakeFromEnv({})).toEqual({
      ok: true,
      value: {
        autoRegister: { enabled: true, expected_interval_minutes: 1440, freshness_threshold_minutes: 2880 },
        maxClockSkewMs: 900_000,
      },
    });
    expect(runIntakeFromEnv({ AUTO_REGISTER: "0", MAX_CLOCK_SKEW_S: "60" })).toMatchObject({
      value: { autoRegister: { enabled: false }, maxClockSkewMs: 60_000 },
    });
    expect(() =>
      orThrow("svcmon-status", runIntakeFromEnv({ AUTO_REGISTER: "yes", MAX_CLOCK_SKEW_S: "soon" })),
    ).toThrow(
      'svcmon-status: AUTO_REGISTER must be 0 or 1 (got "yes"); MAX_CLOCK_SKEW_S must be whole seconds ≥ 0 (got "soon")',
    );
  });
});

describe("alertsFromEnv", () => {
  it("reads the channels config of ALERT_CONFIG_JSON, resolving env references, then ALERT_WEBHOOK_URL", () => {
    const config = {
      channels: [
        { type: "slack", name: "ops", webhookUrl: { env: "SLACK_URL" } },
        { type: "webhook", name: "pager", url: "https://pager.example/hook" },
      ],
    };
    expect(
      alertsFromEnv({
        ALERT_CONFIG_JSON: JSON.stringify(config),
        SLACK_URL: "https://hooks.slack.example/T0/B0/x",
        ALERT_WEBHOOK_URL: "https://alerts.example/in",
      }),
    ).toEqual({
      ok: true,
      value: {
        channels: [
          { type: "slack", name: "ops", webhookUrl: "https://hooks.slack.example/T0/B0/x" },
          { type: "webhook", name: "pager", url: "https://pager.example/hook" },
          { type: "webhook", name: "alert-webhook-url", url: "https://alerts.example/in" },
        ],
        publicUrl: null,
        transitionsTable: null,
        heartbeatUrl: null,
      },
    });
  });

  it("the notifications' /system links: MONITOR_PUBLIC_URL, else the status function's URL, else none", () => {
    const fnUrl = "https://abc123.lambda-url.eu-west-1.on.aws/";
    expect(alertsFromEnv({ MONITOR_STATUS_URL: fnUrl })).toMatchObject({
      ok: true,
      value: { publicUrl: fnUrl },
    });
    expect(
      alertsFromEnv({ MONITOR_STATUS_URL: fnUrl, MONITOR_PUBLIC_URL: "https://monitor.example.com" }),
    ).toMatchObject({ ok: true, value: { publicUrl: "https://monitor.example.com" } });
    expect(alertsFromEnv({})).toMatchObject({ ok: true, value: { publicUrl: null } });
    expect(alertsFromEnv({ MONITOR_PUBLIC_URL: "monitor.example.com" })).toEqual({
      ok: false,
      errors: [{ path: "MONITOR_PUBLIC_URL", message: "must be an http or https URL" }],
    });
  });

  it("has no channel when neither is set (alerts are stored, not notified)", () => {
    expect(alertsFromEnv({ ALERT_CONFIG_JSON: " " })).toEqual({
      ok: true,
      value: { channels: [], publicUrl: null, transitionsTable: null, heartbeatUrl: null },
    });
  });

  it("MONITOR_TRANSITIONS_TABLE names the DynamoDB table of status changes and claims", () => {
    expect(alertsFromEnv({ MONITOR_TRANSITIONS_TABLE: " svcmon-alert-transitions " })).toMatchObject({
      ok: true,
      value: { transitionsTable: "svcmon-alert-transitions" },
    });
    expect(alertsFromEnv({ MONITOR_TRANSITIONS_TABLE: "no spaces allowed" })).toEqual({
      ok: false,
      errors: [{ path: "MONITOR_TRANSITIONS_TABLE", message: "must be a DynamoDB table name" }],
    });
  });

  it("MONITOR_HEARTBEAT_URL: the dead-man's switch, http(s) only, at most 2048 characters", () => {
    expect(alertsFromEnv({ MONITOR_HEARTBEAT_URL: " https://hc-ping.com/0f5c " })).toMatchObject({
      ok: true,
      value: { heartbeatUrl: "https://hc-ping.com/0f5c" },
    });
    expect(alertsFromEnv({ MONITOR_HEARTBEAT_URL: "file:///etc/passwd" })).toEqual({
      ok: false,
      errors: [{ path: "MONITOR_HEARTBEAT_URL", message: "must be an http or https URL" }],
    });
    expect(() =>
      orThrow(
        "svcmon-alerts",
        alertsFromEnv({ MONITOR_HEARTBEAT_URL: `https://h.example/${"x".repeat(2048)}` }),
      ),
    ).toThrow("svcmon-alerts: MONITOR_HEARTBEAT_URL must be at most 2048 characters");
  });

  it("names the variable and the field at fault", () => {
    expect(alertsFromEnv({ ALERT_CONFIG_JSON: "{" })).toMatchObject({
      ok: false,
      errors: [{ path: "ALERT_CONFIG_JSON", message: expect.stringMatching(/^not valid JSON/) }],
    });
    expect(
      alertsFromEnv({
        ALERT_CONFIG_JSON: JSON.stringify({ channels: [{ type: "webhook", url: "ftp://x" }] }),
      }),
    ).toEqual({
      ok: false,
      errors: [{ path: "ALERT_CONFIG_JSON.channels[0].url", message: "must be an http or https URL" }],
    });
    expect(() => orThrow("svcmon-alerts", alertsFromEnv({ ALERT_WEBHOOK_URL: "mailto:x@y" }))).toThrow(
      "svcmon-alerts: ALERT_WEBHOOK_URL must be an http or https URL",
    );
  });
});
