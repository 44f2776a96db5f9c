import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "./env.ts";

const dir = mkdtempSync(join(tmpdir(), "local-env-"));
function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

function error(env: NodeJS.ProcessEnv): string {
  const r = readConfig(env);
  if (r.ok) throw new Error("expected readConfig to refuse");
  return r.error;
}

function config(env: NodeJS.ProcessEnv) {
  const r = readConfig(env);
  if (!r.ok) throw new Error(r.error);
  return r.config;
}

describe("readConfig", () => {
  it("defaults: port 8787, demo and exporter on, generated tokens, no alert channel, 60 s alert interval", () => {
    const c = config({});
    expect(c).toMatchObject({
      port: 8787,
      host: "127.0.0.1",
      demo: true,
      exporter: true,
      adminTokenGenerated: true,
      monitorTokenGenerated: true,
      alertChannels: [],
      alertConfigFile: null,
      alertIntervalMs: 60_000,
      publicUrl: null,
    });
    expect(c.adminToken.length).toBeGreaterThanOrEqual(16);
  });

  it.each<[NodeJS.ProcessEnv, string]>([
    [{ PORT: "http" }, 'PORT must be a port number (0-65535), got "http"'],
    [{ PORT: "65536" }, 'PORT must be a port number (0-65535), got "65536"'],
    [{ DEMO: "yes" }, 'DEMO must be 0 or 1, got "yes"'],
    [{ EXPORTER: "2" }, 'EXPORTER must be 0 or 1, got "2"'],
    [{ ADMIN_TOKEN: "short" }, "ADMIN_TOKEN must be at least 16 characters"],
    [
      { ADMIN_TOKEN: "has a space 0123456789" },
      "ADMIN_TOKEN must be letters, digits and - . _ ~ + / (then = padding)",
    ],
    [{ MONITOR_TOKEN: "short" }, "MONITOR_TOKEN must be at least 16 characters"],
    [{ ALERT_EVAL_INTERVAL_S: "0" }, 'ALERT_EVAL_INTERVAL_S must be a positive number, got "0"'],
    [{ ALERT_WEBHOOK_URL: "not a url" }, "ALERT_WEBHOOK_URL: not a valid URL"],
    [{ ALERT_WEBHOOK_URL: "ftp://x.test/" }, "ALERT_WEBHOOK_URL: must be an http or https URL"],
    [{ AUTO_REGISTER: "on" }, 'AUTO_REGISTER must be 0 or 1 (got "on")'],
    [
      { AUTO_REGISTER_INTERVAL_MINUTES: "1d" },
      'AUTO_REGISTER_INTERVAL_MINUTES must be whole minutes from 1 to 525600 (got "1d")',
    ],
    [{ MAX_CLOCK_SKEW_S: "-5" }, 'MAX_CLOCK_SKEW_S must be whole seconds ≥ 0 (got "-5")'],
    [
      { MONITOR_PUBLIC_URL: "monitor.example.com" },
      'MONITOR_PUBLIC_URL must be an http or https URL, got "monitor.example.com"',
    ],
    [{ MONITOR_HEARTBEAT_URL: "gopher://hc.test/x" }, "MONITOR_HEARTBEAT_URL must be an http or https URL"],
    [
      { MONITOR_HEARTBEAT_URL: `https://hc.test/${"x".repeat(2048)}` },
      "MONITOR_HEARTBEAT_URL must be at most 2048 characters",
    ],
    [
      { MONITOR_DISK_QUOTA_BYTES: "10GB" },
      'MONITOR_DISK_QUOTA_BYTES must be a whole number of bytes from 1048576 (1 MiB) to 1125899906842624 (1 PiB), got "10GB"',
    ],
    [
      { MONITOR_DISK_QUOTA_BYTES: "1024" },
      'MONITOR_DISK_QUOTA_BYTES must be a whole number of bytes from 1048576 (1 MiB) to 1125899906842624 (1 PiB), got "1024"',
    ],
  ])("refuses %o with one line naming the variable", (env, message) => {
    expect(error(env)).toBe(message);
  });

  it("MONITOR_DISK_QUOTA_BYTES is the embedded analytics DB's quota; unset, the process environment decides", () => {
    expect(config({ MONITOR_DISK_QUOTA_BYTES: "5368709120" }).diskQuotaBytes).toBe(5 * 1024 ** 3);
    expect(config({}).diskQuotaBytes).toBeUndefined();
  });

  it("ALERT_WEBHOOK_URL alone is one webhook channel; ALERT_EVAL_INTERVAL_S is read in seconds", () => {
    const c = config({ ALERT_WEBHOOK_URL: "https://hooks.example.test/a", ALERT_EVAL_INTERVAL_S: "2.5" });
    expect(c.alertChannels).toEqual([
      { type: "webhook", name: "alert-webhook-url", url: "https://hooks.example.test/a" },
    ]);
    expect(c.alertIntervalMs).toBe(2500);
  });

  it("auto-registration and the clock skew: on, 24 h / 48 h and 15 min by default; each configurable", () => {
    expect(config({})).toMatchObject({
      autoRegister: { enabled: true, expected_interval_minutes: 1440, freshness_threshold_minutes: 2880 },
      maxClockSkewMs: 900_000,
    });
    expect(
      config({
        AUTO_REGISTER: "0",
        AUTO_REGISTER_INTERVAL_MINUTES: "60",
        AUTO_REGISTER_FRESHNESS_MINUTES: "180",
        MAX_CLOCK_SKEW_S: "30",
      }),
    ).toMatchObject({
      autoRegister: { enabled: false, expected_interval_minutes: 60, freshness_threshold_minutes: 180 },
      maxClockSkewMs: 30_000,
    });
  });

  it("MONITOR_PUBLIC_URL is the base of the notifications' /system links; blank is unset", () => {
    expect(config({ MONITOR_PUBLIC_URL: " https://monitor.example.com/ " }).publicUrl).toBe(
      "https://monitor.example.com/",
    );
    expect(config({ MONITOR_PUBLIC_URL: " " }).publicUrl).toBeNull();
  });

  it("MONITOR_HEARTBEAT_URL is the dead-man's switch the alert engine pings; unset is none", () => {
    expect(config({ MONITOR_HEARTBEAT_URL: " https://hc-ping.com/0f5c " }).heartbeatUrl).toBe(
      "https://hc-ping.com/0f5c",
    );
    expect(config({}).heartbeatUrl).toBeNull();
  });
});

describe("readConfig: ALERT_CONFIG", () => {
  const channels = [
    { type: "slack", name: "ops-slack", webhookUrl: { env: "SLACK_WEBHOOK_URL" } },
    {
      type: "smtp",
      name: "ops-mail",
      host: "smtp.example.test",
      port: 587,
      user: "svcmon",
      password: { env: "SMTP_PASSWORD" },
      from: "svcmon@example.test",
      to: ["ops@example.test"],
    },
  ];
  const secrets = { SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T/B/X", SMTP_PASSWORD: "s3cret" };

  it("reads the file's channels (environment references resolved), then adds ALERT_WEBHOOK_URL", () => {
    const path = file("ok.json", { channels });
    const c = config({ ALERT_CONFIG: path, ALERT_WEBHOOK_URL: "https://hooks.example.test/a", ...secrets });
    expect(c.alertConfigFile).toBe(path);
    expect(c.alertChannels).toEqual([
      { type: "slack", name: "ops-slack", webhookUrl: secrets.SLACK_WEBHOOK_URL },
      {
        type: "smtp",
        name: "ops-mail",
        host: "smtp.example.test",
        port: 587,
        secure: false,
        user: "svcmon",
        password: "s3cret",
        from: "svcmon@example.test",
        to: ["ops@example.test"],
      },
      { type: "webhook", name: "alert-webhook-url", url: "https://hooks.example.test/a" },
    ]);
  });

  it("a relative path is resolved against the working directory; a blank value is unset", () => {
    const path = file("relative.json", { channels: [] });
    const rel = relative(process.cwd(), path);
    expect(rel.startsWith("/")).toBe(false);
    expect(config({ ALERT_CONFIG: rel }).alertConfigFile).toBe(path);
    expect(config({ ALERT_CONFIG: "  " })).toMatchObject({ alertConfigFile: null, alertChannels: [] });
  });

  it("refuses a file it cannot read, naming the variable and the file", () => {
    const missing = join(dir, "missing.json");
    expect(error({ ALERT_CONFIG: missing })).toBe(`ALERT_CONFIG: cannot read ${missing}: no such file`);
    const folder = join(dir, "a-folder");
    mkdirSync(folder);
    expect(error({ ALERT_CONFIG: folder })).toBe(`ALERT_CONFIG: cannot read ${folder}: is a directory`);
  });

  it("refuses invalid JSON", () => {
    const path = file("broken.json", '{"channels": [');
    expect(error({ ALERT_CONFIG: path })).toMatch(
      new RegExp(`^ALERT_CONFIG ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON: .+$`),
    );
  });

  it("lists every validation error with its path, on one line", () => {
    const path = file("invalid.json", {
      channels: [
        { type: "webhook", url: "https://ok.test/" },
        { type: "webhook", url: "ftp://x" },
        { type: "smtp", host: "h", port: 70000, from: "a@x.test", to: ["b@x.test"] },
      ],
    });
    const line = error({ ALERT_CONFIG: path });
    expect(line).toBe(
      `ALERT_CONFIG ${path}: channels[1].url: must be an http or https URL; ` +
        "channels[2].port: required: an integer from 1 to 65535",
    );
    expect(line).not.toContain("\n");
    expect(error({ ALERT_CONFIG: file("no-channels.json", { chanels: [] }) })).toMatch(
      /: channels: required: an array of channels$/,
    );
  });

  it("refuses an environment reference to an unset variable, naming the variable", () => {
    const path = file("secrets.json", { channels });
    expect(error({ ALERT_CONFIG: path, SLACK_WEBHOOK_URL: secrets.SLACK_WEBHOOK_URL })).toBe(
      `ALERT_CONFIG ${path}: channels[1].password: environment variable SMTP_PASSWORD is not set`,
    );
  });

  it("refuses ALERT_WEBHOOK_URL clashing with a file channel's name", () => {
    const path = file("clash.json", {
      channels: [{ type: "webhook", name: "alert-webhook-url", url: "https://a.test/" }],
    });
    expect(error({ ALERT_CONFIG: path, ALERT_WEBHOOK_URL: "https://b.test/" })).toBe(
      'ALERT_WEBHOOK_URL: a configured channel is already named "alert-webhook-url"',
    );
  });
});
