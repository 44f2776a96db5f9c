import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MAIN, MONITOR_TOKEN, type RunningStack, spawnStack } from "./test-support.ts";

// `npm start` as a real child process; the webhooks are local HTTP receiver doubles in this process.
let fileHook: HttpReceiverDouble;
let envHook: HttpReceiverDouble;
const running: RunningStack[] = [];

beforeAll(async () => {
  fileHook = await startHttpReceiverDouble();
  envHook = await startHttpReceiverDouble();
});
afterAll(async () => {
  for (const s of running) await s.kill("SIGTERM");
  await fileHook.close();
  await envHook.close();
});

async function eventually<T>(read: () => T | Promise<T>, accept: (v: T) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function writeConfig(dir: string, config: unknown): string {
  const path = join(dir, "alerts.json");
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

describe("npm start with ALERT_CONFIG", () => {
  it("notifies through the file's channels and the ALERT_WEBHOOK_URL shortcut, once across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stack-alerts-"));
    const dataDir = join(dir, "data");
    const env = {
      DATA_DIR: dataDir,
      DEMO: "0",
      ALERT_CONFIG: writeConfig(dir, {
        channels: [
          {
            type: "webhook",
            name: "ops-hook",
            url: fileHook.url("/hook"),
            headers: { authorization: { env: "OPS_HOOK_TOKEN" } },
          },
        ],
      }),
      OPS_HOOK_TOKEN: "Bearer from-the-environment",
      ALERT_WEBHOOK_URL: envHook.url("/hook"),
      ALERT_EVAL_INTERVAL_S: "1",
    };
    const stack = await spawnStack(env);
    running.push(stack);
    const channels = await stack.waitFor((l) => l.message === "alerts: channels");
    expect(channels.channels).toEqual(["webhook:ops-hook", "webhook:alert-webhook-url"]);

    // DEMO=0: the registry's collectors never ran; they are new (no alert) until their first run.
    // Each reports three failed runs: failing (no success yet, within its grace), so three failures
    // in a row fire one collector_failure each (one grouped notification), and nothing else.
    const monitor = { authorization: `Bearer ${MONITOR_TOKEN}` };
    const t = Date.now();
    const failed = await call(
      stack.url,
      "POST",
      "/api/system/runs",
      ["config_ec2", "config_ebs", "config_network", "hierarchy_builder"].flatMap((collector) =>
        [3, 2, 1].map((s) => ({
          collector,
          cloud_account_id: "111111111111",
          cloud_region: "us-east-1",
          started_at: new Date(t - s * 1000 - 500).toISOString(),
          completed_at: new Date(t - s * 1000).toISOString(),
          status: "failed",
          error: "run failed",
          events_produced: 0,
          rows_inserted: 0,
        })),
      ),
      monitor,
    );
    expect(failed.status).toBe(201);
    const isFailure = (r: { body: unknown }) => (r.body as { rule?: string })?.rule === "collector_failure";
    await eventually(
      () => [fileHook.received, envHook.received],
      ([a, b]) => (a ?? []).some(isFailure) && (b ?? []).some(isFailure),
    );
    const fromFile = fileHook.received.filter(isFailure);
    const fromEnv = envHook.received.filter(isFailure);
    expect(fromFile).toHaveLength(1);
    expect(fromEnv).toHaveLength(1);
    expect(fromFile[0]?.headers.authorization).toBe("Bearer from-the-environment");
    expect(fromFile[0]?.body).toEqual(fromEnv[0]?.body);
    expect(fromFile[0]?.body).toMatchObject({ source: "monitor", kind: "firing", subject: "4 subjects" });

    const status = await eventually(
      () => call(stack.url, "GET", "/api/system/status", undefined, monitor),
      (r) => r.body.alerts.length === 4 && r.body.alerts.every((a: { notified: boolean }) => a.notified),
    );
    expect(status.body.alerts.map((a: { subject: string }) => a.subject)).toEqual([
      "config_ebs/111111111111/us-east-1",
      "config_ec2/111111111111/us-east-1",
      "config_network/111111111111/us-east-1",
      "hierarchy_builder/111111111111/us-east-1",
    ]);

    // Restart on the same data: the alert state and the delivery log are in chDB; nothing is re-sent.
    // To know the new process has evaluated, give it a change to report: config_ec2 succeeds, so its
    // failure alert resolves. When that notice has arrived, the firing one would have been re-sent.
    await stack.kill("SIGTERM");
    const again = await spawnStack({ ...env, ALERT_EVAL_INTERVAL_S: "1" });
    running.push(again);
    const now = Date.now();
    const ingest = await call(
      again.url,
      "POST",
      "/api/system/runs",
      {
        collector: "config_ec2",
        cloud_account_id: "111111111111",
        cloud_region: "us-east-1",
        started_at: new Date(now - 2000).toISOString(),
        completed_at: new Date(now - 1000).toISOString(),
        status: "succeeded",
        events_produced: 1,
        rows_inserted: 1,
      },
      monitor,
    );
    expect(ingest.status).toBe(201);
    const kinds = (hook: HttpReceiverDouble) =>
      hook.received.filter(isFailure).map((r) => {
        const b = r.body as { kind: string; subject: string };
        return `${b.kind} ${b.subject}`;
      });
    await eventually(
      () => [kinds(fileHook), kinds(envHook)],
      ([a, b]) => (a ?? []).length >= 2 && (b ?? []).length >= 2,
    );
    expect(kinds(fileHook)).toEqual(["firing 4 subjects", "resolved config_ec2/111111111111/us-east-1"]);
    expect(kinds(envHook)).toEqual(["firing 4 subjects", "resolved config_ec2/111111111111/us-east-1"]);
  }, 60_000);

  it("refuses a bad config file: one line naming the file and each field, exit 2, nothing written", () => {
    const dir = mkdtempSync(join(tmpdir(), "stack-alerts-"));
    const dataDir = join(dir, "data");
    const path = writeConfig(dir, {
      channels: [
        { type: "webhook", url: "ftp://hooks.example.test/" },
        { type: "slack", webhookUrl: { env: "SLACK_URL_NOT_SET" } },
      ],
    });
    const r = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, PORT: "0", DEMO: "0", DATA_DIR: dataDir, ALERT_CONFIG: path },
      encoding: "utf8",
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `npm start: ALERT_CONFIG ${path}: channels[1].webhookUrl: environment variable SLACK_URL_NOT_SET is not set\n`,
    );
    expect(existsSync(dataDir)).toBe(false);

    const bad = spawnSync(process.execPath, [MAIN], {
      env: {
        ...process.env,
        PORT: "0",
        DEMO: "0",
        DATA_DIR: dataDir,
        ALERT_CONFIG: path,
        SLACK_URL_NOT_SET: "x",
      },
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      `npm start: ALERT_CONFIG ${path}: channels[0].url: must be an http or https URL; ` +
        "channels[1].webhookUrl: not a valid URL\n",
    );
    expect(existsSync(dataDir)).toBe(false);
    expect(bad.stdout).toBe("");
  });
});
