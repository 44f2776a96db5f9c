import type { DatabaseSync, StatementSync } from "node:sqlite";
import { transaction } from "@relevance/settings/sqlite";
import type { IndexSnapshot, IndexSnapshotStore } from "./snapshots.ts";

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Index snapshots in SQLite, normally in the same database file as the documents: a head row per
 * index (its revision and which generation of parts is current) and the parts, one row each. A put
 * writes its parts one statement at a time, giving the event loop back between them, under a new
 * generation; one short transaction then makes them current (unless a later revision's snapshot is
 * there) and drops the old ones. A get reads the parts one at a time too.
 */
export class SqliteIndexSnapshotStore implements IndexSnapshotStore {
  private readonly db: DatabaseSync;
  private readonly stmts: Record<
    "head" | "part" | "putPart" | "setHead" | "dropParts" | "generation",
    StatementSync
  >;

  constructor(db: DatabaseSync) {
    this.db = db;
    db.exec(`CREATE TABLE IF NOT EXISTS search_index_heads (
      account TEXT NOT NULL, index_name TEXT NOT NULL, revision INTEGER NOT NULL,
      generation INTEGER NOT NULL, parts INTEGER NOT NULL,
      PRIMARY KEY (account, index_name)
    ) WITHOUT ROWID`);
    db.exec(`CREATE TABLE IF NOT EXISTS search_index_parts (
      account TEXT NOT NULL, index_name TEXT NOT NULL, generation INTEGER NOT NULL, seq INTEGER NOT NULL,
      body TEXT NOT NULL, PRIMARY KEY (account, index_name, generation, seq)
    ) WITHOUT ROWID`);
    // Snapshots of the one-piece format before parts: rebuilt once instead.
    db.exec("DROP TABLE IF EXISTS search_index_snapshots");
    // Parts of a write that never became current (the process stopped during it).
    db.exec(`DELETE FROM search_index_parts WHERE NOT EXISTS (SELECT 1 FROM search_index_heads h
      WHERE h.account = search_index_parts.account AND h.index_name = search_index_parts.index_name
        AND h.generation = search_index_parts.generation)`);
    this.stmts = {
      head: db.prepare(
        "SELECT revision, generation, parts FROM search_index_heads WHERE account = ? AND index_name = ?",
      ),
      part: db.prepare(
        "SELECT body FROM search_index_parts WHERE account = ? AND index_name = ? AND generation = ? AND seq = ?",
      ),
      putPart: db.prepare(
        "INSERT OR REPLACE INTO search_index_parts (account, index_name, generation, seq, body) VALUES (?, ?, ?, ?, ?)",
      ),
      setHead: db.prepare(
        `INSERT INTO search_index_heads (account, index_name, revision, generation, parts) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(account, index_name) DO UPDATE SET revision = excluded.revision,
           generation = excluded.generation, parts = excluded.parts`,
      ),
      dropParts: db.prepare(
        "DELETE FROM search_index_parts WHERE account = ? AND index_name = ? AND generation = ?",
      ),
      generation: db.prepare(
        "SELECT COALESCE(MAX(generation), 0) AS g FROM search_index_parts WHERE account = ? AND index_name = ?",
      ),
    };
  }

  async get(account: string, index: string): Promise<IndexSnapshot | null> {
    const head = this.stmts.head.get(account, index) as
      | { revision: number; generation: number; parts: number }
      | undefined;
    if (head === undefined) return null;
    const parts: (string | Uint8Array)[] = [];
    for (let seq = 0; seq < head.parts; seq++) {
      // Text comes back as a string, bytes (a BLOB in the same column) as a Uint8Array.
      const row = this.stmts.part.get(account, index, head.generation, seq) as
        | { body: string | Uint8Array }
        | undefined;
      // Replaced while it was read: the caller rebuilds.
      if (row === undefined) return null;
      parts.push(row.body);
      await nextTick();
    }
    return { revision: head.revision, parts };
  }

  async put(account: string, index: string, snapshot: IndexSnapshot): Promise<void> {
    const current = this.stmts.head.get(account, index) as
      | { revision: number; generation: number }
      | undefined;
    // A slower writer that built from an older revision must not replace a newer snapshot.
    if (current !== undefined && current.revision > snapshot.revision) return;
    const generation =
      Math.max(current?.generation ?? 0, (this.stmts.generation.get(account, index) as { g: number }).g) + 1;
    for (const [seq, body] of snapshot.parts.entries()) {
      this.stmts.putPart.run(account, index, generation, seq, body);
      await nextTick();
    }
    transaction(this.db, () => {
      const head = this.stmts.head.get(account, index) as
        | { revision: number; generation: number }
        | undefined;
      if (head !== undefined && head.revision > snapshot.revision) {
        this.stmts.dropParts.run(account, index, generation);
        return;
      }
      this.stmts.setHead.run(account, index, snapshot.revision, generation, snapshot.parts.length);
      if (head !== undefined) this.stmts.dropParts.run(account, index, head.generation);
    });
  }
}

/**
 * Drops the tables SqliteIndexSnapshotStore keeps in `db`: for a program that moved its snapshots
 * elsewhere (npm start keeps them as files since issue 29), so the old parts stop taking room.
 */
export function dropSqliteIndexSnapshots(db: DatabaseSync): void {
  db.exec("DROP TABLE IF EXISTS search_index_parts; DROP TABLE IF EXISTS search_index_heads;");
}
