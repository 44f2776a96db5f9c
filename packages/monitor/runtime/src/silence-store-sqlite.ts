/**
 * The embedded stack's `SilenceStore`: a `silences` table in the alerts' SQLite file in DATA_DIR
 * (`alerts.sqlite`, beside the transitions and the alert state; `openTransitionDatabase`).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Silence, SilenceMatchers, SilenceStore } from "@monitor/core";
import { openTransitionDatabase } from "./transition-store-sqlite.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS silences (
  id TEXT PRIMARY KEY,
  matchers TEXT NOT NULL,
  author TEXT NOT NULL,
  reason TEXT NOT NULL,
  starts_at INTEGER NOT NULL,
  ends_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
`;

interface Row {
  id: string;
  matchers: string;
  author: string;
  reason: string;
  starts_at: number;
  ends_at: number;
  created_at: number;
}

function toSilence(r: Row): Silence {
  return {
    id: r.id,
    matchers: JSON.parse(r.matchers) as SilenceMatchers,
    author: r.author,
    reason: r.reason,
    startsAt: Number(r.starts_at),
    endsAt: Number(r.ends_at),
    createdAt: Number(r.created_at),
  };
}

export class SqliteSilenceStore implements SilenceStore {
  readonly #db: DatabaseSync;
  readonly #owns: boolean;
  readonly #insert: StatementSync;
  readonly #list: StatementSync;
  readonly #get: StatementSync;
  readonly #expire: StatementSync;
  readonly #prune: StatementSync;

  /** `path`: a file (e.g. `<DATA_DIR>/alerts.sqlite`), `:memory:`, or an open database. */
  constructor(path: string | DatabaseSync) {
    this.#owns = typeof path === "string";
    this.#db = typeof path === "string" ? openTransitionDatabase(path) : path;
    this.#db.exec(SCHEMA);
    const db = this.#db;
    this.#insert = db.prepare(
      `INSERT INTO silences (id, matchers, author, reason, starts_at, ends_at, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    );
    this.#list = db.prepare("SELECT * FROM silences ORDER BY created_at, id");
    this.#get = db.prepare("SELECT * FROM silences WHERE id = ?");
    this.#expire = db.prepare(
      `UPDATE silences SET ends_at = :at, starts_at = MIN(starts_at, :at) WHERE id = :id AND ends_at > :at`,
    );
    this.#prune = db.prepare("DELETE FROM silences WHERE ends_at < ?");
  }

  async create(s: Silence): Promise<boolean> {
    const r = this.#insert.run(
      s.id,
      JSON.stringify(s.matchers),
      s.author,
      s.reason,
      s.startsAt,
      s.endsAt,
      s.createdAt,
    );
    return Number(r.changes) === 1;
  }

  async list(): Promise<Silence[]> {
    return (this.#list.all() as unknown as Row[]).map(toSilence);
  }

  async expire(id: string, at: number): Promise<Silence | null> {
    this.#expire.run({ id, at });
    const r = this.#get.get(id) as Row | undefined;
    return r === undefined ? null : toSilence(r);
  }

  async prune(before: number): Promise<number> {
    return Number(this.#prune.run(before).changes);
  }

  close(): void {
    if (this.#owns && this.#db.isOpen) this.#db.close();
  }
}
