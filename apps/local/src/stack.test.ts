import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, MAIN, MONITOR_TOKEN, type RunningStack, spawnStack } from "./test-support.ts";

const running: RunningStack[] = [];
afterAll(async () => {
  for (const s of running) await s.kill("SIGTERM");
});

async function start(env: Record<string, string>): Promise<RunningStack> {
  const stack = await spawnStack(env);
  running.push(stack);
  return stack;
}

async function eventually<T>(
  read: () => Promise<T>,
  accept: (v: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("npm start: the embedded stack as a real process", () => {
  it("serves /healthz and both APIs on one port, and seeds the demo account by default", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stack-"));
    const stack = await start({ DATA_DIR: dataDir, DEMO: "1" });
    expect(await call(stack.url, "GET", "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    const demo = await stack.waitFor((l) => l.message === "demo data ready");
    const key = { "x-api-key": demo.apiKey as string };
    const indexes = await call(stack.url, "GET", "/api/v1/indexes", undefined, key);
    expect(indexes.status).toBe(200);
    expect(JSON.stringify(indexes.body)).toContain("products");
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const config = await call(
      stack.url,
      "GET",
      `/api/v1/admin/accounts/${demo.systemAccountId}/indexes/products/relevance-trigger-config`,
      undefined,
      admin,
    );
    expect(config.status).toBe(200);
    expect((await call(stack.url, "GET", "/api/v1/openapi.json")).status).toBe(200);
    // Every log line is JSON.
    expect(stack.lines.every((l) => !("raw" in l))).toBe(true);
  });

  it("starts empty with DEMO=0, and prints a generated ADMIN_TOKEN when none is set", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stack-"));
    const stack = await spawnStack({ DATA_DIR: dataDir, DEMO: "0", ADMIN_TOKEN: "" });
    running.push(stack);
    const generated = await stack.waitFor((l) => typeof l.adminToken === "string");
    const res = await call(
      stack.url,
      "POST",
      "/api/v1/admin/accounts",
      { name: "x" },
      { authorization: `Bearer ${generated.adminToken}` },
    );
    expect(res.status).toBe(201);
    expect(stack.lines.some((l) => l.message === "demo data ready")).toBe(false);
  });

  it("propagates a direct settings-table edit made by another process to the KV copy", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stack-"));
    const stack = await start({ DATA_DIR: dataDir });
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const account = (await call(stack.url, "POST", "/api/v1/admin/accounts", { name: "Edit" }, admin)).body;
    await call(stack.url, "POST", "/api/v1/indexes", { name: "shoes" }, { "x-api-key": account.apiKey });

    // The operator's edit: snake_case keys, NULL allowed, written straight into the table.
    const table = new SqliteSettingsTable(openDatabase(join(dataDir, "settings.db")));
    const config = { model_id: `${account.systemAccountId}:shoes:v1`, title_field: "name", tags_field: null };
    expect(
      await table.setAttribute(account.systemAccountId, "INDEX#shoes", "relevance_trigger_config", config),
    ).not.toBeNull();

    const kv = new SqliteKv(openDatabase(join(dataDir, "kv.db")));
    const copy = await eventually(
      () => kv.get(`${account.systemAccountId}-shoes`),
      (v) => v !== null && JSON.parse(v).relevance_trigger_config !== undefined,
    );
    expect(JSON.parse(copy as string).relevance_trigger_config).toEqual(config);
    // The admin API sees the edit too.
    const read = await call(
      stack.url,
      "GET",
      `/api/v1/admin/accounts/${account.systemAccountId}/indexes/shoes/relevance-trigger-config`,
      undefined,
      admin,
    );
    expect(read.body.relevanceTriggerConfig).toEqual({
      modelId: config.model_id,
      titleField: "name",
      tagsField: null,
    });
  });

  it("serves the monitor on the same port: simulated collectors run, /api/system/status answers with MONITOR_TOKEN", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stack-"));
    const stack = await start({ DATA_DIR: dataDir, DEMO: "1" });
    const monitor = { authorization: `Bearer ${MONITOR_TOKEN}` };
    expect((await call(stack.url, "GET", "/api/system/status")).status).toBe(401);
    const status = await eventually(
      () => call(stack.url, "GET", "/api/system/status", undefined, monitor),
      (r) =>
        r.status === 200 && r.body.collectors.some((c: { last_run: string | null }) => c.last_run !== null),
      15_000,
    );
    expect(status.status).toBe(200);
    expect(status.body.collectors.map((c: { name: string }) => c.name).sort()).toEqual([
      "config_ebs",
      "config_ec2",
      "config_network",
      "hierarchy_builder",
    ]);
    expect(status.body.accounts).toMatchObject({ active: 3, pending_setup: 1, no_access: 1 });
    expect(status.body.analytics_db).toHaveProperty("disk_used_gb");
    // the embedded stack knows its disk: the chDB folder's size on the filesystem statfs reports
    expect(status.body.analytics_db.source.disk).toBe("data-folder+statfs");
    expect(status.body.analytics_db.disk_used_gb).toBeGreaterThan(0);
    expect(status.body.analytics_db.disk_used_ratio).toBeGreaterThan(0);
    expect(status.body.analytics_db.disk_used_ratio).toBeLessThanOrEqual(1);
    const v1 = await call(stack.url, "GET", "/api/v1/system/status", undefined, monitor);
    expect(v1.status).toBe(200);
  }, 30_000);

  it("refuses a bad environment with one line naming the variable", () => {
    const r = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, PORT: "http" },
      encoding: "utf8",
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('npm start: PORT must be a port number (0-65535), got "http"\n');
  });
});
