import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Document, DocumentStore } from "../ports.ts";
import { transaction } from "./database.ts";

/**
 * The embedded document store (the `DocumentStore` port; Meilisearch holds the
 * documents in production). One row per document, keyed by account, index and primary-key value.
 */
export class SqliteDocumentStore implements DocumentStore {
  private readonly db: DatabaseSync;
  private readonly upsertStmt: StatementSync;
  private readonly countStmt: StatementSync;
  private readonly listStmt: StatementSync;
  private readonly deleteStmt: StatementSync;

  constructor(db: DatabaseSync) {
    this.db = db;
    db.exec(`CREATE TABLE IF NOT EXISTS documents (
      account TEXT NOT NULL, index_name TEXT NOT NULL, doc_id TEXT NOT NULL, body TEXT NOT NULL,
      PRIMARY KEY (account, index_name, doc_id)
    ) WITHOUT ROWID`);
    this.upsertStmt = db.prepare(
      "INSERT INTO documents (account, index_name, doc_id, body) VALUES (?, ?, ?, ?) ON CONFLICT(account, index_name, doc_id) DO UPDATE SET body = excluded.body",
    );
    this.countStmt = db.prepare("SELECT COUNT(*) AS n FROM documents WHERE account = ? AND index_name = ?");
    this.listStmt = db.prepare(
      "SELECT body FROM documents WHERE account = ? AND index_name = ? ORDER BY doc_id LIMIT ? OFFSET ?",
    );
    this.deleteStmt = db.prepare("DELETE FROM documents WHERE account = ? AND index_name = ?");
  }

  /** Inserts or replaces every document by `String(doc[primaryKey])` in one transaction: all or nothing. */
  async upsert(account: string, index: string, primaryKey: string, docs: readonly Document[]): Promise<void> {
    transaction(this.db, () => {
      for (const doc of docs) {
        const id = doc[primaryKey];
        if (typeof id !== "string" && typeof id !== "number") {
          throw new TypeError(`a document has no usable primary key ${primaryKey}`);
        }
        this.upsertStmt.run(account, index, String(id), JSON.stringify(doc));
      }
    });
  }

  async count(account: string, index: string): Promise<number> {
    return (this.countStmt.get(account, index) as { n: number }).n;
  }

  async list(account: string, index: string, offset: number, limit: number): Promise<Document[]> {
    const rows = this.listStmt.all(account, index, limit, offset) as { body: string }[];
    return rows.map((row) => JSON.parse(row.body) as Document);
  }

  async deleteIndex(account: string, index: string): Promise<void> {
    this.deleteStmt.run(account, index);
  }
}
