import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Change, TableItem } from "../ports.ts";
import type { ChangeSource } from "../tailer.ts";

interface ChangeRow {
  seq: number;
  pk: string;
  sk: string;
  kind: Change["kind"];
  old_item: string | null;
  new_item: string | null;
}

const parseItem = (text: string | null): TableItem | null =>
  text === null ? null : (JSON.parse(text) as TableItem);

/** The embedded change stream: the `changes` table read in order, with a persisted cursor per consumer. */
export class SqliteChangeLog implements ChangeSource {
  private readonly readStmt: StatementSync;
  private readonly cursorStmt: StatementSync;
  private readonly commitStmt: StatementSync;
  private readonly parkStmt: StatementSync;
  private readonly latestStmt: StatementSync;
  private readonly name: string;

  /** The settings table must have been opened on `db` first (it creates the schema). */
  constructor(db: DatabaseSync, consumer = "ecom_settings_exporter") {
    this.name = consumer;
    this.readStmt = db.prepare(
      "SELECT seq, pk, sk, kind, old_item, new_item FROM changes WHERE seq > ? ORDER BY seq LIMIT ?",
    );
    this.cursorStmt = db.prepare("SELECT seq FROM cursors WHERE name = ?");
    this.commitStmt = db.prepare(
      "INSERT INTO cursors (name, seq) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET seq = excluded.seq",
    );
    this.parkStmt = db.prepare(
      "INSERT OR REPLACE INTO parked (seq, pk, sk, error, at) VALUES (?, ?, ?, ?, ?)",
    );
    this.latestStmt = db.prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM changes");
  }

  async cursor(): Promise<number> {
    const row = this.cursorStmt.get(this.name) as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  async read(after: number, limit: number): Promise<Change[]> {
    return (this.readStmt.all(after, limit) as unknown as ChangeRow[]).map((row) => ({
      sequence: String(row.seq),
      pk: row.pk,
      sk: row.sk,
      kind: row.kind,
      oldItem: parseItem(row.old_item),
      newItem: parseItem(row.new_item),
    }));
  }

  async commit(sequence: string): Promise<void> {
    this.commitStmt.run(this.name, Number(sequence));
  }

  async park(change: Change, error: string): Promise<void> {
    this.parkStmt.run(Number(change.sequence), change.pk, change.sk, error, new Date().toISOString());
  }

  /** The newest sequence number written (0 when none); the exporter's lag is this minus its cursor. */
  latest(): number {
    return (this.latestStmt.get() as { seq: number }).seq;
  }
}
