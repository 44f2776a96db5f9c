/**
 * The embedded stack's `TransitionStore` (docs/monitor-alerts.md "Transitions"): SQLite through
 * `node:sqlite` in DATA_DIR. chDB has no conditional writes; SQLite does: each claim, confirmation and
 * state save is one `UPDATE … WHERE <condition>` (or `INSERT … ON CONFLICT DO NOTHING`) whose change
 * count says whether it won, so several processes on one file never both win (WAL, busy timeout).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import {
  type AlertState,
  byAtThenId,
  type ClaimResult,
  emptyState,
  type PutStateResult,
  type Transition,
  type TransitionRow,
  type TransitionStore,
} from "@monitor/core";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS alert_transitions (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  rule TEXT NOT NULL,
  subject TEXT NOT NULL,
  at INTEGER NOT NULL,
  data TEXT NOT NULL,
  claimed_by TEXT,
  lease_until INTEGER,
  sent_at INTEGER,
  retired_at INTEGER
);
CREATE INDEX IF NOT EXISTS alert_transitions_unsent ON alert_transitions (at) WHERE sent_at IS NULL;
CREATE TABLE IF NOT EXISTS alert_state (
  key TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  state TEXT NOT NULL
);
`;

const STATE_KEY = "monitor";

interface Row {
  id: string;
  kind: string;
  rule: string;
  subject: string;
  at: number;
  data: string;
  claimed_by: string | null;
  lease_until: number | null;
  sent_at: number | null;
  retired_at: number | null;
}

function toRow(r: Row): TransitionRow {
  return {
    id: r.id,
    kind: r.kind as Transition["kind"],
    rule: r.rule,
    subject: r.subject,
    at: Number(r.at),
    data: JSON.parse(r.data) as unknown,
    claimedBy: r.claimed_by,
    leaseUntil: r.lease_until === null ? null : Number(r.lease_until),
    sentAt: r.sent_at === null ? null : Number(r.sent_at),
    retiredAt: r.retired_at === null ? null : Number(r.retired_at),
  };
}

/** Opens (creating folders as needed) the file: WAL, fsync on every commit, schema applied. */
export function openTransitionDatabase(path: string): DatabaseSync {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
  db.exec(SCHEMA);
  return db;
}

export class SqliteTransitionStore implements TransitionStore {
  readonly #db: DatabaseSync;
  readonly #owns: boolean;
  readonly #insert: StatementSync;
  readonly #get: StatementSync;
  readonly #claim: StatementSync;
  readonly #sent: StatementSync;
  readonly #release: StatementSync;
  readonly #unsent: StatementSync;
  readonly #retire: StatementSync;
  readonly #readState: StatementSync;
  readonly #insertState: StatementSync;
  readonly #updateState: StatementSync;

  /** `path`: a file (e.g. `<DATA_DIR>/alerts.sqlite`), `:memory:`, or an open database. */
  constructor(path: string | DatabaseSync) {
    this.#owns = typeof path === "string";
    this.#db = typeof path === "string" ? openTransitionDatabase(path) : path;
    if (!this.#owns) this.#db.exec(SCHEMA);
    const db = this.#db;
    this.#insert = db.prepare(
      `INSERT INTO alert_transitions (id, kind, rule, subject, at, data) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO NOTHING`,
    );
    this.#get = db.prepare("SELECT * FROM alert_transitions WHERE id = ?");
    this.#claim = db.prepare(
      `UPDATE alert_transitions SET claimed_by = :who, lease_until = :until
WHERE id = :id AND sent_at IS NULL
  AND (claimed_by IS NULL OR claimed_by = :who OR lease_until IS NULL OR lease_until <= :now)`,
    );
    this.#sent = db.prepare(
      "UPDATE alert_transitions SET sent_at = :now WHERE id = :id AND claimed_by = :who AND sent_at IS NULL",
    );
    this.#release = db.prepare(
      "UPDATE alert_transitions SET lease_until = NULL WHERE id = :id AND claimed_by = :who AND sent_at IS NULL",
    );
    this.#unsent = db.prepare(
      `SELECT * FROM alert_transitions WHERE kind = 'notification' AND sent_at IS NULL AND retired_at IS NULL
  AND (lease_until IS NULL OR lease_until <= ?) ORDER BY at, id`,
    );
    this.#retire = db.prepare(
      "UPDATE alert_transitions SET retired_at = ? WHERE id = ? AND sent_at IS NULL AND retired_at IS NULL",
    );
    this.#readState = db.prepare("SELECT version, state FROM alert_state WHERE key = ?");
    this.#insertState = db.prepare(
      "INSERT INTO alert_state (key, version, state) VALUES (?, 1, ?) ON CONFLICT (key) DO NOTHING",
    );
    this.#updateState = db.prepare(
      "UPDATE alert_state SET version = version + 1, state = :state WHERE key = :key AND version = :expected",
    );
  }

  async record(t: Transition): Promise<boolean> {
    const r = this.#insert.run(t.id, t.kind, t.rule, t.subject, t.at, JSON.stringify(t.data ?? null));
    return Number(r.changes) === 1;
  }

  async get(id: string): Promise<TransitionRow | null> {
    const r = this.#get.get(id) as Row | undefined;
    return r === undefined ? null : toRow(r);
  }

  async claim(id: string, claimant: string, now: number, leaseMs: number): Promise<ClaimResult> {
    const r = this.#claim.run({ id, who: claimant, now, until: now + leaseMs });
    if (Number(r.changes) === 1) return { ok: true };
    const row = await this.get(id);
    if (row === null) return { ok: false, sent: false, heldBy: null };
    return { ok: false, sent: row.sentAt !== null, heldBy: row.claimedBy };
  }

  async markSent(id: string, claimant: string, now: number): Promise<boolean> {
    return Number(this.#sent.run({ id, who: claimant, now }).changes) === 1;
  }

  async release(id: string, claimant: string): Promise<boolean> {
    return Number(this.#release.run({ id, who: claimant }).changes) === 1;
  }

  async retire(id: string, now: number): Promise<boolean> {
    return Number(this.#retire.run(now, id).changes) === 1;
  }

  async unsent(now: number): Promise<TransitionRow[]> {
    return (this.#unsent.all(now) as unknown as Row[]).map(toRow);
  }

  async list(
    opts: { since?: number; kind?: Transition["kind"]; limit?: number } = {},
  ): Promise<TransitionRow[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (opts.since !== undefined) {
      where.push("at >= ?");
      params.push(opts.since);
    }
    if (opts.kind !== undefined) {
      where.push("kind = ?");
      params.push(opts.kind);
    }
    const sql = `SELECT * FROM alert_transitions${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""}
ORDER BY at, id${opts.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(opts.limit))}` : ""}`;
    const rows = (this.#db.prepare(sql).all(...params) as unknown as Row[]).map(toRow);
    return rows.sort(byAtThenId);
  }

  async readState(): Promise<{ state: AlertState; version: number }> {
    const r = this.#readState.get(STATE_KEY) as { version: number; state: string } | undefined;
    if (r === undefined) return { state: emptyState(), version: 0 };
    return { state: JSON.parse(r.state) as AlertState, version: Number(r.version) };
  }

  async putState(state: AlertState, expectedVersion: number): Promise<PutStateResult> {
    const json = JSON.stringify(state);
    const changes =
      expectedVersion === 0
        ? this.#insertState.run(STATE_KEY, json).changes
        : this.#updateState.run({ key: STATE_KEY, expected: expectedVersion, state: json }).changes;
    if (Number(changes) === 1) return { ok: true, version: expectedVersion + 1 };
    const current = (this.#readState.get(STATE_KEY) as { version: number } | undefined)?.version ?? 0;
    return { ok: false, conflict: true, version: Number(current) };
  }

  close(): void {
    if (this.#owns && this.#db.isOpen) this.#db.close();
  }
}
