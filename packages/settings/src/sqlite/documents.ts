import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Document, EditableDocumentStore } from "../ports.ts";
import { transaction } from "./database.ts";

/**
 * The embedded document store (the `DocumentStore` port; Meilisearch holds the
 * documents in production). One row per document, keyed by account, index and primary-key value.
 *
 * Every write that changes an index's documents also increments that index's row in
 * `document_revisions`, in the same transaction, so readers (the embedded search engine) can tell
 * cheaply whether what they built from the documents is still current. The revision row outlives
 * `deleteIndex` on purpose: revisions never go back, so an index deleted and written again can
 * never be mistaken for an earlier state that had the same revision number.
 */
export class SqliteDocumentStore implements EditableDocumentStore {
  private readonly db: DatabaseSync;
  private readonly upsertStmt: StatementSync;
  private readonly countStmt: StatementSync;
  private readonly listStmt: StatementSync;
  private readonly listFirstStmt: StatementSync;
  private readonly listAfterStmt: StatementSync;
  private readonly deleteStmt: StatementSync;
  private readonly bumpStmt: StatementSync;
  private readonly revisionStmt: StatementSync;
  private readonly getStmt: StatementSync;
  private readonly deleteOneStmt: StatementSync;

  constructor(db: DatabaseSync) {
    this.db = db;
    db.exec(`CREATE TABLE IF NOT EXISTS documents (
      account TEXT NOT NULL, index_name TEXT NOT NULL, doc_id TEXT NOT NULL, body TEXT NOT NULL,
      PRIMARY KEY (account, index_name, doc_id)
    ) WITHOUT ROWID`);
    db.exec(`CREATE TABLE IF NOT EXISTS document_revisions (
      account TEXT NOT NULL, index_name TEXT NOT NULL, revision INTEGER NOT NULL,
      PRIMARY KEY (account, index_name)
    ) WITHOUT ROWID`);
    this.upsertStmt = db.prepare(
      "INSERT INTO documents (account, index_name, doc_id, body) VALUES (?, ?, ?, ?) ON CONFLICT(account, index_name, doc_id) DO UPDATE SET body = excluded.body",
    );
    this.countStmt = db.prepare("SELECT COUNT(*) AS n FROM documents WHERE account = ? AND index_name = ?");
    this.listStmt = db.prepare(
      "SELECT body FROM documents WHERE account = ? AND index_name = ? ORDER BY doc_id LIMIT ? OFFSET ?",
    );
    this.listFirstStmt = db.prepare(
      "SELECT doc_id, body FROM documents WHERE account = ? AND index_name = ? ORDER BY doc_id LIMIT ? OFFSET ?",
    );
    this.listAfterStmt = db.prepare(
      "SELECT doc_id, body FROM documents WHERE account = ? AND index_name = ? AND doc_id > ? ORDER BY doc_id LIMIT ?",
    );
    this.deleteStmt = db.prepare("DELETE FROM documents WHERE account = ? AND index_name = ?");
    this.bumpStmt = db.prepare(
      "INSERT INTO document_revisions (account, index_name, revision) VALUES (?, ?, 1) ON CONFLICT(account, index_name) DO UPDATE SET revision = revision + 1",
    );
    this.revisionStmt = db.prepare(
      "SELECT revision FROM document_revisions WHERE account = ? AND index_name = ?",
    );
    this.getStmt = db.prepare(
      "SELECT body FROM documents WHERE account = ? AND index_name = ? AND doc_id = ?",
    );
    this.deleteOneStmt = db.prepare(
      "DELETE FROM documents WHERE account = ? AND index_name = ? AND doc_id = ?",
    );
  }

  /**
   * Inserts or replaces every document by `String(doc[primaryKey])` in one transaction: all or
   * nothing. A non-empty batch increments the index's revision in the same transaction; an empty
   * one changes nothing.
   */
  async upsert(account: string, index: string, primaryKey: string, docs: readonly Document[]): Promise<void> {
    if (docs.length === 0) return;
    transaction(this.db, () => {
      for (const doc of docs) {
        const id = doc[primaryKey];
        if (typeof id !== "string" && typeof id !== "number") {
          throw new TypeError(`a document has no usable primary key ${primaryKey}`);
        }
        this.upsertStmt.run(account, index, String(id), JSON.stringify(doc));
      }
      this.bumpStmt.run(account, index);
    });
  }

  async count(account: string, index: string): Promise<number> {
    return (this.countStmt.get(account, index) as { n: number }).n;
  }

  async list(account: string, index: string, offset: number, limit: number): Promise<Document[]> {
    const rows = this.listStmt.all(account, index, limit, offset) as { body: string }[];
    return rows.map((row) => JSON.parse(row.body) as Document);
  }

  /**
   * Batches of at most 16 rows, each batch a finished statement (no cursor stays open between
   * yields, when writes may come): the first by OFFSET, each next one after the last id seen.
   */
  async *listJson(account: string, index: string, offset: number, limit: number): AsyncIterable<string> {
    const BATCH = 16;
    type Row = { doc_id: string; body: string };
    let left = limit;
    let rows = this.listFirstStmt.all(account, index, Math.min(BATCH, left), offset) as Row[];
    while (rows.length > 0) {
      for (const row of rows) yield row.body;
      left -= rows.length;
      const last = rows.at(-1) as Row;
      if (rows.length < BATCH || left <= 0) return;
      rows = this.listAfterStmt.all(account, index, last.doc_id, Math.min(BATCH, left)) as Row[];
    }
  }

  /** Deletes the index's documents; when there were any, increments its revision in the same transaction. */
  async deleteIndex(account: string, index: string): Promise<void> {
    transaction(this.db, () => {
      if (Number(this.deleteStmt.run(account, index).changes) > 0) this.bumpStmt.run(account, index);
    });
  }

  /** The index's revision: 0 when its documents were never written, +1 on every change since. */
  async revision(account: string, index: string): Promise<number> {
    const row = this.revisionStmt.get(account, index) as { revision: number } | undefined;
    return row?.revision ?? 0;
  }

  async getMany(account: string, index: string, ids: readonly string[]): Promise<Map<string, Document>> {
    const found = new Map<string, Document>();
    for (const id of ids) {
      const row = this.getStmt.get(account, index, id) as { body: string } | undefined;
      if (row !== undefined) found.set(id, JSON.parse(row.body) as Document);
    }
    return found;
  }

  /** Deletes the documents among `ids` in one transaction; when any existed, increments the revision in it. */
  async deleteMany(account: string, index: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return transaction(this.db, () => {
      let deleted = 0;
      for (const id of new Set(ids)) deleted += Number(this.deleteOneStmt.run(account, index, id).changes);
      if (deleted > 0) this.bumpStmt.run(account, index);
      return deleted;
    });
  }
}
