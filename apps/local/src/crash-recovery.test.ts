import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KEY_PREFIX, settingsCopy, settingsCopyKey } from "@relevance/settings";
import { openDatabase, SqliteChangeLog, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, type RunningStack, spawnStack } from "./test-support.ts";

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function setUp(stack: RunningStack) {
  const account = await call(stack.url, "POST", "/api/v1/admin/accounts", { name: "Crash Test" }, admin);
  expect(account.status).toBe(201);
  const key = { "x-api-key": account.body.apiKey as string };
  expect((await call(stack.url, "POST", "/api/v1/indexes", { name: "products" }, key)).status).toBe(201);
  expect((await call(stack.url, "PUT", "/api/v1/aliases/catalog", { index: "products" }, key)).status).toBe(
    200,
  );
  return account.body.systemAccountId as string;
}

const configPath = (account: string, index: string) =>
  `/api/v1/admin/accounts/${account}/indexes/${index}/relevance-trigger-config`;

function putConfig(url: string, account: string, index: string, n: number) {
  const config =
    n % 7 === 0
      ? null
      : { modelId: `${account}:products:v${n}`, titleField: "title", tagsField: n % 2 ? "tags" : null };
  return call(url, "PUT", configPath(account, index), { relevanceTriggerConfig: config }, admin);
}

/** Opens the stack's files from the test process (SQLite WAL allows a second process). */
function openData(dataDir: string) {
  const settingsDb = openDatabase(join(dataDir, "settings.db"));
  const kvDb = openDatabase(join(dataDir, "kv.db"));
  return {
    table: new SqliteSettingsTable(settingsDb),
    changeLog: new SqliteChangeLog(settingsDb),
    kv: new SqliteKv(kvDb),
    close() {
      settingsDb.close();
      kvDb.close();
    },
  };
}

async function expectKvMatchesTable(dataDir: string, account: string) {
  const data = openData(dataDir);
  try {
    for (const item of await data.table.query(account, "INDEX#")) {
      const copy = await data.kv.get(settingsCopyKey(item) as string);
      expect(copy === null ? null : JSON.parse(copy)).toEqual(settingsCopy(item));
    }
  } finally {
    data.close();
  }
}

/** Sequence numbers of the changes the exporter copies (settings records and API key lookups, not accounts or key records). */
async function settingsChangeSequences(dataDir: string, after = 0): Promise<number[]> {
  const data = openData(dataDir);
  try {
    const changes = await data.changeLog.read(after, 1_000_000);
    return changes
      .filter((c) => c.sk !== "ACCOUNT" && !c.sk.startsWith(KEY_PREFIX))
      .map((c) => Number(c.sequence));
  } finally {
    data.close();
  }
}

function exportedSequences(stack: RunningStack): number[] {
  return stack.lines.filter((l) => l.message === "settings exported").map((l) => l.sequence as number);
}

describe("crash recovery of the embedded exporter (real processes, SIGKILL)", () => {
  it("exports, after a restart, table writes that were committed but never exported, in order", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "crash-"));
    // The first process runs without its exporter, so every write below is committed to the table
    // and change log but not exported when the process is killed.
    const first = await spawnStack({ DATA_DIR: dataDir, EXPORTER: "0" });
    const account = await setUp(first);
    for (let n = 1; n <= 30; n++) {
      expect((await putConfig(first.url, account, n % 3 === 0 ? "catalog" : "products", n)).status).toBe(200);
    }
    await first.kill("SIGKILL");

    const before = openData(dataDir);
    const latest = before.changeLog.latest();
    expect(await before.changeLog.cursor()).toBe(0);
    expect(await before.kv.get(`${account}-products`)).toBeNull();
    before.close();

    const second = await spawnStack({ DATA_DIR: dataDir });
    await second.waitFor((l) => l.message === "settings exported" && l.sequence === latest);
    // Nothing lost, nothing twice, nothing out of order: every settings change, ascending.
    expect(exportedSequences(second)).toEqual(await settingsChangeSequences(dataDir));
    await expectKvMatchesTable(dataDir, account);
    await second.kill("SIGTERM");
  });

  it("catches up after being killed in the middle of a burst of writes", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "crash-"));
    const first = await spawnStack({ DATA_DIR: dataDir });
    const account = await setUp(first);
    let done = 0;
    const burst = Array.from({ length: 8 }, async (_, lane) => {
      for (let n = lane; n < 400; n += 8) {
        await putConfig(first.url, account, n % 2 ? "catalog" : "products", n + 1).catch(() => undefined);
        if (++done === 150) first.child.kill("SIGKILL");
      }
    });
    await Promise.all(burst);
    await first.kill("SIGKILL");
    const firstRun = exportedSequences(first);

    const data = openData(dataDir);
    const latest = data.changeLog.latest();
    const cursor = await data.changeLog.cursor();
    data.close();

    const second = await spawnStack({ DATA_DIR: dataDir });
    if (cursor < latest)
      await second.waitFor((l) => l.message === "settings exported" && l.sequence === latest);
    const secondRun = exportedSequences(second);
    // The restart resumes right after the persisted cursor, in order, up to the last write.
    expect(secondRun).toEqual(await settingsChangeSequences(dataDir, cursor));
    // Together the two runs exported every change (the one in flight at the kill may appear twice).
    expect([...new Set([...firstRun, ...secondRun])].sort((a, b) => a - b)).toEqual(
      await settingsChangeSequences(dataDir),
    );
    await expectKvMatchesTable(dataDir, account);
    await second.kill("SIGTERM");
  });
});
