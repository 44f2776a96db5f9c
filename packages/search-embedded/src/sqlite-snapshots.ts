import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { IndexSnapshot, IndexSnapshotStore } from "./snapshots.ts";

/** Index snapshots in a SQLite table, normally in the same database file as the documents. */
export class SqliteIndexSnapshotStore implements IndexSnapshotStore {
  private readonly getStmt: StatementSync;
  private readonly putStmt: StatementSync;

  constructor(db: DatabaseSync) {
    db.exec(`CREATE TABLE IF NOT EXISTS search_index_snapshots (
      account TEXT NOT NULL, index_name TEXT NOT NULL, revision INTEGER NOT NULL, body TEXT NOT NULL,
      PRIMARY KEY (account, index_name)
    ) WITHOUT ROWID`);
    this.getStmt = db.prepare(
      "SELECT revision, body FROM search_index_snapshots WHERE account = ? AND index_name = ?",
    );
    // A slower writer that built from an older revision must not replace a newer snapshot.
    this.putStmt = db.prepare(
      `INSERT INTO search_index_snapshots (account, index_name, revision, body) VALUES (?, ?, ?, ?)
       ON CONFLICT(account, index_name) DO UPDATE SET revision = excluded.revision, body = excluded.body
       WHERE excluded.revision >= search_index_snapshots.revision`,
    );
  }

  async get(account: string, index: string): Promise<IndexSnapshot | null> {
    const row = this.getStmt.get(account, index) as { revision: number; body: string } | undefined;
    return row === undefined ? null : { revision: row.revision, json: row.body };
  }

  async put(account: string, index: string, snapshot: IndexSnapshot): Promise<void> {
    this.putStmt.run(account, index, snapshot.revision, snapshot.json);
  }
}
