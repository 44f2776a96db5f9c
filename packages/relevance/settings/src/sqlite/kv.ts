import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Kv, KvWriteTimes } from "../ports.ts";

/** The embedded default for the edge KV store: one SQLite table, shared by the exporter and search. */
export class SqliteKv implements Kv, KvWriteTimes {
  private readonly getStmt: StatementSync;
  private readonly putStmt: StatementSync;
  private readonly insertStmt: StatementSync;
  private readonly deleteStmt: StatementSync;
  private readonly listStmt: StatementSync;
  private readonly timesStmt: StatementSync;

  constructor(db: DatabaseSync) {
    db.exec(
      "CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL)",
    );
    this.getStmt = db.prepare("SELECT value FROM kv WHERE key = ?");
    this.putStmt = db.prepare(
      "INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    );
    this.insertStmt = db.prepare(
      "INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO NOTHING",
    );
    this.deleteStmt = db.prepare("DELETE FROM kv WHERE key = ?");
    // Prefix match by range, so that % and _ in a prefix are not wildcards.
    this.listStmt = db.prepare("SELECT key FROM kv WHERE key >= ? AND key < ? ORDER BY key");
    this.timesStmt = db.prepare("SELECT key, updated_at FROM kv WHERE key >= ? AND key < ? ORDER BY key");
  }

  async get(key: string): Promise<string | null> {
    const row = this.getStmt.get(key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  async put(key: string, value: string): Promise<void> {
    this.putStmt.run(key, value, new Date().toISOString());
  }

  /**
   * Puts only when the key is absent, in one statement, so no other writer's value (another process
   * sharing the file included) is ever replaced; answers whether it wrote.
   */
  async putIfAbsent(key: string, value: string): Promise<boolean> {
    return Number(this.insertStmt.run(key, value, new Date().toISOString()).changes) > 0;
  }

  async delete(key: string): Promise<void> {
    this.deleteStmt.run(key);
  }

  async list(prefix: string): Promise<string[]> {
    const rows = this.listStmt.all(prefix, `${prefix}\u{10ffff}`) as { key: string }[];
    return rows.map((r) => r.key);
  }

  /** Every row already carries its write time (`updated_at`): a stamped put is a put. */
  async putStamped(key: string, value: string): Promise<void> {
    await this.put(key, value);
  }

  /** The rows' write times; the store's clock is this machine's (the database is a local file). */
  async writeTimes(prefix: string): Promise<{ times: Map<string, string>; storeNow: Date | null }> {
    const rows = this.timesStmt.all(prefix, `${prefix}\u{10ffff}`) as { key: string; updated_at: string }[];
    return { times: new Map(rows.map((r) => [r.key, r.updated_at])), storeNow: new Date() };
  }
}
