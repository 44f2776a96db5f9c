import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** Opens (creating folders as needed) a SQLite file in WAL mode, so readers never block the writer. */
export function openDatabase(path: string): DatabaseSync {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
  return db;
}

/**
 * Runs `work` in one write transaction (BEGIN IMMEDIATE takes the write lock up front): all of it is
 * stored, or none of it and the error that stopped it is thrown. SQLite ends a transaction itself
 * when a statement or the COMMIT fails with SQLITE_FULL, SQLITE_IOERR or SQLITE_NOMEM (a full disk):
 * it is rolled back only while it is still open, and a failing ROLLBACK never hides that error.
 */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    rollbackAfter(db, error);
    throw error;
  }
}

/** Rolls back what `failure` left open, if anything; the failure, not the rollback's, is the one to report. */
export function rollbackAfter(db: DatabaseSync, failure: unknown): void {
  if (!db.isOpen || !db.isTransaction) return;
  try {
    db.exec("ROLLBACK");
  } catch (rollback) {
    // The connection is in an unknown state: say so beside the original failure, never instead of it.
    if (failure instanceof Error && failure.cause === undefined) failure.cause = rollback;
  }
}
