// npm start with DATA_DIR on a small tmpfs that fills up, as an operator's disk does: every write
// that cannot be stored answers 507 no_space_left_on_device, every write answered otherwise is
// stored (and still there after a kill -9 and a restart), no task number is given twice, reads keep
// working, and writes are taken again once there is room. Mounting a tmpfs needs the right to mount
// (root, in a container that allows it): without it this file is skipped, and the same behaviour
// is covered with an injected full disk by the packages' storage-full tests.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, MONITOR_TOKEN, type RunningStack, spawnStack } from "./test-support.ts";

const dataDir = mkdtempSync(join(tmpdir(), "stack-full-disk-"));
const mounted =
  process.platform === "linux" &&
  spawnSync("mount", ["-t", "tmpfs", "-o", "size=40m,mode=0700", "tmpfs", dataDir], { stdio: "ignore" })
    .status === 0;

const running: RunningStack[] = [];
afterAll(async () => {
  for (const s of running) await s.kill("SIGKILL");
  if (mounted) spawnSync("umount", ["-l", dataDir], { stdio: "ignore" });
  rmSync(dataDir, { recursive: true, force: true });
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const monitor = { authorization: `Bearer ${MONITOR_TOKEN}` };
const FULL = {
  code: "no_space_left_on_device",
  message: expect.stringContaining("no space left on the device"),
};

/** Fills the file system but for `leave` bytes. */
function fill(leave: number): void {
  const path = join(dataDir, "filler");
  const fd = openSync(path, "w");
  try {
    for (const size of [1 << 20, 4096]) {
      const chunk = Buffer.alloc(size);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  truncateSync(path, Math.max(0, statSync(path).size - leave));
}

// The most documents one batch may hold (docs/limits.md).
const batch = (n: number) =>
  Array.from({ length: 1000 }, (_, i) => ({
    id: `b${n}-${i}`,
    title: `Product ${n} ${i} ${"lorem ipsum ".repeat(20)}`,
  }));

const run = (at: number) => ({
  collector: "full_disk",
  cloud_account_id: "111111111111",
  cloud_region: "us-east-1",
  started_at: new Date(at - 2000).toISOString(),
  completed_at: new Date(at).toISOString(),
  status: "succeeded",
  events_produced: 1,
  rows_inserted: 1,
});

const silence = (n: number) => ({
  matchers: { rule: "collector_failure", subject: { op: "prefix", value: `full_disk_${n}/` } },
  author: "ops",
  reason: "disk full drill",
  ends_at: new Date(Date.now() + 3_600_000).toISOString(),
});

describe.skipIf(!mounted)(
  "npm start on a full disk (a 40 MB tmpfs; skipped where mounting is not allowed)",
  () => {
    it("answers 507 for what it cannot store, loses nothing it answered, gives no task number twice, and recovers", async () => {
      const first = await spawnStack({ DATA_DIR: dataDir });
      running.push(first);
      const account = await call(first.url, "POST", "/api/v1/admin/accounts", { name: "Full" }, admin);
      const key = { "x-api-key": account.body.apiKey as string };
      expect((await call(first.url, "POST", "/api/v1/indexes", { name: "products" }, key)).status).toBe(201);
      fill(3 * 1024 * 1024);

      // Documents until the disk refuses them three times running.
      const taskUids: number[] = [];
      let accepted = 0;
      let refusedInARow = 0;
      for (let n = 0; n < 60 && refusedInARow < 3; n++) {
        const res = await call(first.url, "POST", "/api/v1/indexes/products/documents", batch(n), key);
        if (res.status === 202) {
          // Answered once its task ended: stored, never "enqueued" after a wait that gave up.
          expect(res.body.status).toBe("succeeded");
          taskUids.push(res.body.taskUid);
          accepted += res.body.accepted;
          refusedInARow = 0;
        } else {
          expect(res).toMatchObject({ status: 507, body: { error: FULL } });
          refusedInARow++;
        }
      }
      expect(refusedInARow).toBe(3);
      expect(new Set(taskUids).size).toBe(taskUids.length);

      // Every other write route: taken and stored, or 507, never 500.
      const words = Array.from({ length: 5000 }, (_, i) => `w${i}`);
      const patched = await call(
        first.url,
        "PATCH",
        "/api/v1/indexes/products/settings",
        { stopWords: words },
        key,
      );
      const ingest = await call(first.url, "POST", "/api/system/runs", [run(Date.now() - 1000)], monitor);
      const silenced = await call(first.url, "POST", "/api/system/silences", silence(1), monitor);
      for (const [res, ok] of [
        [patched, 200],
        [ingest, 201],
        [silenced, 201],
      ] as const) {
        if (res.status !== ok) expect(res).toMatchObject({ status: 507, body: { error: FULL } });
      }
      // The analytics database cannot reserve room for a part with 3 MB gone: ingest is refused.
      expect(ingest.status).toBe(507);

      // Reads keep working.
      const page = await call(first.url, "GET", "/api/v1/indexes/products/documents?limit=1", undefined, key);
      expect(page.body.total).toBe(accepted);
      const search = await call(first.url, "POST", "/api/v1/indexes/products/search", { q: "product" }, key);
      expect(search.status).toBe(200);
      expect((await call(first.url, "GET", "/api/system/status", undefined, monitor)).status).toBe(200);

      // A kill -9 on the full disk, room again, a restart: what was answered is there.
      await first.kill("SIGKILL");
      spawnSync("mount", ["-o", "remount,size=120m", dataDir], { stdio: "ignore" });
      const second = await spawnStack({ DATA_DIR: dataDir });
      running.push(second);
      const after = await call(
        second.url,
        "GET",
        "/api/v1/indexes/products/documents?limit=1",
        undefined,
        key,
      );
      expect(after.body.total).toBe(accepted);
      for (const uid of taskUids) {
        expect((await call(second.url, "GET", `/api/v1/tasks/${uid}`, undefined, key)).body.status).toBe(
          "succeeded",
        );
      }
      const settings = await call(second.url, "GET", "/api/v1/indexes/products/settings", undefined, key);
      expect(settings.body.stopWords).toEqual(patched.status === 200 ? words : []);
      const silences = await call(second.url, "GET", "/api/system/silences", undefined, monitor);
      expect(silences.body.silences).toHaveLength(silenced.status === 201 ? 1 : 0);

      // Writes are taken again, with new task numbers.
      const again = await call(second.url, "POST", "/api/v1/indexes/products/documents", batch(99), key);
      expect(again).toMatchObject({ status: 202, body: { status: "succeeded" } });
      expect(again.body.taskUid).toBeGreaterThan(Math.max(0, ...taskUids));
      expect(
        (await call(second.url, "PATCH", "/api/v1/indexes/products/settings", { stopWords: words }, key))
          .status,
      ).toBe(200);
      expect(
        (await call(second.url, "POST", "/api/system/runs", [run(Date.now() - 1000)], monitor)).status,
      ).toBe(201);
      expect((await call(second.url, "POST", "/api/system/silences", silence(2), monitor)).status).toBe(201);
    });
  },
);
