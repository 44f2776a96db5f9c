import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { indexManagerContract } from "@relevance/search/contract";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedRetrieval } from "./engine.ts";
import { EmbeddedIndexManager } from "./index-manager.ts";

indexManagerContract("embedded (SQLite)", async () => {
  const db = openDatabase(":memory:");
  return new EmbeddedIndexManager({ db, documents: new SqliteDocumentStore(db) });
});

/** The account of the uids `acct_1-…` these cases use: task uids count per account. */
const ACCT = { accountId: "acct_1" };

describe("EmbeddedIndexManager", () => {
  const dir = mkdtempSync(join(tmpdir(), "index-manager-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fails a task whose documents would take the index past its bound, storing none of them", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    const manager = new EmbeddedIndexManager({ db, documents, maxDocumentsPerIndex: 3 });
    const uid = "acct_1-products";
    const first = await manager.addDocuments(uid, [{ id: 1 }, { id: 2 }], { primaryKey: "id" });
    expect((await manager.waitForTask(first.taskUid, ACCT)).status).toBe("succeeded");
    const over = await manager.addDocuments(uid, [{ id: 3 }, { id: 4 }]);
    const failed = await manager.waitForTask(over.taskUid, ACCT);
    expect(failed.status).toBe("failed");
    expect(failed.error?.code).toBe("index_documents_limit_exceeded");
    expect(failed.error?.message).toMatch(/4 documents, more than the limit of 3/);
    expect(await documents.count("acct_1", "products")).toBe(2);
    // Replaced documents take no room, by addition or by update; a third new one fits.
    for (const write of [
      manager.addDocuments(uid, [{ id: 1, t: "a" }, { id: 2, t: "b" }, { id: 3 }]),
      manager.updateDocuments(uid, [
        { id: 1, u: 1 },
        { id: 3, u: 3 },
      ]),
    ]) {
      expect((await manager.waitForTask((await write).taskUid, ACCT)).status).toBe("succeeded");
    }
    expect(await documents.count("acct_1", "products")).toBe(3);
  });

  it("keeps enqueued tasks across a restart and processes them when the next worker starts", async () => {
    const path = join(dir, "restart.sqlite");
    const first = openDatabase(path);
    const stopped = new EmbeddedIndexManager({
      db: first,
      documents: new SqliteDocumentStore(first),
      start: false,
    });
    const created = await stopped.createIndex("acct_1-products", { primaryKey: "id" });
    const added = await stopped.addDocuments("acct_1-products", [{ id: 1, title: "Shoes" }]);
    expect((await stopped.getTask(added.taskUid, ACCT))?.status).toBe("enqueued");
    first.close();

    const second = openDatabase(path);
    const documents = new SqliteDocumentStore(second);
    const restarted = new EmbeddedIndexManager({ db: second, documents });
    const task = await restarted.waitForTask(added.taskUid, { ...ACCT, timeoutMs: 5000 });
    expect(task.status).toBe("succeeded");
    expect((await restarted.getTask(created.taskUid, ACCT))?.status).toBe("succeeded");
    expect(await documents.count("acct_1", "products")).toBe(1);
    second.close();
  });

  it("runs a task interrupted after its document writes again, to success, on the next start", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    const first = new EmbeddedIndexManager({ db, documents });
    await first.waitForTask((await first.createIndex("acct_1-p", { primaryKey: "id" })).taskUid, ACCT);
    // A process that took an empty index to another primary key, wrote the documents and a
    // deletion's documents, then stopped before recording either task.
    const stopped = new EmbeddedIndexManager({ db, documents, start: false });
    const added = await stopped.addDocuments("acct_1-p", [{ sku: "a" }, { sku: "b" }], { primaryKey: "sku" });
    const removed = await stopped.deleteDocuments("acct_1-p", ["a"]);
    db.prepare(
      "UPDATE tasks SET status = 'processing', started_at = '2026-11-25T00:00:00.000Z' WHERE uid = ?",
    ).run(added.taskUid);
    db.prepare("UPDATE managed_indexes SET primary_key = 'sku' WHERE uid = 'acct_1-p'").run();
    await documents.upsert("acct_1", "p", "sku", [{ sku: "a" }, { sku: "b" }]);

    const next = new EmbeddedIndexManager({ db, documents });
    const task = await next.waitForTask(added.taskUid, ACCT);
    expect(task).toMatchObject({ status: "succeeded", startedAt: "2026-11-25T00:00:00.000Z" });
    expect((await next.waitForTask(removed.taskUid, ACCT)).status).toBe("succeeded");
    expect(await documents.list("acct_1", "p", 0, 10)).toEqual([{ sku: "b" }]);
    expect((await next.getIndex("acct_1-p"))?.primaryKey).toBe("sku");
  });

  it("adds only absent documents with addDocumentsIfAbsent, checked in task order, and never creates the index", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    const manager = new EmbeddedIndexManager({ db, documents, start: false });
    await manager.createIndex("acct_1-p", { primaryKey: "id" });
    await manager.addDocuments("acct_1-p", [{ id: "a", title: "stored first" }]);
    // Enqueued before the conditional write and not yet run: it still counts as there first.
    await manager.addDocuments("acct_1-p", [{ id: "b", title: "enqueued first" }]);
    const absent = await manager.addDocumentsIfAbsent("acct_1-p", [
      { id: "a", title: "seed" },
      { id: "b", title: "seed" },
      { id: "c", title: "seed" },
    ]);
    const missing = await manager.addDocumentsIfAbsent("acct_1-gone", [{ id: "a" }], { primaryKey: "id" });
    manager.start();
    expect(await manager.waitForTask(absent.taskUid, ACCT)).toMatchObject({
      status: "succeeded",
      details: { receivedDocuments: 3, indexedDocuments: 1 },
    });
    const titles = Object.fromEntries(
      (await documents.list("acct_1", "p", 0, 10)).map((d) => [d.id as string, d.title]),
    );
    expect(titles).toEqual({ a: "stored first", b: "enqueued first", c: "seed" });
    expect(await manager.waitForTask(missing.taskUid, ACCT)).toMatchObject({
      status: "failed",
      error: { code: "index_not_found" },
    });
    expect(await manager.getIndex("acct_1-gone")).toBeNull();
  });

  it("writes the documents where the embedded engine reads them, so searches see each finished task", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    const manager = new EmbeddedIndexManager({ db, documents });
    const engine = new EmbeddedRetrieval({ documents });
    const target = {
      systemAccountId: "acct_1",
      index: "products",
      primaryKey: "id",
      searchableAttributes: [],
      filterableAttributes: [],
    };
    const query = { q: "shoes", limit: 10, offset: 0 };
    await manager.waitForTask(
      (await manager.addDocuments("acct_1-products", [{ id: 1, title: "Red shoes" }])).taskUid,
      ACCT,
    );
    expect((await engine.search(target, query)).hits).toEqual([{ id: 1, title: "Red shoes" }]);
    await manager.waitForTask((await manager.deleteDocuments("acct_1-products", [1])).taskUid, ACCT);
    expect((await engine.search(target, query)).hits).toEqual([]);
  });

  it("reports isIndexing while a task of the index is waiting", async () => {
    const db = openDatabase(":memory:");
    const documents = new SqliteDocumentStore(db);
    const running = new EmbeddedIndexManager({ db, documents });
    await running.waitForTask((await running.createIndex("acct_1-p", { primaryKey: "id" })).taskUid, ACCT);
    const stopped = new EmbeddedIndexManager({ db, documents, start: false });
    const { taskUid } = await stopped.addDocuments("acct_1-p", [{ id: 1 }]);
    expect(await stopped.getStats("acct_1-p")).toEqual({
      numberOfDocuments: 0,
      isIndexing: true,
      fieldDistribution: {},
    });
    stopped.start();
    await stopped.waitForTask(taskUid, ACCT);
    expect(await stopped.getStats("acct_1-p")).toEqual({
      numberOfDocuments: 1,
      isIndexing: false,
      fieldDistribution: { id: 1 },
    });
  });

  it("logs a database failure that stops the worker, leaving the task unfinished", async () => {
    const path = join(dir, "closed.sqlite");
    const db = openDatabase(path);
    const errors: string[] = [];
    const logger = {
      info: () => undefined,
      warn: () => undefined,
      error: (message: string, fields?: Record<string, unknown>) =>
        errors.push(`${message} ${String(fields?.error)}`),
    };
    const manager = new EmbeddedIndexManager({
      db,
      documents: new SqliteDocumentStore(db),
      start: false,
      logger,
    });
    const { taskUid } = await manager.createIndex("acct_1-p");
    db.close();
    manager.start();
    await manager.idle();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^index manager: the task worker stopped .*(not open|finalized)/);
    const reopened = openDatabase(path);
    const next = new EmbeddedIndexManager({ db: reopened, documents: new SqliteDocumentStore(reopened) });
    expect((await next.waitForTask(taskUid, ACCT)).status).toBe("succeeded");
    reopened.close();
  });

  it("gives the event loop back between two tasks, however many are queued", async () => {
    const db = openDatabase(":memory:");
    const manager = new EmbeddedIndexManager({ db, documents: new SqliteDocumentStore(db), start: false });
    const uid = "acct_1-products";
    const tasks = [];
    for (let i = 0; i < 6; i++)
      tasks.push(await manager.addDocuments(uid, [{ id: i }], { primaryKey: "id" }));
    const worker = new EmbeddedIndexManager({ db, documents: new SqliteDocumentStore(db) });
    // Each turn of the event loop while the worker runs: which tasks had finished by then.
    const finishedAtTurns: number[] = [];
    let running = true;
    const turn = () => {
      if (!running) return;
      const rows = db.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'succeeded'").get() as {
        n: number;
      };
      finishedAtTurns.push(rows.n);
      setImmediate(turn);
    };
    setImmediate(turn);
    await worker.idle();
    for (const task of tasks) expect((await worker.waitForTask(task.taskUid, ACCT)).status).toBe("succeeded");
    running = false;
    // Every count from 1 to 5 was seen by some turn between two tasks: no two tasks ran in one
    // turn (the round ends in the turn of the sixth).
    for (let n = 1; n <= 5; n++) expect(finishedAtTurns).toContain(n);
  });

  it("keeps only the newest keepFinishedTasks finished tasks", async () => {
    const db = openDatabase(":memory:");
    const manager = new EmbeddedIndexManager({
      db,
      documents: new SqliteDocumentStore(db),
      keepFinishedTasks: 2,
    });
    const uids: number[] = [];
    for (const name of ["a", "b", "c", "d"]) uids.push((await manager.createIndex(`acct_1-${name}`)).taskUid);
    await manager.waitForTask(uids.at(-1) as number, ACCT);
    const kept = await Promise.all(uids.map((uid) => manager.getTask(uid, ACCT)));
    expect(kept.map((task) => task?.status ?? null)).toEqual([null, null, "succeeded", "succeeded"]);
    expect((await manager.listIndexes()).total).toBe(4);
  });

  it("times waitForTask out with task_timeout while the worker is stopped", async () => {
    const db = openDatabase(":memory:");
    const manager = new EmbeddedIndexManager({ db, documents: new SqliteDocumentStore(db), start: false });
    const { taskUid } = await manager.createIndex("acct_1-p");
    await expect(manager.waitForTask(taskUid, { ...ACCT, timeoutMs: 20 })).rejects.toMatchObject({
      failure: "timeout",
      error: { code: "task_timeout" },
    });
    manager.start();
    expect((await manager.waitForTask(taskUid, ACCT)).status).toBe("succeeded");
  });

  it("records an internal error when the document store fails, and goes on with the next task", async () => {
    const db = openDatabase(":memory:");
    const real = new SqliteDocumentStore(db);
    const documents = Object.assign(Object.create(real) as SqliteDocumentStore, {
      upsert: async () => {
        throw new Error("disk I/O error");
      },
    });
    const manager = new EmbeddedIndexManager({ db, documents });
    const failed = await manager.waitForTask(
      (await manager.addDocuments("acct_1-p", [{ id: 1 }])).taskUid,
      ACCT,
    );
    expect(failed).toMatchObject({ status: "failed", error: { code: "internal", type: "internal" } });
    expect(failed.error?.message).toContain("disk I/O error");
    const next = await manager.waitForTask((await manager.createIndex("acct_1-q")).taskUid, ACCT);
    expect(next.status).toBe("succeeded");
  });
});
