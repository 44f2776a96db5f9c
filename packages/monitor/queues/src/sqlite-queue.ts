/**
 * The embedded durable queue of `npm start`:
 * SQLite through `node:sqlite`, with SQS semantics. Send in batches; receive hides a message for the
 * visibility timeout and counts the receive; ack deletes it. With a dead-letter queue configured, a
 * message already received `maxReceives` times is moved to the dead-letter table instead of being
 * delivered again (an SQS redrive policy with `maxReceiveCount = maxReceives`).
 *
 * Every operation is one transaction, and the file is opened in WAL mode with `synchronous = FULL`:
 * a message whose send returned is on disk and survives a crash of the process (or the machine).
 * Several queues may share one file; each is keyed by its name.
 */

import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type {
  ConsumableQueue,
  EventQueue,
  QueueHealth,
  QueueHealthSource,
  ReceivedMessage,
  ReceiveOptions,
} from "@monitor/core";
import { errorText, unreadableQueue } from "./queue-health.ts";

export const EMBEDDED_QUEUE_SOURCE = "embedded-sqlite";
export const DEFAULT_MAX_RECEIVES = 5;
/** Largest batch a single receive returns (SQS: 10; the embedded queue allows more). */
export const MAX_RECEIVE_BATCH = 1000;

export interface SqliteQueueOptions {
  /** The queue's name, e.g. `monitor-events`. */
  name: string;
  /**
   * The dead-letter queue: its name and after how many receives a message moves there. Default
   * `{ name: "<name>-dlq", maxReceives: 5 }`; `null` for a queue without one (messages are redelivered
   * for ever, as on SQS without a redrive policy).
   */
  deadLetter?: { name: string; maxReceives: number } | null;
  /** Epoch ms; visibility is computed from it. Default `Date.now`. */
  now?: () => number;
}

export interface DeadLetter {
  message_id: string;
  body: string;
  source_queue: string;
  receive_count: number;
  sent_at: number;
  moved_at: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS queue_messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  message_id TEXT NOT NULL UNIQUE,
  body TEXT NOT NULL,
  sent_at INTEGER NOT NULL,
  visible_at INTEGER NOT NULL,
  receive_count INTEGER NOT NULL DEFAULT 0,
  receipt TEXT
);
CREATE INDEX IF NOT EXISTS queue_messages_visible ON queue_messages (queue, visible_at, seq);
CREATE UNIQUE INDEX IF NOT EXISTS queue_messages_receipt ON queue_messages (receipt);
CREATE TABLE IF NOT EXISTS queue_dead_letters (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  source_queue TEXT NOT NULL,
  message_id TEXT NOT NULL,
  body TEXT NOT NULL,
  sent_at INTEGER NOT NULL,
  receive_count INTEGER NOT NULL,
  moved_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS queue_dead_letters_queue ON queue_dead_letters (queue, seq);
`;

/** Opens (creating folders as needed) the queue file: WAL, fsync on every commit, schema applied. */
export function openQueueDatabase(path: string): DatabaseSync {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
  db.exec(SCHEMA);
  return db;
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;

function checkOptions(opts: SqliteQueueOptions): { name: string; maxReceives: number } | null {
  if (!QUEUE_NAME.test(opts.name)) {
    throw new Error(
      `SqliteQueue: name must be 1-80 letters, digits, "-" or "_", got ${JSON.stringify(opts.name)}`,
    );
  }
  const dl =
    opts.deadLetter === undefined
      ? { name: `${opts.name}-dlq`, maxReceives: DEFAULT_MAX_RECEIVES }
      : opts.deadLetter;
  if (dl === null) return null;
  if (!QUEUE_NAME.test(dl.name) || dl.name === opts.name) {
    throw new Error(`SqliteQueue: deadLetter.name must be a valid queue name other than the queue's own`);
  }
  if (!Number.isInteger(dl.maxReceives) || dl.maxReceives < 1 || dl.maxReceives > 1000) {
    throw new Error(
      `SqliteQueue: deadLetter.maxReceives must be an integer from 1 to 1000, got ${dl.maxReceives}`,
    );
  }
  return dl;
}

interface CandidateRow {
  seq: number;
  message_id: string;
  body: string;
  sent_at: number;
  receive_count: number;
}

export class SqliteQueue implements EventQueue, ConsumableQueue, QueueHealthSource {
  readonly name: string;
  readonly deadLetter: { name: string; maxReceives: number } | null;
  readonly queues: readonly string[];
  readonly #db: DatabaseSync;
  readonly #ownsDb: boolean;
  readonly #now: () => number;
  readonly #insert: StatementSync;
  readonly #candidates: StatementSync;
  readonly #deliver: StatementSync;
  readonly #toDeadLetter: StatementSync;
  readonly #delete: StatementSync;
  readonly #ack: StatementSync;
  readonly #counts: StatementSync;
  readonly #deadCount: StatementSync;
  readonly #deadList: StatementSync;
  readonly #deadPurge: StatementSync;
  readonly #deadTake: StatementSync;
  readonly #deadDelete: StatementSync;

  /** A queue in an open database (`openQueueDatabase`); `close()` leaves that database open. */
  constructor(db: DatabaseSync, opts: SqliteQueueOptions, ownsDb = false) {
    this.deadLetter = checkOptions(opts);
    this.name = opts.name;
    this.queues = [opts.name];
    this.#db = db;
    this.#ownsDb = ownsDb;
    this.#now = opts.now ?? Date.now;
    db.exec(SCHEMA);
    this.#insert = db.prepare(
      "INSERT INTO queue_messages (queue, message_id, body, sent_at, visible_at) VALUES (?, ?, ?, ?, ?)",
    );
    this.#candidates = db.prepare(
      "SELECT seq, message_id, body, sent_at, receive_count FROM queue_messages WHERE queue = ? AND visible_at <= ? AND seq > ? ORDER BY seq LIMIT ?",
    );
    this.#deliver = db.prepare(
      "UPDATE queue_messages SET receipt = ?, visible_at = ?, receive_count = receive_count + 1 WHERE seq = ?",
    );
    this.#toDeadLetter = db.prepare(
      "INSERT INTO queue_dead_letters (queue, source_queue, message_id, body, sent_at, receive_count, moved_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.#delete = db.prepare("DELETE FROM queue_messages WHERE seq = ?");
    this.#ack = db.prepare("DELETE FROM queue_messages WHERE receipt = ? AND queue = ?");
    this.#counts = db.prepare(
      "SELECT COALESCE(SUM(visible_at <= ?), 0) AS visible, COALESCE(SUM(visible_at > ?), 0) AS hidden FROM queue_messages WHERE queue = ?",
    );
    this.#deadCount = db.prepare("SELECT COUNT(*) AS n FROM queue_dead_letters WHERE queue = ?");
    this.#deadList = db.prepare(
      "SELECT message_id, body, source_queue, receive_count, sent_at, moved_at FROM queue_dead_letters WHERE queue = ? ORDER BY seq LIMIT ?",
    );
    this.#deadPurge = db.prepare("DELETE FROM queue_dead_letters WHERE queue = ? AND source_queue = ?");
    this.#deadTake = db.prepare(
      "SELECT seq, message_id, body, sent_at FROM queue_dead_letters WHERE queue = ? AND source_queue = ? ORDER BY seq LIMIT ?",
    );
    this.#deadDelete = db.prepare("DELETE FROM queue_dead_letters WHERE seq = ?");
  }

  /** Opens the file at `path` (created when missing) with one queue; `close()` closes the file. */
  static open(path: string, opts: SqliteQueueOptions): SqliteQueue {
    const db = openQueueDatabase(path);
    try {
      return new SqliteQueue(db, opts, true);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * All of `work` or none of it. SQLite ends the transaction itself when a statement or the COMMIT
   * fails on a full disk (SQLITE_FULL): it is rolled back only while still open, so that failure,
   * not "cannot rollback - no transaction is active", is what the caller sees.
   */
  #tx<T>(work: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const out = work();
      this.#db.exec("COMMIT");
      return out;
    } catch (err) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  async send(bodies: readonly string[], signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    if (bodies.length === 0) return 0;
    for (const [i, b] of bodies.entries()) {
      if (typeof b !== "string") throw new TypeError(`send: bodies[${i}] must be a string`);
    }
    const now = this.#now();
    this.#tx(() => {
      for (const body of bodies) this.#insert.run(this.name, randomUUID(), body, now, now);
    });
    return bodies.length;
  }

  async receive(opts: ReceiveOptions): Promise<ReceivedMessage[]> {
    const max = Math.trunc(opts.max);
    const vt = Math.trunc(opts.visibilityTimeoutMs);
    if (!(max >= 1 && max <= MAX_RECEIVE_BATCH)) {
      throw new RangeError(`receive: max must be from 1 to ${MAX_RECEIVE_BATCH}, got ${opts.max}`);
    }
    if (!(vt >= 0))
      throw new RangeError(`receive: visibilityTimeoutMs must be >= 0, got ${opts.visibilityTimeoutMs}`);
    const now = this.#now();
    const dl = this.deadLetter;
    return this.#tx(() => {
      const out: ReceivedMessage[] = [];
      // Moving a message to the dead-letter queue frees its slot in the batch: look further until full.
      // `after` skips what this call already took (with a 0 visibility timeout it is visible again).
      let after = 0;
      for (;;) {
        const rows = this.#candidates.all(
          this.name,
          now,
          after,
          max - out.length,
        ) as unknown as CandidateRow[];
        if (rows.length === 0) break;
        for (const r of rows) {
          after = r.seq;
          if (dl !== null && r.receive_count >= dl.maxReceives) {
            this.#toDeadLetter.run(dl.name, this.name, r.message_id, r.body, r.sent_at, r.receive_count, now);
            this.#delete.run(r.seq);
            continue;
          }
          const receipt = randomUUID();
          this.#deliver.run(receipt, now + vt, r.seq);
          out.push({
            message_id: r.message_id,
            body: r.body,
            receipt,
            receive_count: r.receive_count + 1,
            sent_at: r.sent_at,
          });
        }
        if (out.length >= max) break;
      }
      return out;
    });
  }

  async ack(receipts: readonly string[]): Promise<number> {
    if (receipts.length === 0) return 0;
    return this.#tx(() => {
      let n = 0;
      for (const r of receipts) n += Number(this.#ack.run(r, this.name).changes);
      return n;
    });
  }

  /** The oldest dead letters of this queue's dead-letter queue (for inspection; they are not removed). */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    if (this.deadLetter === null) return [];
    return this.#deadList.all(this.deadLetter.name, limit) as unknown as DeadLetter[];
  }

  /** Deletes this queue's dead letters (SQS PurgeQueue on the dead-letter queue); resolves to how many. */
  async purgeDeadLetters(): Promise<number> {
    const dl = this.deadLetter;
    if (dl === null) return 0;
    return this.#tx(() => Number(this.#deadPurge.run(dl.name, this.name).changes));
  }

  /**
   * Moves up to `max` of this queue's dead letters back onto it with a fresh receive count, oldest
   * first (SQS's dead-letter queue redrive); resolves to how many moved.
   */
  async redriveDeadLetters(max = MAX_RECEIVE_BATCH): Promise<number> {
    const dl = this.deadLetter;
    if (dl === null) return 0;
    const now = this.#now();
    return this.#tx(() => {
      const rows = this.#deadTake.all(dl.name, this.name, max) as unknown as {
        seq: number;
        message_id: string;
        body: string;
        sent_at: number;
      }[];
      for (const r of rows) {
        this.#deadDelete.run(r.seq);
        this.#insert.run(this.name, r.message_id, r.body, r.sent_at, now);
      }
      return rows.length;
    });
  }

  async read(signal?: AbortSignal): Promise<QueueHealth[]> {
    const now = this.#now();
    if (signal?.aborted) {
      return [unreadableQueue(this.name, EMBEDDED_QUEUE_SOURCE, now, `aborted: ${errorText(signal.reason)}`)];
    }
    try {
      // A closed handle would only say "statement has been finalized".
      if (!this.#db.isOpen) throw new Error(`the queue's database is not open`);
      const c = this.#counts.get(now, now, this.name) as { visible: number; hidden: number };
      const dead =
        this.deadLetter === null ? null : (this.#deadCount.get(this.deadLetter.name) as { n: number }).n;
      return [
        {
          name: this.name,
          source: EMBEDDED_QUEUE_SOURCE,
          read_at: now,
          depth: Number(c.visible),
          in_flight: Number(c.hidden),
          dead_letter_queue: this.deadLetter?.name ?? null,
          dead_letter_depth: dead === null ? null : Number(dead),
          error: null,
        },
      ];
    } catch (err) {
      return [unreadableQueue(this.name, EMBEDDED_QUEUE_SOURCE, now, errorText(err))];
    }
  }

  close(): void {
    if (this.#ownsDb && this.#db.isOpen) this.#db.close();
  }
}
