import type { DatabaseSync, StatementSync } from "node:sqlite";
import type {
  Change,
  DeleteResult,
  SettingsTable,
  TableItem,
  WriteCondition,
  WriteResult,
} from "../ports.ts";
import { transaction } from "./database.ts";

interface ItemRow {
  pk: string;
  sk: string;
  version: number;
  attributes: string;
}

const toItem = (row: ItemRow): TableItem => ({
  pk: row.pk,
  sk: row.sk,
  version: row.version,
  attributes: JSON.parse(row.attributes) as Record<string, unknown>,
});

const holds = (condition: WriteCondition, current: TableItem | null): boolean =>
  "always" in condition ||
  ("mustNotExist" in condition
    ? current === null
    : current !== null && current.version === condition.expectedVersion);

const SCHEMA = `
CREATE TABLE IF NOT EXISTS items (
  pk TEXT NOT NULL, sk TEXT NOT NULL, version INTEGER NOT NULL, attributes TEXT NOT NULL,
  PRIMARY KEY (pk, sk)
) WITHOUT ROWID;
-- The change stream: written in the same transaction as the item, read in order by the exporter.
CREATE TABLE IF NOT EXISTS changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, pk TEXT NOT NULL, sk TEXT NOT NULL, kind TEXT NOT NULL,
  old_item TEXT, new_item TEXT, at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cursors (name TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS parked (
  seq INTEGER PRIMARY KEY, pk TEXT NOT NULL, sk TEXT NOT NULL, error TEXT NOT NULL, at TEXT NOT NULL
);`;

/**
 * The embedded settings table. Every write appends its change (old and new image) to `changes`
 * in the same transaction, so the change stream can never miss or reorder a write.
 */
export class SqliteSettingsTable implements SettingsTable {
  private readonly db: DatabaseSync;
  private readonly getStmt: StatementSync;
  private readonly upsertStmt: StatementSync;
  private readonly deleteStmt: StatementSync;
  private readonly queryStmt: StatementSync;
  private readonly changeStmt: StatementSync;
  private readonly listeners = new Set<() => void>();

  constructor(db: DatabaseSync) {
    this.db = db;
    db.exec(SCHEMA);
    this.getStmt = db.prepare("SELECT pk, sk, version, attributes FROM items WHERE pk = ? AND sk = ?");
    this.upsertStmt = db.prepare(
      "INSERT INTO items (pk, sk, version, attributes) VALUES (?, ?, ?, ?) ON CONFLICT(pk, sk) DO UPDATE SET version = excluded.version, attributes = excluded.attributes",
    );
    this.deleteStmt = db.prepare("DELETE FROM items WHERE pk = ? AND sk = ?");
    this.queryStmt = db.prepare(
      "SELECT pk, sk, version, attributes FROM items WHERE pk = ? AND sk >= ? AND sk < ? ORDER BY sk",
    );
    this.changeStmt = db.prepare(
      "INSERT INTO changes (pk, sk, kind, old_item, new_item, at) VALUES (?, ?, ?, ?, ?, ?)",
    );
  }

  /** Called after every committed change (the embedded exporter wakes up on it). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async get(pk: string, sk: string): Promise<TableItem | null> {
    return this.read(pk, sk);
  }

  async put(
    pk: string,
    sk: string,
    attributes: Record<string, unknown>,
    condition: WriteCondition,
  ): Promise<WriteResult> {
    const result = transaction(this.db, (): WriteResult => {
      const current = this.read(pk, sk);
      if (!holds(condition, current)) return { ok: false, reason: "conflict", current };
      const item: TableItem = { pk, sk, version: (current?.version ?? 0) + 1, attributes };
      this.write(current, item);
      return { ok: true, item };
    });
    if (result.ok) this.notify();
    return result;
  }

  async delete(pk: string, sk: string, condition: WriteCondition): Promise<DeleteResult> {
    const result = transaction(this.db, (): DeleteResult => {
      const current = this.read(pk, sk);
      if (current === null || !holds(condition, current)) return { ok: false, reason: "conflict", current };
      this.deleteStmt.run(pk, sk);
      this.record("remove", current, null);
      return { ok: true, old: current };
    });
    if (result.ok) this.notify();
    return result;
  }

  async query(pk: string, skPrefix: string): Promise<TableItem[]> {
    return (this.queryStmt.all(pk, skPrefix, `${skPrefix}\u{10ffff}`) as unknown as ItemRow[]).map(toItem);
  }

  async setAttribute(pk: string, sk: string, name: string, value: unknown): Promise<TableItem | null> {
    const item = transaction(this.db, () => {
      const current = this.read(pk, sk);
      if (current === null) return null;
      const attributes = { ...current.attributes };
      if (value === undefined) delete attributes[name];
      else attributes[name] = value;
      const next: TableItem = { pk, sk, version: current.version + 1, attributes };
      this.write(current, next);
      return next;
    });
    if (item !== null) this.notify();
    return item;
  }

  private read(pk: string, sk: string): TableItem | null {
    const row = this.getStmt.get(pk, sk) as ItemRow | undefined;
    return row === undefined ? null : toItem(row);
  }

  private write(current: TableItem | null, item: TableItem): void {
    this.upsertStmt.run(item.pk, item.sk, item.version, JSON.stringify(item.attributes));
    this.record(current === null ? "insert" : "modify", current, item);
  }

  private record(kind: Change["kind"], oldItem: TableItem | null, newItem: TableItem | null): void {
    const key = (newItem ?? oldItem) as TableItem;
    this.changeStmt.run(
      key.pk,
      key.sk,
      kind,
      oldItem && JSON.stringify(oldItem),
      newItem && JSON.stringify(newItem),
      new Date().toISOString(),
    );
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
