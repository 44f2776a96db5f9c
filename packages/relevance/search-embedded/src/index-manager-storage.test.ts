// The embedded IndexManager on a full disk, and its task numbers: what is answered is stored, a
// number is never given twice, and each account counts its own tasks.
import type { DatabaseSync } from "node:sqlite";
import { IndexManagerError } from "@relevance/search";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { fillDisk, freeDisk } from "@relevance/settings/test-support/disk-full";
import { describe, expect, it } from "vitest";
import { EmbeddedIndexManager } from "./index-manager.ts";

const A = { accountId: "acct_a" };
const B = { accountId: "acct_b" };

function setup(options: { start?: boolean; keepFinishedTasks?: number } = {}) {
  const db = openDatabase(":memory:");
  const documents = new SqliteDocumentStore(db);
  const manager = new EmbeddedIndexManager({ db, documents, ...options });
  return { db, documents, manager };
}

/** Documents that take a few hundred KB, so storing them needs pages a full disk does not have. */
const bulky = (from: number, n = 40) =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, body: "x".repeat(8000) }));

const taskRows = (db: DatabaseSync) =>
  db.prepare("SELECT account_id, uid, status FROM tasks ORDER BY seq").all() as {
    account_id: string;
    uid: number;
    status: string;
  }[];

describe("task numbers", () => {
  it("count per account: each account's first task is 1, whatever the other accounts wrote", async () => {
    const { manager } = setup();
    const a1 = await manager.createIndex("acct_a-products");
    const a2 = await manager.addDocuments("acct_a-products", [{ id: 1 }]);
    const b1 = await manager.createIndex("acct_b-products");
    const a3 = await manager.addDocuments("acct_a-products", [{ id: 2 }]);
    const b2 = await manager.updateSettings("acct_b-products", { stopWords: ["the"] });
    expect([a1, a2, a3].map((t) => t.taskUid)).toEqual([1, 2, 3]);
    expect([b1, b2].map((t) => t.taskUid)).toEqual([1, 2]);
    expect((await manager.waitForTask(a3.taskUid, A)).indexUid).toBe("acct_a-products");
    expect((await manager.waitForTask(b2.taskUid, B)).indexUid).toBe("acct_b-products");
  });

  it("find only the account's own task: another account's number is not found", async () => {
    const { manager } = setup();
    await manager.createIndex("acct_a-products");
    await manager.createIndex("acct_a-shoes");
    const b1 = await manager.createIndex("acct_b-products");
    await manager.waitForTask(b1.taskUid, B);
    expect((await manager.getTask(2, A))?.indexUid).toBe("acct_a-shoes");
    expect(await manager.getTask(2, B)).toBeNull();
    await expect(manager.waitForTask(2, { ...B, timeoutMs: 1000 })).rejects.toMatchObject({
      error: { code: "task_not_found" },
    });
  });

  it("are never given twice: not after the account's tasks are pruned, its index deleted, or a restart", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    const first = new EmbeddedIndexManager({ db, documents, keepFinishedTasks: 1 });
    const given: number[] = [];
    for (let round = 0; round < 3; round++) {
      given.push((await first.createIndex("acct_a-p")).taskUid);
      given.push((await first.deleteIndex("acct_a-p")).taskUid);
    }
    await first.waitForTask(given.at(-1) as number, A);
    // Pruned down to the newest: the numbers before it are gone, and still not given again.
    expect(taskRows(db)).toHaveLength(1);
    const restarted = new EmbeddedIndexManager({ db, documents });
    given.push((await restarted.createIndex("acct_a-p")).taskUid);
    expect(given).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("of a database written with one sequence for every account keep their uids, and new ones start above them", async () => {
    const db = openDatabase(":memory:");
    // The tasks table as an earlier version wrote it: one uid sequence for all accounts; tasks 4
    // and 5 were pruned since.
    db.exec(`CREATE TABLE tasks (
      uid INTEGER PRIMARY KEY AUTOINCREMENT, index_uid TEXT NOT NULL, type TEXT NOT NULL,
      status TEXT NOT NULL, enqueued_at TEXT NOT NULL, started_at TEXT, finished_at TEXT,
      error TEXT, details TEXT NOT NULL, payload TEXT)`);
    db.exec("CREATE INDEX tasks_by_status ON tasks (status, uid)");
    const insert = db.prepare(
      "INSERT INTO tasks (uid, index_uid, type, status, enqueued_at, details, payload) VALUES (?, ?, ?, ?, '2026-11-01T00:00:00.000Z', '{}', ?)",
    );
    insert.run(1, "acct_a-p", "indexCreation", "succeeded", null);
    insert.run(2, "acct_b-p", "indexCreation", "succeeded", null);
    insert.run(
      3,
      "acct_a-p",
      "settingsUpdate",
      "enqueued",
      JSON.stringify({ settings: { stopWords: ["a"] } }),
    );
    insert.run(5, "acct_a-p", "indexCreation", "failed", null);
    db.prepare("DELETE FROM tasks WHERE uid = 5").run();
    const manager = new EmbeddedIndexManager({ db, documents: new SqliteDocumentStore(db) });
    // The task left enqueued runs under its old number, in its account.
    expect((await manager.waitForTask(3, A)).status).toBe("succeeded");
    expect((await manager.getTask(2, B))?.type).toBe("indexCreation");
    expect(await manager.getTask(2, A)).toBeNull();
    expect((await manager.createIndex("acct_a-q")).taskUid).toBe(6);
    expect((await manager.createIndex("acct_b-q")).taskUid).toBe(6);
    expect((await manager.createIndex("acct_c-q")).taskUid).toBe(6);
    expect((await manager.createIndex("acct_a-r")).taskUid).toBe(7);
  });
});

describe("a full disk", () => {
  it("refuses a write it cannot store with no_space_left_on_device, enqueues nothing, and gives the next write the next number", async () => {
    const { db, manager, documents } = setup();
    const first = await manager.addDocuments("acct_a-p", [{ id: 0 }]);
    await manager.waitForTask(first.taskUid, A);
    fillDisk(db);
    const refused = await manager.addDocuments("acct_a-p", bulky(1)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(IndexManagerError);
    expect(refused).toMatchObject({
      status: 507,
      error: { code: "no_space_left_on_device", type: "system" },
    });
    expect(taskRows(db)).toEqual([{ account_id: "acct_a", uid: 1, status: "succeeded" }]);
    freeDisk(db);
    const next = await manager.addDocuments("acct_a-p", bulky(1));
    expect(next.taskUid).toBe(2);
    expect((await manager.waitForTask(next.taskUid, A)).status).toBe("succeeded");
    expect(await documents.count("acct_a", "p")).toBe(41);
  });

  it("fails a task whose documents cannot be stored with no_space_left_on_device; the index keeps what it had", async () => {
    const { db, manager, documents } = setup({ start: false });
    const kept = await manager.addDocuments("acct_a-p", [{ id: 0 }]);
    const lost = await manager.addDocuments("acct_a-p", bulky(1));
    // The tasks (with their documents) were stored while there was room; the disk fills before
    // they run. One small document still fits in the pages the database has; forty large ones do not.
    fillDisk(db);
    manager.start();
    expect((await manager.waitForTask(kept.taskUid, A)).status).toBe("succeeded");
    const task = await manager.waitForTask(lost.taskUid, A);
    expect(task).toMatchObject({
      status: "failed",
      error: { code: "no_space_left_on_device", type: "system" },
      details: { receivedDocuments: 40, indexedDocuments: 0 },
    });
    expect(task.error?.message).not.toMatch(/rollback/);
    expect(await documents.count("acct_a", "p")).toBe(1);
    freeDisk(db);
    const again = await manager.addDocuments("acct_a-p", bulky(1));
    expect((await manager.waitForTask(again.taskUid, A)).status).toBe("succeeded");
    expect(await documents.count("acct_a", "p")).toBe(41);
  });

  it("fails a settings update it cannot record, rather than answering a success it did not store", async () => {
    const { db, manager } = setup({ start: false });
    const created = await manager.createIndex("acct_a-p");
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`);
    const update = await manager.updateSettings("acct_a-p", { stopWords: words });
    fillDisk(db);
    manager.start();
    expect((await manager.waitForTask(created.taskUid, A)).status).toBe("succeeded");
    const task = await manager.waitForTask(update.taskUid, A);
    expect(task).toMatchObject({ status: "failed", error: { code: "no_space_left_on_device" } });
    expect((await manager.getSettings("acct_a-p")).stopWords).toEqual([]);
    freeDisk(db);
    const again = await manager.updateSettings("acct_a-p", { stopWords: words });
    expect((await manager.waitForTask(again.taskUid, A)).status).toBe("succeeded");
    expect((await manager.getSettings("acct_a-p")).stopWords).toHaveLength(3000);
  });

  it("answers waiters even when a task's end cannot be recorded, fails the tasks behind it at once, and records both when space returns", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    // SQLite's way with a COMMIT on a full disk: the transaction is rolled back, then SQLITE_FULL.
    let full = false;
    const disk = new Proxy(db, {
      get(target, name) {
        if (name === "exec") {
          return (sql: string) => {
            if (full && /^\s*COMMIT/i.test(sql)) {
              target.exec("ROLLBACK");
              throw Object.assign(new Error("database or disk is full"), {
                code: "ERR_SQLITE_ERROR",
                errcode: 13,
                errstr: "database or disk is full",
              });
            }
            return target.exec(sql);
          };
        }
        const value = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const manager = new EmbeddedIndexManager({ db: disk, documents, start: false });
    const stored = await manager.addDocuments("acct_a-p", [{ id: 1 }, { id: 2 }]);
    const behind = await manager.addDocuments("acct_a-p", [{ id: 3 }]);
    full = true;
    manager.start();
    // The documents of the first are stored (the document store's own transaction): a success,
    // shown though not yet recorded. The second waits behind it and is failed without running.
    expect(await manager.waitForTask(stored.taskUid, A)).toMatchObject({ status: "succeeded" });
    expect(await manager.waitForTask(behind.taskUid, A)).toMatchObject({
      status: "failed",
      error: { code: "no_space_left_on_device" },
    });
    expect(await documents.count("acct_a", "p")).toBe(2);
    expect(taskRows(db).map((r) => r.status)).toEqual(["processing", "enqueued"]);
    full = false;
    const next = await manager.addDocuments("acct_a-p", [{ id: 4 }]);
    expect((await manager.waitForTask(next.taskUid, A)).status).toBe("succeeded");
    expect(taskRows(db)).toEqual([
      { account_id: "acct_a", uid: 1, status: "succeeded" },
      { account_id: "acct_a", uid: 2, status: "failed" },
      { account_id: "acct_a", uid: 3, status: "succeeded" },
    ]);
    expect((await documents.list("acct_a", "p", 0, 10)).map((d) => d.id)).toEqual([1, 2, 4]);
  });
});
