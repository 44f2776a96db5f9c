// The monitor's writes on a full disk: run ingest, account and collector writes, silences. A write
// that cannot be stored answers 507 no_space_left_on_device (never 500 internal) and stores
// nothing; reads keep working; writes are taken again once there is room. The analytics database
// is real chDB: on a small tmpfs where mounting one is allowed (else that case is skipped), and
// behind a store that fails each write as chDB does on a full disk (always).
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import {
  type CollectorRegistry,
  InMemoryCollectorRegistry,
  type RunStore,
  RunStoreQueryError,
} from "@monitor/core";
import { SqliteSilenceStore } from "@monitor/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, MIN, makeApp, memoryLog, openTempStore, runAt, uuid } from "./test-support.ts";

const NOW = Math.floor(Date.now() / MIN) * MIN;
const FULL = {
  error: {
    code: "no_space_left_on_device",
    message: expect.stringMatching(/^there is no space left on the device: the write was not stored/),
  },
};

/** What chDB's client throws when a part cannot reserve room, as the run store wraps it. */
function chdbFull(op: string): RunStoreQueryError {
  const engine = Object.assign(new Error("Cannot reserve 1.00 MiB, not enough space. "), {
    code: "243",
    type: "NOT_ENOUGH_SPACE",
  });
  return new RunStoreQueryError(`analytics database rejected ${op}: ${engine.message}`, { cause: engine });
}

/** The store with its writes failing as on a full disk while `full` is on; reads go through. */
function fullDisk<T extends object>(real: T, writes: readonly string[]): T & { full: boolean } {
  const state = { full: true };
  return new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === "full") return state.full;
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) =>
        state.full && writes.includes(String(prop))
          ? Promise.reject(chdbFull(String(prop)))
          : (v as (...a: unknown[]) => unknown).apply(target, args);
    },
    set(_target, prop, value) {
      if (prop !== "full") return false;
      state.full = Boolean(value);
      return true;
    },
  }) as T & { full: boolean };
}

describe("the monitor's writes when the analytics database's disk is full", () => {
  let store: ClickHouseRunStore;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ store, cleanup } = await openTempStore("svcmon-api-full-"));
  });
  afterAll(async () => {
    await cleanup();
  });

  it("answers a run batch, an account and a collector spec with 507, keeps status and reads working, and takes them once space returns", async () => {
    const runs = fullDisk<RunStore>(store, ["insertRuns", "upsertAccount"]);
    const registry = fullDisk<CollectorRegistry>(new InMemoryCollectorRegistry(), [
      "put",
      "registerIfAbsent",
    ]);
    const log = memoryLog();
    const app = makeApp({ store: runs, registry, log, now: () => NOW });
    const batch = [runAt(NOW - MIN, { run_id: uuid(71), collector: "full_disk" })];

    const ingest = await call(app, "POST", "/api/system/runs", { body: batch });
    expect(ingest).toMatchObject({ status: 507, body: FULL });
    const account = await call(app, "PUT", "/api/system/accounts/111111111111", {
      body: { account_name: "Prod", svc_status: "active" },
    });
    expect(account).toMatchObject({ status: 507, body: FULL });
    const spec = await call(app, "PUT", "/api/system/collectors/full_disk", {
      body: { expected_interval_minutes: 5 },
    });
    expect(spec).toMatchObject({ status: 507, body: FULL });
    // The cause is logged for the operator, not answered.
    expect(
      log.lines.some((l) => l.level === "error" && String(l.fields?.cause).includes("NOT_ENOUGH_SPACE")),
    ).toBe(true);
    expect((await call(app, "GET", "/api/system/status")).status).toBe(200);
    expect((await call(app, "GET", "/api/system/runs?collector=full_disk")).body.runs).toEqual([]);

    runs.full = false;
    registry.full = false;
    expect(await call(app, "POST", "/api/system/runs", { body: batch })).toMatchObject({
      status: 201,
      body: { stored: 1 },
    });
    expect((await call(app, "GET", "/api/system/runs?collector=full_disk")).body.runs).toHaveLength(1);
    expect(
      (await call(app, "PUT", "/api/system/collectors/full_disk", { body: { expected_interval_minutes: 5 } }))
        .status,
    ).toBe(200);
  });
});

describe("silences when the alerts database's disk is full", () => {
  it("answers a silence it cannot store with 507, keeps listing and expiring, and stores it once space returns", async () => {
    const db = new DatabaseSync(":memory:");
    const silences = new SqliteSilenceStore(db);
    const clock = { now: NOW };
    const app = makeApp({ store: {} as RunStore, silences, now: () => clock.now });
    const silence = (n: number) => ({
      matchers: { rule: "collector_failure", subject: { op: "prefix", value: `config_${n}/` } },
      author: "ann",
      reason: `maintenance ${n} ${"x".repeat(400)}`,
      ends_at: new Date(NOW + 60 * MIN).toISOString(),
    });
    const first = await call(app, "POST", "/api/system/silences", { body: silence(0) });
    expect(first.status).toBe(201);
    // No page may be added any more, as on a full disk.
    const { page_count } = db.prepare("PRAGMA page_count").get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${page_count}`);
    let stored = 1;
    let refused: Awaited<ReturnType<typeof call>> | null = null;
    while (refused === null && stored < 100) {
      const res = await call(app, "POST", "/api/system/silences", { body: silence(stored) });
      if (res.status === 201) stored++;
      else refused = res;
    }
    expect(refused).toMatchObject({ status: 507, body: FULL });
    const listed = await call(app, "GET", "/api/system/silences");
    expect(listed.body.silences).toHaveLength(stored);
    expect((await call(app, "DELETE", `/api/system/silences/${first.body.id}`)).status).toBe(200);

    db.exec("PRAGMA max_page_count = 4294967294");
    expect((await call(app, "POST", "/api/system/silences", { body: silence(stored) })).status).toBe(201);
    expect((await call(app, "GET", "/api/system/silences")).body.silences).toHaveLength(stored);
  });
});

// A real full disk for chDB: a 64 MB tmpfs filled up by a file, then freed.
const dir = mkdtempSync(join(tmpdir(), "svcmon-api-tmpfs-"));
const mounted =
  process.platform === "linux" &&
  spawnSync("mount", ["-t", "tmpfs", "-o", "size=64m,mode=0700", "tmpfs", dir], { stdio: "ignore" })
    .status === 0;

describe.skipIf(!mounted)("ingest on a full tmpfs (skipped where mounting is not allowed)", () => {
  let store: ClickHouseRunStore | undefined;
  afterAll(async () => {
    await store?.close();
    if (mounted) spawnSync("umount", ["-l", dir], { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 507 where chDB cannot reserve room for a part, stores nothing, and stores the batch once space is freed", async () => {
    store = openChdbRunStore(join(dir, "chdb"), { timeoutMs: 10_000 });
    await store.migrate();
    const app = makeApp({ store, now: () => NOW });
    const filler = join(dir, "filler");
    const fd = openSync(filler, "w");
    try {
      for (const size of [1 << 20, 4096]) {
        const chunk = Buffer.alloc(size);
        for (;;) writeSync(fd, chunk);
      }
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
    } finally {
      closeSync(fd);
    }
    expect(statSync(filler).size).toBeGreaterThan(0);
    const batch = [runAt(NOW - MIN, { run_id: uuid(72), collector: "tmpfs_full" })];
    const refused = await call(app, "POST", "/api/system/runs", { body: batch });
    expect(refused).toMatchObject({ status: 507, body: FULL });
    expect((await call(app, "GET", "/api/system/runs?collector=tmpfs_full")).body.runs).toEqual([]);
    expect((await call(app, "GET", "/api/system/status")).status).toBe(200);
    unlinkSync(filler);
    expect((await call(app, "POST", "/api/system/runs", { body: batch })).status).toBe(201);
    expect((await call(app, "GET", "/api/system/runs?collector=tmpfs_full")).body.runs).toHaveLength(1);
  });
});
