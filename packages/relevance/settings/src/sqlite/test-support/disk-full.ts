// A full disk for the SQLite adapters' tests, without a file system to fill: SQLite answers
// SQLITE_FULL ("database or disk is full") as soon as a write needs a page beyond max_page_count,
// and rolls the transaction back itself, as it does when the disk is full.
import type { DatabaseSync } from "node:sqlite";

/** From now on no write may add a page to `db` (writes that fit in the pages it has still succeed). */
export function fillDisk(db: DatabaseSync): void {
  const { page_count } = db.prepare("PRAGMA page_count").get() as { page_count: number };
  db.exec(`PRAGMA max_page_count = ${page_count}`);
}

/** Space is back: `db` may grow again (SQLite's own largest page count). */
export function freeDisk(db: DatabaseSync): void {
  db.exec("PRAGMA max_page_count = 4294967294");
}
