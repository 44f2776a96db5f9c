// npm start's demo seeding runs each step once per data folder: a restart keeps what the operator did
// after it, and a seeding interrupted between steps is finished, exactly once, by the next start.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { modelKey } from "@relevance/core";
import type { Logger } from "@relevance/settings";
import { openDatabase } from "@relevance/settings/sqlite";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DEMO_STEP_NAMES, type DemoReady, demoArtifact, demoModelId, seedDemo } from "./demo.ts";
import { SqliteStepLog } from "./demo-step-log.ts";
import { configFrom, type LocalConfig } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, call, MONITOR_TOKEN, type RunningStack, spawnStack } from "./test-support.ts";

type Line = { level: string; message: string } & Record<string, unknown>;
const lines: Line[] = [];
const log: Logger = {
  info: (message, fields) => lines.push({ level: "info", message, ...fields }),
  warn: (message, fields) => lines.push({ level: "warn", message, ...fields }),
  error: (message, fields) => lines.push({ level: "error", message, ...fields }),
};

let stack: Stack | null = null;
let config: LocalConfig;
const dirs: string[] = [];

/** The in-process stack without the monitor's simulation (DEMO=0); seedDemo is called by the test. */
async function start(dataDir: string): Promise<Stack> {
  config = configFrom({ PORT: "0", DATA_DIR: dataDir, ADMIN_TOKEN, MONITOR_TOKEN, DEMO: "0" });
  stack = await startStack(config, log);
  return stack;
}

async function restart(dataDir: string): Promise<Stack> {
  await stack?.stop();
  stack = null;
  lines.length = 0;
  return start(dataDir);
}

afterEach(async () => {
  await stack?.stop();
  stack = null;
  lines.length = 0;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "demo-restart-"));
  dirs.push(dir);
  return dir;
}

async function http(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await (stack as Stack).app.request(path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: test responses are read field by field
  return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as any };
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const configPath = (account: string, index: string) =>
  `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-trigger-config`;
const recordedSteps = (dataDir: string) => {
  const db = openDatabase(join(dataDir, "settings.db"));
  try {
    return new SqliteStepLog(db).entries();
  } finally {
    db.close();
  }
};

/** The operator's work after the seeding: v2 on products, scoring off on catalog, catalog re-pointed, v1 pruned. */
async function operatorWork(demo: DemoReady) {
  const account = demo.systemAccountId;
  const key = { "x-api-key": demo.apiKey };
  const v2 = `${account}:products:v2`;
  const artifact = JSON.parse(demoArtifact(account));
  await (stack as Stack).kv.put(modelKey(v2), JSON.stringify({ ...artifact, modelId: v2 }));
  const switched = await http(
    "PUT",
    configPath(account, "products"),
    { relevanceTriggerConfig: { modelId: v2, titleField: "title", tagsField: "tags" } },
    admin,
  );
  expect(switched.status).toBe(200);
  expect(switched.body.warnings ?? []).toEqual([]);
  expect(
    (await http("PUT", configPath(account, "catalog"), { relevanceTriggerConfig: null }, admin)).status,
  ).toBe(200);
  expect((await http("POST", "/api/v1/indexes", { name: "archive", primaryKey: "id" }, key)).status).toBe(
    201,
  );
  expect((await http("PUT", "/api/v1/aliases/catalog", { index: "archive" }, key)).status).toBe(200);
  // What `relevance prune --env local --yes` does to a version past its grace period.
  await (stack as Stack).kv.delete(modelKey(demoModelId(account)));
}

/** `productsModel`: what products names after the operator's work (null: scoring off). */
async function expectOperatorWorkKept(demo: DemoReady, productsModel: string | null) {
  const account = demo.systemAccountId;
  const products = await http("GET", configPath(account, "products"), undefined, admin);
  expect(products.body.relevanceTriggerConfig?.modelId ?? null).toBe(productsModel);
  const catalog = await http("GET", configPath(account, "catalog"), undefined, admin);
  expect(catalog.body.relevanceTriggerConfig).toBeNull();
  const alias = await http("GET", "/api/v1/indexes/catalog", undefined, { "x-api-key": demo.apiKey });
  expect(alias.body.index).toBe("archive");
  expect(await (stack as Stack).kv.get(modelKey(demoModelId(account)))).toBeNull();
}

describe("a restart keeps what the operator did after the demo seeding", () => {
  it("leaves a re-pointed config, a disabled config, a re-pointed alias and a pruned version alone", async () => {
    const dataDir = freshDir();
    await start(dataDir);
    const demo = (await seedDemo(stack as Stack, config, log)) as DemoReady;
    expect(lines.find((l) => l.curl !== undefined)?.stepsRun).toEqual(DEMO_STEP_NAMES);
    const seeded = recordedSteps(dataDir);
    await operatorWork(demo);

    await restart(dataDir);
    const again = await seedDemo(stack as Stack, config, log);
    expect(again?.systemAccountId).toBe(demo.systemAccountId);
    // What the printed curl answers now: the operator's v2.
    expect(again?.modelId).toBe(`${demo.systemAccountId}:products:v2`);
    expect(again?.relevanceScore).toBeTypeOf("number");
    const line = lines.find((l) => l.curl !== undefined);
    expect(line?.message).toMatch(/^demo already seeded/);
    expect(line?.stepsRun).toEqual([]);
    expect(line?.model).toBe("absent");
    await expectOperatorWorkKept(demo, `${demo.systemAccountId}:products:v2`);
    expect(recordedSteps(dataDir)).toEqual(seeded);
  }, 60_000);

  it("treats a folder seeded by a version without step records as seeded (demo.json and a working key)", async () => {
    const dataDir = freshDir();
    await start(dataDir);
    const demo = (await seedDemo(stack as Stack, config, log)) as DemoReady;
    await operatorWork(demo);
    const db = openDatabase(join(dataDir, "settings.db"));
    db.exec("DROP TABLE demo_steps");
    db.close();
    // demo.json as the earlier version wrote it: the credentials only, no search key.
    const file = join(dataDir, "demo.json");
    const { recordsSteps: _, searchApiKey: __, ...credentials } = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify(credentials));

    // And scoring off on products too: the restart reports an unscored search, and does not fail.
    const off = await http(
      "PUT",
      configPath(demo.systemAccountId, "products"),
      { relevanceTriggerConfig: null },
      admin,
    );
    expect(off.status).toBe(200);

    await restart(dataDir);
    const again = await seedDemo(stack as Stack, config, log);
    expect(again?.relevanceScore).toBeNull();
    expect(lines.some((l) => l.message.startsWith("demo seeded by an earlier version"))).toBe(true);
    expect(lines.find((l) => l.curl !== undefined)?.stepsRun).toEqual([]);
    await expectOperatorWorkKept(demo, null);
    expect(
      recordedSteps(dataDir)
        .map((e) => e.step)
        .sort(),
    ).toEqual([...DEMO_STEP_NAMES].sort());
    // The restart made the folder a search key with the admin key, and kept it.
    const { searchApiKey } = JSON.parse(readFileSync(file, "utf8"));
    expect(searchApiKey).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    expect(again?.searchApiKey).toBe(searchApiKey);
    const searchKey = { "x-api-key": searchApiKey };
    expect((await http("POST", "/api/v1/indexes/products/search", { q: "chair" }, searchKey)).status).toBe(
      200,
    );
    expect((await http("POST", "/api/v1/indexes", { name: "nope" }, searchKey)).status).toBe(403);
  }, 60_000);
});

describe("an interrupted first seeding", () => {
  it("killed after the new account's credentials were kept but before the step was recorded goes on with that account", async () => {
    const dataDir = freshDir();
    await start(dataDir);
    const killed = seedDemo(stack as Stack, config, log, {
      afterStep: (step) => {
        if (step === "account") throw new Error("killed");
      },
    });
    await expect(killed).rejects.toThrow("killed");
    const first = JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8"));
    const db = openDatabase(join(dataDir, "settings.db"));
    db.exec("DELETE FROM demo_steps");
    db.close();

    await restart(dataDir);
    const demo = (await seedDemo(stack as Stack, config, log)) as DemoReady;
    expect(demo.systemAccountId).toBe(first.systemAccountId);
    expect(lines.find((l) => l.curl !== undefined)?.stepsRun).toEqual(DEMO_STEP_NAMES.slice(1));
    expect(recordedSteps(dataDir).map((e) => e.step)).toEqual(DEMO_STEP_NAMES);
  }, 60_000);

  it.each(["account", "documents", "config-products"])(
    "killed after step %s is finished by the next start, each step exactly once",
    async (k) => {
      const dataDir = freshDir();
      await start(dataDir);
      const killed = seedDemo(stack as Stack, config, log, {
        afterStep: (step) => {
          if (step === k) throw new Error(`killed after ${k}`);
        },
      });
      await expect(killed).rejects.toThrow(`killed after ${k}`);
      const upTo = DEMO_STEP_NAMES.slice(0, DEMO_STEP_NAMES.indexOf(k) + 1);
      expect(recordedSteps(dataDir).map((e) => e.step)).toEqual(upTo);

      await restart(dataDir);
      const demo = (await seedDemo(stack as Stack, config, log)) as DemoReady;
      const line = lines.find((l) => l.curl !== undefined);
      expect(line?.stepsRun).toEqual(DEMO_STEP_NAMES.slice(upTo.length));
      expect(line?.firstStart).toBe(false);
      expect(typeof line?.relevanceScore).toBe("number");
      expect(recordedSteps(dataDir).map((e) => e.step)).toEqual(DEMO_STEP_NAMES);
      // One demo account: the second start used the first one's key, and the catalog is whole.
      const key = { "x-api-key": demo.apiKey };
      const docs = await http("GET", "/api/v1/indexes/products/documents?limit=1", undefined, key);
      expect(docs.body.total).toBe(10_000);
      const search = await http(
        "POST",
        "/api/v1/indexes/catalog/search",
        { q: "chair", relevanceScore: true },
        key,
      );
      expect(search.body.relevanceScore).toBeTypeOf("number");
    },
    60_000,
  );
});

describe("the monitor's demo accounts (DEMO=1, real processes)", () => {
  const running: RunningStack[] = [];
  afterAll(async () => {
    for (const s of running) await s.kill("SIGTERM");
  });

  it("are inserted only when absent: an operator's rename and status change survive a restart", async () => {
    const dataDir = freshDir();
    const monitor = { authorization: `Bearer ${MONITOR_TOKEN}` };
    const first = await spawnStack({ DATA_DIR: dataDir, DEMO: "1" });
    running.push(first);
    await first.waitFor((l) => l.message === "demo data ready", 30_000);
    const changed = await call(
      first.url,
      "PUT",
      "/api/system/accounts/222222222222",
      { account_name: "renamed-by-operator", svc_status: "no_access" },
      monitor,
    );
    expect(changed.status).toBe(200);
    await first.kill("SIGTERM");

    const second = await spawnStack({ DATA_DIR: dataDir, DEMO: "1" });
    running.push(second);
    await second.waitFor((l) => l.message === "demo data ready", 30_000);
    const accounts = await call(second.url, "GET", "/api/system/accounts", undefined, monitor);
    const account = accounts.body.accounts.find(
      (a: { account_id: string }) => a.account_id === "222222222222",
    );
    expect(account).toMatchObject({ account_name: "renamed-by-operator", svc_status: "no_access" });
    await second.kill("SIGTERM");
  }, 90_000);
});
