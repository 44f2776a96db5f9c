import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkpointInBackground } from "./checkpointer.ts";
import { openDatabase, transaction } from "./database.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function database() {
  const dir = mkdtempSync(join(tmpdir(), "checkpointer-"));
  dirs.push(dir);
  const path = join(dir, "settings.db");
  const db = openDatabase(path);
  db.exec("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
  return { db, path };
}

/** 8 MB in one transaction: past SQLite's 1,000-page (4 MB) automatic checkpoint. */
function write8MB(db: ReturnType<typeof openDatabase>): void {
  const insert = db.prepare("INSERT INTO blobs (body) VALUES (?)");
  transaction(db, () => {
    for (let i = 0; i < 128; i++) insert.run(new Uint8Array(64 * 1024).fill(i));
  });
}

const autocheckpoint = (db: ReturnType<typeof openDatabase>) =>
  (db.prepare("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

describe("WAL checkpoints in a worker thread", () => {
  it("leaves the committing connection's pages in the WAL; the worker copies them into the file", async () => {
    const { db, path } = database();
    const checkpointer = checkpointInBackground(db, path, { intervalMs: 20 });
    write8MB(db);
    // the COMMIT did not checkpoint: the database file is still small, the WAL holds the pages
    expect(statSync(path).size).toBeLessThan(1024 * 1024);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(8 * 1024 * 1024);
    await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(8 * 1024 * 1024), { timeout: 5000 });
    expect(db.prepare("SELECT count(*) AS n FROM blobs").get()).toEqual({ n: 128 });
    await checkpointer.stop();
    db.close();
  });

  it("without it, the same COMMIT checkpoints on the event loop (what it moves away)", () => {
    const { db, path } = database();
    write8MB(db);
    expect(statSync(path).size).toBeGreaterThan(8 * 1024 * 1024);
    db.close();
  });

  it("hands checkpoints back to the connection when stopped, or when the worker cannot run", async () => {
    const { db, path } = database();
    const checkpointer = checkpointInBackground(db, path, { intervalMs: 20 });
    expect(autocheckpoint(db)).toBe(0);
    await checkpointer.stop();
    expect(autocheckpoint(db)).toBe(1000);
    await checkpointer.stop();

    const errors: string[] = [];
    const broken = checkpointInBackground(db, join(path, "not-a-file", "x.db"), {
      intervalMs: 20,
      onError: (message) => errors.push(message),
    });
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]).toMatch(/^WAL checkpointer stopped: /);
    await vi.waitFor(() => expect(autocheckpoint(db)).toBe(1000));
    await broken.stop();
    db.close();
  });
});
