/**
 * The embedded stack's `EndedSessionStore`: an `ended_sessions` table in the alerts' SQLite file in
 * DATA_DIR (`alerts.sqlite`, beside the silences), so a logout holds across a restart and for every
 * process on the data folder.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { EndedSessionStore } from "@monitor/core";
import { openTransitionDatabase } from "./transition-store-sqlite.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ended_sessions (
  id TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
`;

export class SqliteEndedSessionStore implements EndedSessionStore {
  readonly #db: DatabaseSync;
  readonly #owns: boolean;
  readonly #end: StatementSync;
  readonly #get: StatementSync;
  readonly #prune: StatementSync;

  /** `path`: a file (e.g. `<DATA_DIR>/alerts.sqlite`), `:memory:`, or an open database. */
  constructor(path: string | DatabaseSync) {
    this.#owns = typeof path === "string";
    this.#db = typeof path === "string" ? openTransitionDatabase(path) : path;
    this.#db.exec(SCHEMA);
    this.#end = this.#db.prepare(
      `INSERT INTO ended_sessions (id, expires_at) VALUES (?, ?)
ON CONFLICT (id) DO UPDATE SET expires_at = MAX(expires_at, excluded.expires_at)`,
    );
    this.#get = this.#db.prepare("SELECT 1 AS ended FROM ended_sessions WHERE id = ?");
    this.#prune = this.#db.prepare("DELETE FROM ended_sessions WHERE expires_at < ?");
  }

  async end(id: string, expiresAt: number): Promise<void> {
    this.#end.run(id, expiresAt);
  }

  async ended(id: string): Promise<boolean> {
    return this.#get.get(id) !== undefined;
  }

  async prune(before: number): Promise<number> {
    return Number(this.#prune.run(before).changes);
  }

  close(): void {
    if (this.#owns && this.#db.isOpen) this.#db.close();
  }
}
