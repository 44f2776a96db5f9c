/**
 * The embedded stack's `MaintenanceStore`: a `maintenance_windows` table in the alerts' SQLite file in
 * DATA_DIR (`alerts.sqlite`, beside the silences, the transitions and the alert state).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { MaintenanceScope, MaintenanceStore, MaintenanceWindow } from "@monitor/core";
import { openTransitionDatabase } from "./transition-store-sqlite.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS maintenance_windows (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  author TEXT NOT NULL,
  reason TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  timing TEXT NOT NULL,
  -- When it is over: ended early, or a one-off's end; NULL for a recurring window running its course.
  over_at INTEGER,
  ended_at INTEGER
);
`;

interface Row {
  id: string;
  scope: string;
  author: string;
  reason: string;
  created_at: number;
  timing: string;
  over_at: number | null;
  ended_at: number | null;
}

function toWindow(r: Row): MaintenanceWindow {
  return {
    id: r.id,
    scope: JSON.parse(r.scope) as MaintenanceScope,
    author: r.author,
    reason: r.reason,
    createdAt: Number(r.created_at),
    timing: JSON.parse(r.timing) as MaintenanceWindow["timing"],
    endedAt: r.ended_at === null ? null : Number(r.ended_at),
  };
}

export class SqliteMaintenanceStore implements MaintenanceStore {
  readonly #db: DatabaseSync;
  readonly #owns: boolean;
  readonly #insert: StatementSync;
  readonly #list: StatementSync;
  readonly #get: StatementSync;
  readonly #end: StatementSync;
  readonly #prune: StatementSync;

  /** `path`: a file (e.g. `<DATA_DIR>/alerts.sqlite`), `:memory:`, or an open database. */
  constructor(path: string | DatabaseSync) {
    this.#owns = typeof path === "string";
    this.#db = typeof path === "string" ? openTransitionDatabase(path) : path;
    this.#db.exec(SCHEMA);
    const db = this.#db;
    this.#insert = db.prepare(
      `INSERT INTO maintenance_windows (id, scope, author, reason, created_at, timing, over_at, ended_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    );
    this.#list = db.prepare("SELECT * FROM maintenance_windows ORDER BY created_at, id");
    this.#get = db.prepare("SELECT * FROM maintenance_windows WHERE id = ?");
    this.#end = db.prepare(
      `UPDATE maintenance_windows SET ended_at = :at, over_at = MIN(COALESCE(over_at, :at), :at)
WHERE id = :id AND (ended_at IS NULL OR ended_at > :at)`,
    );
    this.#prune = db.prepare("DELETE FROM maintenance_windows WHERE over_at IS NOT NULL AND over_at < ?");
  }

  async create(w: MaintenanceWindow): Promise<boolean> {
    const onceEnd = w.timing.kind === "once" ? w.timing.endsAt : null;
    const overAt = w.endedAt === null ? onceEnd : onceEnd === null ? w.endedAt : Math.min(onceEnd, w.endedAt);
    const r = this.#insert.run(
      w.id,
      JSON.stringify(w.scope),
      w.author,
      w.reason,
      w.createdAt,
      JSON.stringify(w.timing),
      overAt,
      w.endedAt,
    );
    return Number(r.changes) === 1;
  }

  async list(): Promise<MaintenanceWindow[]> {
    return (this.#list.all() as unknown as Row[]).map(toWindow);
  }

  async end(id: string, at: number): Promise<MaintenanceWindow | null> {
    this.#end.run({ id, at });
    const r = this.#get.get(id) as Row | undefined;
    return r === undefined ? null : toWindow(r);
  }

  async prune(before: number): Promise<number> {
    return Number(this.#prune.run(before).changes);
  }

  close(): void {
    if (this.#owns && this.#db.isOpen) this.#db.close();
  }
}
