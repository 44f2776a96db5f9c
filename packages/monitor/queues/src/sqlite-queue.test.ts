import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { queueHealthContract } from "./contract/queue-health.contract.ts";
import { combineQueueHealth } from "./queue-health.ts";
import { openQueueDatabase, SqliteQueue } from "./sqlite-queue.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "svcmon-queue-"));
  dirs.push(d);
  return d;
}

/** A clock the test moves by hand. */
function manualClock(start = 1_750_000_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

queueHealthContract("embedded SQLite queue (node:sqlite)", async (setup, now) => {
  const dir = tempDir();
  // One file per queue, so breaking one (closing its file) leaves the others readable.
  const queues = setup.map((s) =>
    SqliteQueue.open(join(dir, `${s.name}.sqlite`), {
      name: s.name,
      deadLetter: s.dead_letters === null ? null : { name: `${s.name}-dlq`, maxReceives: 1 },
      now,
    }),
  );
  for (const [i, s] of setup.entries()) {
    const q = queues[i] as SqliteQueue;
    // Dead letters the way they happen: received maxReceives times, then moved on the next receive.
    if (s.dead_letters !== null && s.dead_letters > 0) {
      await q.send(Array.from({ length: s.dead_letters }, (_, k) => `dead ${k}`));
      expect(await q.receive({ max: 1000, visibilityTimeoutMs: 0 })).toHaveLength(s.dead_letters);
      expect(await q.receive({ max: 1000, visibilityTimeoutMs: 0 })).toHaveLength(0);
    }
    await q.send(Array.from({ length: s.visible + s.in_flight }, (_, k) => `live ${k}`));
    if (s.in_flight > 0) {
      expect(await q.receive({ max: s.in_flight, visibilityTimeoutMs: 60_000 })).toHaveLength(s.in_flight);
    }
  }
  const byName = new Map(setup.map((s, i) => [s.name, queues[i] as SqliteQueue]));
  return {
    source: combineQueueHealth(queues),
    async breakQueue(name) {
      byName.get(name)?.close();
    },
    async close() {
      for (const q of queues) q.close();
    },
  };
});

describe("SqliteQueue: SQS semantics", () => {
  it("a received message is hidden for the visibility timeout, then comes back with its receive count", async () => {
    const clock = manualClock();
    const q = SqliteQueue.open(join(tempDir(), "q.sqlite"), { name: "events", now: clock.now });
    expect(await q.send(["a", "b"])).toBe(2);
    const [first] = await q.receive({ max: 1, visibilityTimeoutMs: 30_000 });
    expect(first).toMatchObject({ body: "a", receive_count: 1, sent_at: clock.t });
    expect((await q.read())[0]).toMatchObject({ depth: 1, in_flight: 1 });
    // Only "b" is visible now.
    expect((await q.receive({ max: 10, visibilityTimeoutMs: 30_000 })).map((m) => m.body)).toEqual(["b"]);
    expect(await q.receive({ max: 10, visibilityTimeoutMs: 30_000 })).toEqual([]);
    clock.t += 29_999;
    expect(await q.receive({ max: 10, visibilityTimeoutMs: 30_000 })).toEqual([]);
    clock.t += 1;
    const again = await q.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    expect(again.map((m) => [m.body, m.receive_count])).toEqual([
      ["a", 2],
      ["b", 2],
    ]);
    expect(again[0]?.message_id).toBe(first?.message_id);
    expect(again[0]?.receipt).not.toBe(first?.receipt);
    q.close();
  });

  it("ack deletes the message of a current receipt; an old receipt deletes nothing", async () => {
    const clock = manualClock();
    const q = SqliteQueue.open(join(tempDir(), "q.sqlite"), { name: "events", now: clock.now });
    await q.send(["a"]);
    const [m1] = await q.receive({ max: 1, visibilityTimeoutMs: 1000 });
    clock.t += 1000;
    const [m2] = await q.receive({ max: 1, visibilityTimeoutMs: 1000 });
    expect(await q.ack([m1?.receipt as string])).toBe(0);
    expect((await q.read())[0]).toMatchObject({ depth: 0, in_flight: 1 });
    expect(await q.ack([m2?.receipt as string])).toBe(1);
    expect(await q.ack([m2?.receipt as string])).toBe(0);
    expect((await q.read())[0]).toMatchObject({ depth: 0, in_flight: 0 });
    clock.t += 5000;
    expect(await q.receive({ max: 10, visibilityTimeoutMs: 1000 })).toEqual([]);
    q.close();
  });

  it("a message received maxReceives times moves to the dead-letter queue on the next receive (redrive policy)", async () => {
    const clock = manualClock();
    const q = SqliteQueue.open(join(tempDir(), "q.sqlite"), {
      name: "events",
      deadLetter: { name: "events-dlq", maxReceives: 3 },
      now: clock.now,
    });
    await q.send(["poison"]);
    for (let i = 1; i <= 3; i++) {
      const got = await q.receive({ max: 1, visibilityTimeoutMs: 10 });
      expect(got.map((m) => m.receive_count)).toEqual([i]);
      clock.t += 10;
    }
    expect((await q.read())[0]).toMatchObject({ depth: 1, dead_letter_depth: 0 });
    expect(await q.receive({ max: 1, visibilityTimeoutMs: 10 })).toEqual([]);
    expect((await q.read())[0]).toMatchObject({
      depth: 0,
      in_flight: 0,
      dead_letter_queue: "events-dlq",
      dead_letter_depth: 1,
    });
    expect(await q.deadLetters()).toEqual([
      expect.objectContaining({
        body: "poison",
        source_queue: "events",
        receive_count: 3,
        moved_at: clock.t,
      }),
    ]);
    q.close();
  });

  it("dead letters can be moved back (redrive, with a fresh receive count) or purged", async () => {
    const clock = manualClock();
    const q = SqliteQueue.open(join(tempDir(), "q.sqlite"), {
      name: "events",
      deadLetter: { name: "events-dlq", maxReceives: 1 },
      now: clock.now,
    });
    await q.send(["a", "b", "c"]);
    await q.receive({ max: 10, visibilityTimeoutMs: 0 });
    expect(await q.receive({ max: 10, visibilityTimeoutMs: 0 })).toEqual([]);
    expect((await q.read())[0]?.dead_letter_depth).toBe(3);
    expect(await q.redriveDeadLetters(2)).toBe(2);
    expect((await q.read())[0]).toMatchObject({ depth: 2, dead_letter_depth: 1 });
    expect(
      (await q.receive({ max: 10, visibilityTimeoutMs: 60_000 })).map((m) => [m.body, m.receive_count]),
    ).toEqual([
      ["a", 1],
      ["b", 1],
    ]);
    expect(await q.purgeDeadLetters()).toBe(1);
    expect((await q.read())[0]).toMatchObject({ depth: 0, in_flight: 2, dead_letter_depth: 0 });
    q.close();
  });

  it("moving a message to the dead-letter queue frees its place in the batch", async () => {
    const clock = manualClock();
    const q = SqliteQueue.open(join(tempDir(), "q.sqlite"), {
      name: "events",
      deadLetter: { name: "events-dlq", maxReceives: 1 },
      now: clock.now,
    });
    await q.send(["old"]);
    await q.receive({ max: 1, visibilityTimeoutMs: 0 });
    await q.send(["x", "y"]);
    expect((await q.receive({ max: 2, visibilityTimeoutMs: 0 })).map((m) => m.body)).toEqual(["x", "y"]);
    expect((await q.read())[0]?.dead_letter_depth).toBe(1);
    q.close();
  });

  it("a queue without a dead-letter queue redelivers for ever", async () => {
    const clock = manualClock();
    const q = SqliteQueue.open(join(tempDir(), "q.sqlite"), {
      name: "events",
      deadLetter: null,
      now: clock.now,
    });
    await q.send(["again"]);
    for (let i = 1; i <= 20; i++) {
      expect((await q.receive({ max: 1, visibilityTimeoutMs: 0 })).map((m) => m.receive_count)).toEqual([i]);
    }
    expect((await q.read())[0]).toMatchObject({ dead_letter_queue: null, dead_letter_depth: null, depth: 1 });
    q.close();
  });

  it("queues sharing one file keep their messages and dead letters apart", async () => {
    const clock = manualClock();
    const db = openQueueDatabase(join(tempDir(), "shared.sqlite"));
    const a = new SqliteQueue(db, {
      name: "a",
      deadLetter: { name: "a-dlq", maxReceives: 1 },
      now: clock.now,
    });
    const b = new SqliteQueue(db, { name: "b", now: clock.now });
    await a.send(["a1"]);
    await b.send(["b1", "b2"]);
    expect((await a.receive({ max: 10, visibilityTimeoutMs: 0 })).map((m) => m.body)).toEqual(["a1"]);
    await a.receive({ max: 10, visibilityTimeoutMs: 0 });
    expect((await b.receive({ max: 10, visibilityTimeoutMs: 60_000 })).map((m) => m.body)).toEqual([
      "b1",
      "b2",
    ]);
    expect(
      [...(await a.read()), ...(await b.read())].map((q) => [
        q.name,
        q.depth,
        q.in_flight,
        q.dead_letter_depth,
      ]),
    ).toEqual([
      ["a", 0, 0, 1],
      ["b", 0, 2, 0],
    ]);
    // close() of a queue on a shared database leaves the database to its owner.
    a.close();
    expect((await b.read())[0]?.error).toBeNull();
    db.close();
  });

  it("refuses invalid names, dead-letter settings and receive arguments", async () => {
    const db = openQueueDatabase(":memory:");
    expect(() => new SqliteQueue(db, { name: "bad name" })).toThrow(/name must be/);
    expect(() => new SqliteQueue(db, { name: "q", deadLetter: { name: "q", maxReceives: 3 } })).toThrow(
      /deadLetter.name/,
    );
    expect(() => new SqliteQueue(db, { name: "q", deadLetter: { name: "q-dlq", maxReceives: 0 } })).toThrow(
      /maxReceives/,
    );
    const q = new SqliteQueue(db, { name: "q" });
    await expect(q.receive({ max: 0, visibilityTimeoutMs: 0 })).rejects.toThrow(/max must be/);
    await expect(q.receive({ max: 1, visibilityTimeoutMs: -1 })).rejects.toThrow(/visibilityTimeoutMs/);
    const ac = new AbortController();
    ac.abort(new Error("stop"));
    await expect(q.send(["x"], ac.signal)).rejects.toThrow("stop");
    expect((await q.read())[0]?.depth).toBe(0);
    db.close();
  });
});

describe("SqliteQueue: crash safety", () => {
  it("messages, receive counts and dead letters survive closing and reopening the file", async () => {
    const clock = manualClock();
    const path = join(tempDir(), "q.sqlite");
    const opts = { name: "events", deadLetter: { name: "events-dlq", maxReceives: 1 }, now: clock.now };
    const q1 = SqliteQueue.open(path, opts);
    await q1.send(["dead", "hidden", "waiting"]);
    await q1.receive({ max: 1, visibilityTimeoutMs: 0 });
    // "dead" moves to the dead-letter queue; "hidden" is delivered for a minute.
    await q1.receive({ max: 1, visibilityTimeoutMs: 60_000 });
    q1.close();
    const q2 = SqliteQueue.open(path, opts);
    expect((await q2.read())[0]).toMatchObject({ depth: 1, in_flight: 1, dead_letter_depth: 1 });
    expect(await q2.deadLetters()).toEqual([expect.objectContaining({ body: "dead", receive_count: 1 })]);
    // The receive count survived too: "hidden" was received once (= maxReceives), so it moves now.
    clock.t += 60_000;
    expect(
      (await q2.receive({ max: 10, visibilityTimeoutMs: 0 })).map((m) => [m.body, m.receive_count]),
    ).toEqual([["waiting", 1]]);
    expect((await q2.read())[0]?.dead_letter_depth).toBe(2);
    q2.close();
  });

  it("a process killed (SIGKILL) right after sending and receiving loses nothing", async () => {
    const path = join(tempDir(), "q.sqlite");
    const child = fileURLToPath(new URL("./test-support/queue-crash-child.ts", import.meta.url));
    const proc = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", child, path], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    proc.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
    });
    proc.stderr.setEncoding("utf8").on("data", (c: string) => {
      err += c;
    });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
      proc.on("exit", (_code, s) => resolve(s)),
    );
    expect({ signal, err }).toEqual({ signal: "SIGKILL", err: "" });
    const reported = JSON.parse(out.trim()) as { sent: number; received: number; receivedAt: number };
    expect(reported).toMatchObject({ sent: 25, received: 5 });

    // The child's clock was the real one; read at the time it received, then after the visibility timeout.
    let t = reported.receivedAt;
    const q = SqliteQueue.open(path, { name: "events", now: () => t });
    expect((await q.read())[0]).toMatchObject({ depth: 20, in_flight: 5, dead_letter_depth: 0 });
    t += 60_000;
    const back = await q.receive({ max: 100, visibilityTimeoutMs: 0 });
    expect(back).toHaveLength(25);
    expect(back.filter((m) => m.receive_count === 2)).toHaveLength(5);
    expect(new Set(back.map((m) => m.body)).size).toBe(25);
    q.close();
  });
});

describe("SqliteQueue: a full disk", () => {
  it("a send that cannot be stored throws SQLITE_FULL and stores none of the batch; sends resume when space returns", async () => {
    const db = openQueueDatabase(":memory:");
    const q = new SqliteQueue(db, { name: "events" });
    await q.send(["first"]);
    // No page may be added, as on a full disk: SQLite rolls the transaction back itself.
    const { page_count } = db.prepare("PRAGMA page_count").get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${page_count}`);
    const batch = Array.from({ length: 20 }, (_, i) => `${i}:${"x".repeat(10_000)}`);
    const error = await q.send(batch).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ERR_SQLITE_ERROR", errcode: 13 });
    expect((await q.read())[0]?.depth).toBe(1);
    db.exec("PRAGMA max_page_count = 4294967294");
    expect(await q.send(batch)).toBe(20);
    expect((await q.read())[0]?.depth).toBe(21);
  });
});
