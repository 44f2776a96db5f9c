// One behaviour suite for every IndexManager adapter: the embedded one on SQLite, the Meilisearch
// one against the local double and, when MEILI_URL/MEILI_KEY are set, against a real Meilisearch.
// Every case uses index uids of its own (a random prefix), and deletes them afterwards, so the suite
// can run against a server that holds other indexes.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import {
  accountOfIndexUid,
  addDocumentsInBatches,
  type IndexManager,
  IndexManagerError,
  type Task,
  type TaskSummary,
} from "../index-manager.ts";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export interface ContractOptions {
  /** Why the suite does not run here; it runs when undefined. */
  skip?: string;
}

export function indexManagerContract(
  name: string,
  makeManager: () => Promise<IndexManager>,
  options: ContractOptions = {},
): void {
  const title = `IndexManager contract: ${name}${options.skip === undefined ? "" : ` (skipped: ${options.skip})`}`;
  describe.skipIf(options.skip !== undefined)(title, () => {
    const created: { manager: IndexManager; uid: string }[] = [];
    const run = randomBytes(4).toString("hex");
    let counter = 0;

    /** A fresh manager and a uid no other case (or run) uses. */
    const setup = async () => {
      const manager = await makeManager();
      const uid = (suffix = "") => {
        const value = `ct${run}_${++counter}${suffix}`;
        created.push({ manager, uid: value });
        return value;
      };
      const done = async (summary: Promise<TaskSummary>): Promise<Task> =>
        manager.waitForTask((await summary).taskUid, { timeoutMs: 10_000 });
      return { manager, uid, done };
    };

    afterEach(async () => {
      for (const { manager, uid } of created.splice(0)) {
        if ((await manager.getIndex(uid)) !== null) {
          await manager.waitForTask((await manager.deleteIndex(uid)).taskUid, {
            accountId: accountOfIndexUid(uid),
            timeoutMs: 10_000,
          });
        }
      }
    });

    it("finds a task only in its own account (the index uid's part before the first -)", async () => {
      const { manager, uid } = await setup();
      const owned = uid("-products");
      const accountId = accountOfIndexUid(owned);
      const summary = await manager.createIndex(owned);
      const task = await manager.waitForTask(summary.taskUid, { accountId, timeoutMs: 10_000 });
      expect(task).toMatchObject({ uid: summary.taskUid, indexUid: owned, status: "succeeded" });
      expect(await manager.getTask(summary.taskUid, { accountId })).toEqual(task);
      const other = { accountId: `${accountId}x` };
      expect(await manager.getTask(summary.taskUid, other)).toBeNull();
      await expect(
        manager.waitForTask(summary.taskUid, { ...other, timeoutMs: 5_000 }),
      ).rejects.toMatchObject({
        error: { code: "task_not_found" },
      });
    });

    it("answers a write with an enqueued task summary, then the task ends succeeded with its timestamps", async () => {
      const { manager, uid } = await setup();
      const products = uid();
      const summary = await manager.createIndex(products, { primaryKey: "sku" });
      expect(summary).toEqual({
        taskUid: expect.any(Number),
        indexUid: products,
        status: "enqueued",
        type: "indexCreation",
        enqueuedAt: expect.stringMatching(ISO),
      });
      const task = await manager.waitForTask(summary.taskUid, { timeoutMs: 10_000 });
      expect(task).toMatchObject({
        uid: summary.taskUid,
        indexUid: products,
        status: "succeeded",
        type: "indexCreation",
        enqueuedAt: summary.enqueuedAt,
        startedAt: expect.stringMatching(ISO),
        finishedAt: expect.stringMatching(ISO),
        error: null,
        details: { primaryKey: "sku" },
      });
      expect(await manager.getTask(summary.taskUid)).toEqual(task);
    });

    it("creates, gets and lists an index; creating it again fails the task with index_already_exists", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      await done(manager.createIndex(products, { primaryKey: "id" }));
      const info = await manager.getIndex(products);
      expect(info).toEqual({
        uid: products,
        primaryKey: "id",
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      const listed = await manager.listIndexes({ limit: 1000 });
      expect(listed.results).toContainEqual(info);
      const again = await done(manager.createIndex(products));
      expect(again.status).toBe("failed");
      expect(again.error).toEqual({
        message: expect.stringContaining(products),
        code: "index_already_exists",
        type: "invalid_request",
        link: "https://docs.meilisearch.com/errors#index_already_exists",
      });
    });

    it("lists indexes by uid with offset, limit and total", async () => {
      const { manager, uid, done } = await setup();
      const uids = [uid("c"), uid("a"), uid("b")];
      for (const each of uids) await done(manager.createIndex(each));
      const all = await manager.listIndexes({ limit: 1000 });
      expect(all.offset).toBe(0);
      expect(all.limit).toBe(1000);
      expect(all.total).toBe(all.results.length);
      const names = all.results.map((index) => index.uid);
      expect(names).toEqual([...names].sort());
      for (const each of uids) expect(names).toContain(each);
      const at = names.indexOf(uids[1] as string);
      const page = await manager.listIndexes({ offset: at, limit: 2 });
      expect(page).toMatchObject({ offset: at, limit: 2, total: all.total });
      expect(page.results.map((index) => index.uid)).toEqual(names.slice(at, at + 2));
      expect((await manager.listIndexes()).limit).toBe(20);
    });

    it("answers null, index_not_found or a failed task for an index that does not exist", async () => {
      const { manager, uid, done } = await setup();
      const missing = uid();
      expect(await manager.getIndex(missing)).toBeNull();
      for (const read of [() => manager.getStats(missing), () => manager.getSettings(missing)]) {
        const error = await read().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(IndexManagerError);
        expect((error as IndexManagerError).error).toMatchObject({
          code: "index_not_found",
          type: "invalid_request",
        });
        expect((error as IndexManagerError).status).toBe(404);
      }
      const deletion = await done(manager.deleteIndex(missing));
      expect(deletion).toMatchObject({
        status: "failed",
        type: "indexDeletion",
        error: { code: "index_not_found" },
      });
      const ids = await done(manager.deleteDocuments(missing, ["1"]));
      expect(ids).toMatchObject({
        status: "failed",
        type: "documentDeletion",
        error: { code: "index_not_found" },
      });
      expect(await manager.getIndex(missing)).toBeNull();
      expect(await manager.getTask(2_000_000_000)).toBeNull();
    });

    it("refuses an invalid index uid at once with invalid_index_uid", async () => {
      const { manager } = await setup();
      for (const attempt of [() => manager.createIndex("not a uid!"), () => manager.getIndex("not a uid!")]) {
        const error = await attempt().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(IndexManagerError);
        expect((error as IndexManagerError).error.code).toBe("invalid_index_uid");
        expect((error as IndexManagerError).status).toBe(400);
      }
    });

    it("adds documents (creating the index, inferring the primary key) and reports stats", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      const task = await done(
        manager.addDocuments(products, [
          { productId: "a1", title: "Red shoes", tags: ["red"] },
          { productId: 2, title: "Blue shorts" },
          { productId: "c-3", title: "Socks", price: 3 },
        ]),
      );
      expect(task).toMatchObject({
        status: "succeeded",
        type: "documentAdditionOrUpdate",
        details: { receivedDocuments: 3, indexedDocuments: 3 },
      });
      expect((await manager.getIndex(products))?.primaryKey).toBe("productId");
      expect(await manager.getStats(products)).toEqual({
        numberOfDocuments: 3,
        isIndexing: false,
        fieldDistribution: { productId: 3, title: 3, tags: 1, price: 1 },
      });
    });

    it("replaces documents whole with addDocuments and merges fields with updateDocuments", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      await done(manager.createIndex(products, { primaryKey: "id" }));
      await done(
        manager.addDocuments(products, [
          { id: 1, title: "Shoes", color: "red" },
          { id: 2, title: "Hat" },
        ]),
      );
      await done(manager.addDocuments(products, [{ id: 1, title: "Running shoes" }]));
      expect((await manager.getStats(products)).fieldDistribution).toEqual({ id: 2, title: 2 });
      const update = await done(
        manager.updateDocuments(products, [
          { id: 2, color: "blue" },
          { id: 3, title: "New" },
        ]),
      );
      expect(update).toMatchObject({
        status: "succeeded",
        details: { receivedDocuments: 2, indexedDocuments: 2 },
      });
      expect(await manager.getStats(products)).toMatchObject({
        numberOfDocuments: 3,
        fieldDistribution: { id: 3, title: 3, color: 1 },
      });
    });

    it("pages through an index's documents in a stable order with offset, limit and total", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      const docs = [5, 1, 4, 2, 3].map((id) => ({ id, title: `Item ${id}` }));
      await done(manager.addDocuments(products, docs, { primaryKey: "id" }));
      const all = await manager.getDocuments(products, { limit: 100 });
      expect(all).toMatchObject({ offset: 0, limit: 100, total: 5 });
      expect([...all.results].sort((a, b) => Number(a.id) - Number(b.id))).toEqual(
        [...docs].sort((a, b) => a.id - b.id),
      );
      const first = await manager.getDocuments(products, { offset: 0, limit: 2 });
      const rest = await manager.getDocuments(products, { offset: 2, limit: 3 });
      expect(first).toMatchObject({ offset: 0, limit: 2, total: 5 });
      expect([...first.results, ...rest.results]).toEqual(all.results);
      expect((await manager.getDocuments(products)).limit).toBe(20);
      const error = await manager.getDocuments(uid("missing")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IndexManagerError);
      expect((error as IndexManagerError).error.code).toBe("index_not_found");
    });

    it("deletes documents by id; unknown ids are not an error", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      await done(manager.addDocuments(products, [{ id: 1 }, { id: 2 }, { id: "x" }], { primaryKey: "id" }));
      const deletion = await done(manager.deleteDocuments(products, [1, "x", "nope"]));
      expect(deletion).toMatchObject({
        status: "succeeded",
        type: "documentDeletion",
        details: { providedIds: 3, deletedDocuments: 2 },
      });
      expect((await manager.getStats(products)).numberOfDocuments).toBe(1);
    });

    it("gets one document by id (null when absent) and deletes every document, the index staying", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      await done(
        manager.addDocuments(products, [{ id: 1, title: "one" }, { id: "b" }], { primaryKey: "id" }),
      );
      expect(await manager.getDocument(products, 1)).toEqual({ id: 1, title: "one" });
      expect(await manager.getDocument(products, "1")).toEqual({ id: 1, title: "one" });
      expect(await manager.getDocument(products, "nope")).toBeNull();
      await expect(manager.getDocument(uid(), 1)).rejects.toMatchObject({
        error: { code: "index_not_found" },
      });
      const cleared = await done(manager.deleteAllDocuments(products));
      expect(cleared).toMatchObject({
        status: "succeeded",
        type: "documentDeletion",
        details: { deletedDocuments: 2 },
      });
      expect((await manager.getStats(products)).numberOfDocuments).toBe(0);
      expect(await manager.getIndex(products)).not.toBeNull();
      const missing = await done(manager.deleteAllDocuments(uid()));
      expect(missing).toMatchObject({ status: "failed", error: { code: "index_not_found" } });
    });

    it("lists an account's tasks newest first, filtered and paged with limit, from and next", async () => {
      const { manager, uid } = await setup();
      const products = uid("-products");
      const accountId = accountOfIndexUid(products);
      const scope = { accountId };
      const wait = async (summary: Promise<TaskSummary>) =>
        manager.waitForTask((await summary).taskUid, { accountId, timeoutMs: 10_000 });
      const created = await wait(manager.createIndex(products, { primaryKey: "id" }));
      const added = await wait(manager.addDocuments(products, [{ id: 1 }]));
      const failed = await wait(manager.createIndex(products));
      const other = uid("-products");
      await manager.waitForTask((await manager.createIndex(other)).taskUid, {
        accountId: accountOfIndexUid(other),
        timeoutMs: 10_000,
      });

      const all = await manager.listTasks({}, scope);
      expect(all.results.map((t) => t.uid)).toEqual([failed.uid, added.uid, created.uid]);
      expect(all).toMatchObject({ total: 3, limit: 20, from: failed.uid, next: null });
      expect(all.results[1]).toEqual(added);

      const first = await manager.listTasks({ limit: 2 }, scope);
      expect(first.results.map((t) => t.uid)).toEqual([failed.uid, added.uid]);
      expect(first.next).toBe(created.uid);
      const second = await manager.listTasks({ limit: 2, from: first.next as number }, scope);
      expect(second.results.map((t) => t.uid)).toEqual([created.uid]);
      expect(second).toMatchObject({ total: 3, next: null });

      const byStatus = await manager.listTasks({ statuses: ["failed"] }, scope);
      expect(byStatus.results.map((t) => t.uid)).toEqual([failed.uid]);
      const byType = await manager.listTasks({ types: ["documentAdditionOrUpdate"] }, scope);
      expect(byType.results.map((t) => t.uid)).toEqual([added.uid]);
      const byUid = await manager.listTasks({ uids: [created.uid, added.uid] }, scope);
      expect(byUid.total).toBe(2);
      const before = await manager.listTasks({ beforeEnqueuedAt: "2000-01-01T00:00:00Z" }, scope);
      expect(before.total).toBe(0);
      const after = await manager.listTasks({ afterEnqueuedAt: "2000-01-01T00:00:00Z" }, scope);
      expect(after.total).toBe(3);
      // Another account's index named in the filter shows nothing of it.
      const foreign = await manager.listTasks({ indexUids: [other] }, scope);
      expect(foreign).toMatchObject({ results: [], total: 0 });
    });

    it("fails a batch with a document without its primary key, or with an invalid id, and indexes none of it", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      await done(manager.createIndex(products, { primaryKey: "id" }));
      const missing = await done(manager.addDocuments(products, [{ id: 1 }, { title: "no id" }]));
      expect(missing).toMatchObject({
        status: "failed",
        error: { code: "missing_document_id", type: "invalid_request" },
        details: { receivedDocuments: 2, indexedDocuments: 0 },
      });
      const invalid = await done(manager.addDocuments(products, [{ id: "a b" }]));
      expect(invalid).toMatchObject({ status: "failed", error: { code: "invalid_document_id" } });
      expect((await manager.getStats(products)).numberOfDocuments).toBe(0);
    });

    it("fails the primary key inference with no or several fields ending with id, and another primary key once the index has documents", async () => {
      const { manager, uid, done } = await setup();
      const none = uid();
      const noCandidate = await done(manager.addDocuments(none, [{ title: "x" }]));
      expect(noCandidate).toMatchObject({
        status: "failed",
        error: { code: "index_primary_key_no_candidate_found" },
      });
      const two = await done(manager.addDocuments(uid(), [{ skuId: "1", productId: "1" }]));
      expect(two).toMatchObject({
        status: "failed",
        error: { code: "index_primary_key_multiple_candidates_found" },
      });
      // An empty index takes another primary key with its first documents; one with documents refuses it.
      const keyed = uid();
      await done(manager.createIndex(keyed, { primaryKey: "id" }));
      const first = await done(manager.addDocuments(keyed, [{ sku: "1", id: "x" }], { primaryKey: "sku" }));
      expect(first.status).toBe("succeeded");
      expect((await manager.getIndex(keyed))?.primaryKey).toBe("sku");
      const other = await done(manager.addDocuments(keyed, [{ sku: "2", id: "2" }], { primaryKey: "id" }));
      expect(other).toMatchObject({ status: "failed", error: { code: "index_primary_key_already_exists" } });
    });

    it("applies settings, reads them back with Meilisearch's defaults, and resets one with null", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      await done(manager.createIndex(products, { primaryKey: "id" }));
      expect(await manager.getSettings(products)).toEqual({
        searchableAttributes: ["*"],
        displayedAttributes: ["*"],
        filterableAttributes: [],
        sortableAttributes: [],
        synonyms: {},
        stopWords: [],
        typoTolerance: {
          enabled: true,
          minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 },
          disableOnWords: [],
          disableOnAttributes: [],
        },
        rankingRules: ["words", "typo", "proximity", "attribute", "sort", "exactness"],
      });
      const update = await done(
        manager.updateSettings(products, {
          searchableAttributes: ["title", "brand"],
          filterableAttributes: ["brand"],
          sortableAttributes: ["price"],
          synonyms: { tee: ["t-shirt"] },
          stopWords: ["the"],
        }),
      );
      expect(update).toMatchObject({
        status: "succeeded",
        type: "settingsUpdate",
        details: { searchableAttributes: ["title", "brand"], stopWords: ["the"] },
      });
      const applied = await manager.getSettings(products);
      expect(applied).toMatchObject({
        searchableAttributes: ["title", "brand"],
        displayedAttributes: ["*"],
        sortableAttributes: ["price"],
        synonyms: { tee: ["t-shirt"] },
        stopWords: ["the"],
      });
      expect(applied.filterableAttributes).toEqual(["brand"]);
      await done(manager.updateSettings(products, { searchableAttributes: null }));
      expect(await manager.getSettings(products)).toMatchObject({
        searchableAttributes: ["*"],
        stopWords: ["the"],
      });
    });

    it("creates the index a settings update names when it does not exist", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      expect(await done(manager.updateSettings(products, { stopWords: ["a"] }))).toMatchObject({
        status: "succeeded",
      });
      expect(await manager.getIndex(products)).toMatchObject({ uid: products, primaryKey: null });
      expect((await manager.getSettings(products)).stopWords).toEqual(["a"]);
    });

    it("deletes an index with its documents", async () => {
      const { manager, uid, done } = await setup();
      const products = uid();
      await done(manager.addDocuments(products, [{ id: 1 }, { id: 2 }]));
      const deletion = await done(manager.deleteIndex(products));
      expect(deletion).toMatchObject({
        status: "succeeded",
        type: "indexDeletion",
        details: { deletedDocuments: 2 },
      });
      expect(await manager.getIndex(products)).toBeNull();
      // Written again, the index starts empty.
      await done(manager.addDocuments(products, [{ id: 3 }]));
      expect((await manager.getStats(products)).numberOfDocuments).toBe(1);
    });

    it("processes tasks in the order they were enqueued", async () => {
      const { manager, uid } = await setup();
      const products = uid();
      const summaries = [
        await manager.createIndex(products, { primaryKey: "id" }),
        await manager.addDocuments(products, [{ id: 1, v: "first" }, { id: 2 }]),
        await manager.updateDocuments(products, [{ id: 1, w: "second" }]),
        await manager.deleteDocuments(products, [2]),
      ];
      const uids = summaries.map((s) => s.taskUid);
      expect(uids).toEqual([...uids].sort((a, b) => a - b));
      const last = await manager.waitForTask(uids.at(-1) as number, { timeoutMs: 10_000 });
      expect(last.status).toBe("succeeded");
      for (const taskUid of uids) expect((await manager.getTask(taskUid))?.status).toBe("succeeded");
      expect(await manager.getStats(products)).toMatchObject({
        numberOfDocuments: 1,
        isIndexing: false,
        fieldDistribution: { id: 1, v: 1, w: 1 },
      });
    });

    it("sends documents in batches, one task per batch", async () => {
      const { manager, uid } = await setup();
      const products = uid();
      const docs = Array.from({ length: 25 }, (_, i) => ({ id: i, title: `Product ${i}` }));
      const summaries = await addDocumentsInBatches(manager, products, docs, 10, { primaryKey: "id" });
      expect(summaries).toHaveLength(3);
      const tasks: Task[] = [];
      for (const s of summaries) tasks.push(await manager.waitForTask(s.taskUid, { timeoutMs: 10_000 }));
      expect(tasks.map((t) => t.details.receivedDocuments)).toEqual([10, 10, 5]);
      expect(tasks.every((t) => t.status === "succeeded")).toBe(true);
      expect((await manager.getStats(products)).numberOfDocuments).toBe(25);
    });

    it("rejects waitForTask for a task that does not exist with task_not_found", async () => {
      const { manager } = await setup();
      const error = await manager.waitForTask(2_000_000_000, { timeoutMs: 5_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IndexManagerError);
      expect((error as IndexManagerError).error.code).toBe("task_not_found");
    });
  });
}
