// The embedded IndexManager on a file system that really fills up: a small tmpfs. Mounting one
// needs the right to mount (root in a container that allows it); without it these cases are
// skipped, and index-manager-storage.test.ts covers the same behaviour with an injected full disk.
// Only a real file system shows a COMMIT that fails on write (SQLite's WAL), which is how a task
// number was once answered without being stored.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IndexManagerError, type TaskSummary } from "@relevance/search";
import { openDatabase, SqliteDocumentStore } from "@relevance/settings/sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedIndexManager } from "./index-manager.ts";

const dir = mkdtempSync(join(tmpdir(), "index-manager-tmpfs-"));
const mounted =
  process.platform === "linux" &&
  spawnSync("mount", ["-t", "tmpfs", "-o", "size=3m,mode=0700", "tmpfs", dir], { stdio: "ignore" }).status ===
    0;

let db: ReturnType<typeof openDatabase> | undefined;

afterAll(() => {
  if (db?.isOpen) db.close();
  // Lazily, so that a file still open cannot leave the mount behind.
  if (mounted) spawnSync("umount", ["-l", dir], { stdio: "ignore" });
  rmSync(dir, { recursive: true, force: true });
});

const A = { accountId: "acct_a" };

describe.skipIf(!mounted)(
  "EmbeddedIndexManager on a 3 MB tmpfs (skipped where mounting is not allowed)",
  () => {
    it("answers no write it did not store, never gives a task number twice, and takes writes again once space is freed", async () => {
      // Room to free later: a filler file of 512 KB.
      const filler = join(dir, "filler");
      writeFileSync(filler, Buffer.alloc(512 * 1024));
      db = openDatabase(join(dir, "settings.db"));
      const documents = new SqliteDocumentStore(db);
      const manager = new EmbeddedIndexManager({ db, documents });
      const answered: TaskSummary[] = [];
      const refused: unknown[] = [];
      let failed = 0;
      let indexed = 0;
      let next = 0;
      // 20 documents of 8 KB a write, as the stack's writes: each waited for before the next.
      for (let round = 0; round < 40 && refused.length + failed < 3; round++) {
        const batch = Array.from({ length: 20 }, () => ({ id: next++, body: "x".repeat(8000) }));
        let summary: TaskSummary;
        try {
          summary = await manager.addDocuments("acct_a-p", batch);
        } catch (error) {
          refused.push(error);
          continue;
        }
        answered.push(summary);
        const task = await manager.waitForTask(summary.taskUid, { ...A, timeoutMs: 10_000 });
        if (task.status === "succeeded") indexed += task.details.indexedDocuments as number;
        else {
          failed++;
          expect(task.error).toMatchObject({ code: "no_space_left_on_device", type: "system" });
        }
      }
      // The disk did fill (3 MB, 40 writes of 160 KB): writes were refused or their tasks failed, saying why.
      expect(refused.length + failed).toBeGreaterThan(0);
      for (const error of refused) {
        expect(error).toBeInstanceOf(IndexManagerError);
        expect(error).toMatchObject({ status: 507, error: { code: "no_space_left_on_device" } });
      }
      const uids = answered.map((t) => t.taskUid);
      expect(new Set(uids).size).toBe(uids.length);
      // Every answered task is there as answered, and every document of every succeeded task is stored.
      for (const summary of answered) expect(await manager.getTask(summary.taskUid, A)).not.toBeNull();
      expect(await documents.count("acct_a", "p")).toBe(indexed);

      unlinkSync(filler);
      const after = await manager.addDocuments("acct_a-p", [{ id: "after", body: "space is back" }]);
      expect(uids).not.toContain(after.taskUid);
      expect(after.taskUid).toBeGreaterThan(Math.max(0, ...uids));
      expect((await manager.waitForTask(after.taskUid, A)).status).toBe("succeeded");
      expect((await documents.getMany("acct_a", "p", ["after"])).size).toBe(1);
      db.close();
    });
  },
);
