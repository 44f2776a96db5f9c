// The IndexManager port over SQLite: documents in the DocumentStore (whose revision is what the
// embedded engine's snapshots are checked against), index metadata and tasks in tables of the same
// database. Writes are recorded as `enqueued` tasks and processed in the order they were enqueued
// by an in-process worker; tasks survive a restart (an unfinished one is run again, which is safe:
// every task is idempotent). Task uids count per account. A full disk never loses an answered
// write: a task that cannot be stored is refused (`no_space_left_on_device`), one whose writes
// cannot be stored ends `failed` with that error. docs/search.md, "Index management".
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { isPlainObject } from "@relevance/core";
import {
  DEFAULT_SETTINGS,
  type DocumentId,
  type DocumentsPage,
  INDEX_UID,
  type IndexInfo,
  type IndexManager,
  IndexManagerError,
  type IndexPage,
  type IndexSettings,
  type IndexStats,
  indexNotFound,
  invalidUidError,
  isFinal,
  type SettingsUpdate,
  storageFullTaskError,
  type Task,
  type TaskError,
  type TaskPage,
  type TaskQuery,
  type TaskScope,
  type TaskStatus,
  type TaskSummary,
  type TaskType,
  taskError,
  type WaitOptions,
} from "@relevance/search";
import {
  type Document,
  documentStats,
  type EditableDocumentStore,
  type Logger,
  MAX_DOCUMENTS_PER_INDEX,
} from "@relevance/settings";
import { transaction } from "@relevance/settings/sqlite";
import { storageFullCause } from "@shared/http";
import { errorMessage } from "@shared/kernel";

export interface EmbeddedIndexManagerOptions {
  /** The database that holds the documents (the `tasks` and `managed_indexes` tables are added to it). */
  db: DatabaseSync;
  documents: EditableDocumentStore;
  /** Where an index's documents live in the DocumentStore. Default: split the uid at its first `-` (`acct_…-products`). */
  locate?: (uid: string) => { accountId: string; index: string };
  now?: () => Date;
  /** Where the worker reports a database failure that stops it (the task stays unfinished). */
  logger?: Logger;
  /**
   * Finished tasks kept (the newest); older ones are deleted as new ones finish, as Meilisearch
   * deletes its oldest finished tasks past its own limit. Default 100 000.
   */
  keepFinishedTasks?: number;
  /** Start processing tasks (those left from a previous run included) at once. Default true. */
  start?: boolean;
  /** Documents one index may hold; a task that would take it past fails, nothing written. Default MAX_DOCUMENTS_PER_INDEX. */
  maxDocumentsPerIndex?: number;
}

interface TaskRow {
  /** The order tasks are processed in (never shown). */
  seq: number;
  account_id: string;
  /** The account's task number: the task's `uid` / `taskUid`. */
  uid: number;
  index_uid: string;
  type: TaskType;
  status: TaskStatus;
  enqueued_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  details: string;
  payload: string | null;
}

interface IndexRow {
  uid: string;
  primary_key: string | null;
  created_at: string;
  updated_at: string;
  settings: string;
}

/** What a document task carries until it is processed. */
interface DocumentsPayload {
  documents: Document[];
  primaryKey?: string;
}

/** A task's failure, recorded in the task (not thrown to the writer). */
class TaskFailure extends Error {
  readonly error: TaskError;
  constructor(error: TaskError) {
    super(error.message);
    this.error = error;
  }
}

export const defaultLocate = (uid: string): { accountId: string; index: string } => {
  const at = uid.indexOf("-");
  return at < 0 ? { accountId: "", index: uid } : { accountId: uid.slice(0, at), index: uid.slice(at + 1) };
};

const DOCUMENT_ID = /^[A-Za-z0-9_-]{1,511}$/;

/** Meilisearch's rule: a string of letters, digits, `-` and `_` (at most 511 bytes), or a non-negative integer. */
function documentIdOf(value: unknown): string | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
  return typeof value === "string" && DOCUMENT_ID.test(value) ? value : null;
}

/** What a task did to the documents, and the metadata change that completes it. */
interface Outcome {
  details: Record<string, unknown>;
  /** Runs in the transaction that records the task's success, so the two happen together. */
  apply?: () => void;
  /**
   * The task's own writes (documents) are already stored, in the DocumentStore's transactions:
   * `apply` only completes the metadata. Otherwise `apply` is the whole effect.
   */
  stored?: boolean;
}

/** How a task ended, as the worker records it. */
interface Verdict {
  status: "succeeded" | "failed";
  startedAt: string;
  finishedAt: string;
  error: TaskError | null;
  details: Record<string, unknown>;
  apply?: () => void;
  stored?: boolean;
}

/** Task uids of every account start above this one (the `task_numbers` row of no account). */
const FLOOR_ROW = "*";

export class EmbeddedIndexManager implements IndexManager {
  private readonly db: DatabaseSync;
  private readonly documents: EditableDocumentStore;
  private readonly locate: (uid: string) => { accountId: string; index: string };
  private readonly now: () => Date;
  private readonly logger: Logger | undefined;
  private readonly keepFinishedTasks: number;
  private readonly maxDocumentsPerIndex: number;
  private readonly stmts: Record<
    | "insertTask"
    | "nextNumber"
    | "getTask"
    | "nextTask"
    | "hasNextTask"
    | "startTask"
    | "finishTask"
    | "getIndex"
    | "listIndexes"
    | "countIndexes"
    | "insertIndex"
    | "updateIndex"
    | "deleteIndex"
    | "pendingOf"
    | "pruneTasks",
    StatementSync
  >;
  private running: Promise<void> | null = null;
  private started: boolean;
  /** Waiters by task (`waiterKey`), woken when the task ends. */
  private readonly waiters = new Map<string, Set<() => void>>();
  /**
   * Verdicts the worker reached but could not record because the disk was full, by task seq: shown
   * by getTask, recorded by the worker's next round (the next write wakes it). While one is
   * waiting, later tasks are not run (they would be stored before an earlier task's end): they
   * fail with no_space_left_on_device at once, so no waiter hangs.
   */
  private readonly unsaved = new Map<number, Verdict>();

  constructor(options: EmbeddedIndexManagerOptions) {
    const { db } = options;
    this.db = db;
    this.documents = options.documents;
    this.locate = options.locate ?? defaultLocate;
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger;
    this.keepFinishedTasks = options.keepFinishedTasks ?? 100_000;
    this.maxDocumentsPerIndex = options.maxDocumentsPerIndex ?? MAX_DOCUMENTS_PER_INDEX;
    if (!Number.isInteger(this.keepFinishedTasks) || this.keepFinishedTasks < 1) {
      throw new RangeError("keepFinishedTasks must be an integer >= 1");
    }
    migrateTasks(db, this.locate);
    db.exec(`CREATE TABLE IF NOT EXISTS managed_indexes (
      uid TEXT PRIMARY KEY, primary_key TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
      settings TEXT NOT NULL
    ) WITHOUT ROWID`);
    this.stmts = {
      insertTask: db.prepare(
        "INSERT INTO tasks (account_id, uid, index_uid, type, status, enqueued_at, details, payload) VALUES (?, ?, ?, ?, 'enqueued', ?, ?, ?)",
      ),
      // The account's next number, in the transaction that inserts the task: never given twice,
      // even after its tasks are pruned or its indexes deleted.
      nextNumber: db.prepare(
        `INSERT INTO task_numbers (account_id, last_uid)
         VALUES (?, COALESCE((SELECT last_uid FROM task_numbers WHERE account_id = '${FLOOR_ROW}'), 0) + 1)
         ON CONFLICT (account_id) DO UPDATE SET last_uid = last_uid + 1 RETURNING last_uid`,
      ),
      getTask: db.prepare("SELECT * FROM tasks WHERE account_id = ? AND uid = ?"),
      nextTask: db.prepare(
        "SELECT * FROM tasks WHERE status IN ('enqueued', 'processing') AND seq > ? ORDER BY seq LIMIT 1",
      ),
      hasNextTask: db.prepare(
        "SELECT 1 AS next FROM tasks WHERE status IN ('enqueued', 'processing') AND seq > ? LIMIT 1",
      ),
      startTask: db.prepare("UPDATE tasks SET status = 'processing', started_at = ? WHERE seq = ?"),
      finishTask: db.prepare(
        "UPDATE tasks SET status = ?, started_at = ?, finished_at = ?, error = ?, details = ?, payload = NULL WHERE seq = ?",
      ),
      getIndex: db.prepare("SELECT * FROM managed_indexes WHERE uid = ?"),
      listIndexes: db.prepare("SELECT * FROM managed_indexes ORDER BY uid LIMIT ? OFFSET ?"),
      countIndexes: db.prepare("SELECT COUNT(*) AS n FROM managed_indexes"),
      insertIndex: db.prepare(
        "INSERT INTO managed_indexes (uid, primary_key, created_at, updated_at, settings) VALUES (?, ?, ?, ?, ?)",
      ),
      updateIndex: db.prepare(
        "UPDATE managed_indexes SET primary_key = ?, updated_at = ?, settings = ? WHERE uid = ?",
      ),
      deleteIndex: db.prepare("DELETE FROM managed_indexes WHERE uid = ?"),
      pruneTasks: db.prepare(
        "DELETE FROM tasks WHERE status IN ('succeeded', 'failed') AND seq <= (SELECT seq FROM tasks WHERE status IN ('succeeded', 'failed') ORDER BY seq DESC LIMIT 1 OFFSET ?)",
      ),
      pendingOf: db.prepare(
        "SELECT 1 FROM tasks WHERE index_uid = ? AND status IN ('enqueued', 'processing') LIMIT 1",
      ),
    };
    this.started = options.start ?? true;
    if (this.started) this.kick();
  }

  /** Starts the worker (when built with `start: false`); tasks left by a previous run are processed first. */
  start(): void {
    this.started = true;
    this.kick();
  }

  /** Resolves when no task is being processed (tests, orderly shutdown). */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  createIndex(uid: string, options: { primaryKey?: string } = {}): Promise<TaskSummary> {
    return this.enqueue(uid, "indexCreation", { primaryKey: options.primaryKey ?? null }, null);
  }

  deleteIndex(uid: string): Promise<TaskSummary> {
    return this.enqueue(uid, "indexDeletion", { deletedDocuments: null }, null);
  }

  async listIndexes(page: { offset?: number; limit?: number } = {}): Promise<IndexPage> {
    const offset = page.offset ?? 0;
    const limit = page.limit ?? 20;
    const rows = this.stmts.listIndexes.all(limit, offset) as unknown as IndexRow[];
    const { n } = this.stmts.countIndexes.get() as { n: number };
    return { results: rows.map(infoOf), offset, limit, total: n };
  }

  async getIndex(uid: string): Promise<IndexInfo | null> {
    if (!INDEX_UID.test(uid)) throw invalidUidError(uid);
    const row = this.indexRow(uid);
    return row === null ? null : infoOf(row);
  }

  addDocuments(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options: { primaryKey?: string } = {},
  ): Promise<TaskSummary> {
    return this.documentsTask(uid, documents, options, "replace");
  }

  updateDocuments(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options: { primaryKey?: string } = {},
  ): Promise<TaskSummary> {
    return this.documentsTask(uid, documents, options, "update");
  }

  /**
   * Adds only the documents whose id the index does not hold yet; stored ones stay as they are. The
   * check runs when the task does, in task order, so a write enqueued before this one is never
   * replaced by it. The index must exist (no implicit creation). For a writer that must never
   * overwrite (npm start's demo seeding).
   */
  addDocumentsIfAbsent(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options: { primaryKey?: string } = {},
  ): Promise<TaskSummary> {
    return this.documentsTask(uid, documents, options, "absent");
  }

  deleteDocuments(uid: string, ids: readonly DocumentId[]): Promise<TaskSummary> {
    return this.enqueue(
      uid,
      "documentDeletion",
      { providedIds: ids.length, deletedDocuments: null },
      {
        ids: ids.map(String),
      },
    );
  }

  deleteAllDocuments(uid: string): Promise<TaskSummary> {
    return this.enqueue(
      uid,
      "documentDeletion",
      { providedIds: 0, deletedDocuments: null, originalFilter: null },
      { all: true },
    );
  }

  async getDocument(uid: string, id: DocumentId): Promise<Record<string, unknown> | null> {
    this.existing(uid);
    const { accountId, index } = this.locate(uid);
    const found = await this.documents.getMany(accountId, index, [String(id)]);
    return found.get(String(id)) ?? null;
  }

  /**
   * The account's tasks (`scope.accountId`, else the account "") matching `query`, newest first. One
   * SQL query on the account's rows (the (account_id, uid) key), bounded by `limit`, plus its count.
   */
  async listTasks(query: TaskQuery = {}, scope: TaskScope = {}): Promise<TaskPage> {
    const limit = query.limit ?? 20;
    const where = ["account_id = ?"];
    const params: (string | number)[] = [scope.accountId ?? ""];
    const anyOf = (column: string, values: readonly (string | number)[] | undefined) => {
      if (values === undefined) return;
      if (values.length === 0) {
        where.push("0");
        return;
      }
      where.push(`${column} IN (${values.map(() => "?").join(", ")})`);
      params.push(...values);
    };
    anyOf("uid", query.uids);
    anyOf("status", query.statuses);
    anyOf("type", query.types);
    anyOf("index_uid", query.indexUids);
    const dates: [keyof TaskQuery, string, "<" | ">"][] = [
      ["beforeEnqueuedAt", "enqueued_at", "<"],
      ["afterEnqueuedAt", "enqueued_at", ">"],
      ["beforeStartedAt", "started_at", "<"],
      ["afterStartedAt", "started_at", ">"],
      ["beforeFinishedAt", "finished_at", "<"],
      ["afterFinishedAt", "finished_at", ">"],
    ];
    for (const [key, column, op] of dates) {
      const value = query[key];
      if (typeof value !== "string") continue;
      where.push(`${column} ${op} ?`);
      params.push(new Date(value).toISOString());
    }
    const filtered = where.join(" AND ");
    const { n: total } = this.db
      .prepare(`SELECT COUNT(*) AS n FROM tasks WHERE ${filtered}`)
      .get(...params) as { n: number };
    const page = query.from === undefined ? filtered : `${filtered} AND uid <= ?`;
    const pageParams = query.from === undefined ? params : [...params, query.from];
    const rows = this.db
      .prepare(`SELECT * FROM tasks WHERE ${page} ORDER BY uid DESC LIMIT ?`)
      .all(...pageParams, limit + 1) as unknown as TaskRow[];
    const shown = rows.slice(0, limit).map((row) => {
      const verdict = this.unsaved.get(row.seq);
      return verdict === undefined ? taskOf(row) : { ...taskOf(row), ...verdictView(verdict) };
    });
    return {
      results: shown,
      total,
      limit,
      from: shown[0]?.uid ?? null,
      next: rows.length > limit ? (rows[limit] as TaskRow).uid : null,
    };
  }

  updateSettings(uid: string, settings: SettingsUpdate): Promise<TaskSummary> {
    return this.enqueue(uid, "settingsUpdate", { ...settings }, { settings });
  }

  async getSettings(uid: string): Promise<IndexSettings> {
    return settingsOf(this.existing(uid));
  }

  async getStats(uid: string): Promise<IndexStats> {
    this.existing(uid);
    const { accountId, index } = this.locate(uid);
    const { numberOfDocuments, fieldDistribution } = await documentStats(
      this.documents,
      accountId,
      index,
      1000,
    );
    return { numberOfDocuments, isIndexing: this.stmts.pendingOf.get(uid) !== undefined, fieldDistribution };
  }

  async getDocuments(uid: string, page: { offset?: number; limit?: number } = {}): Promise<DocumentsPage> {
    this.existing(uid);
    const { accountId, index } = this.locate(uid);
    const offset = page.offset ?? 0;
    const limit = page.limit ?? 20;
    const [results, total] = await Promise.all([
      this.documents.list(accountId, index, offset, limit),
      this.documents.count(accountId, index),
    ]);
    return { results, offset, limit, total };
  }

  /** The account's task `taskUid` (without `accountId`: of the account of uids without a `-`). */
  async getTask(taskUid: number, scope: TaskScope = {}): Promise<Task | null> {
    const row = this.stmts.getTask.get(scope.accountId ?? "", taskUid) as unknown as TaskRow | undefined;
    if (row === undefined) return null;
    const verdict = this.unsaved.get(row.seq);
    return verdict === undefined ? taskOf(row) : { ...taskOf(row), ...verdictView(verdict) };
  }

  /** Waits for the worker's word that the task ended (no polling); `intervalMs` is not used here. */
  async waitForTask(taskUid: number, options: WaitOptions = {}): Promise<Task> {
    const timeoutMs = options.timeoutMs ?? 5000;
    const key = waiterKey(options.accountId ?? "", taskUid);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    let wake: () => void = () => undefined;
    const set = this.waiters.get(key) ?? new Set<() => void>();
    this.waiters.set(key, set);
    try {
      for (;;) {
        // Registered before the read, so an end between the read and the wait is not missed.
        const woken = new Promise<void>((resolve) => {
          wake = resolve;
        });
        set.add(wake);
        const task = await this.getTask(taskUid, options);
        if (task === null) {
          throw new IndexManagerError(
            "refused",
            taskError("task_not_found", `Task \`${taskUid}\` not found.`),
            404,
          );
        }
        if (isFinal(task.status)) return task;
        const outcome = await Promise.race([woken, timeout]);
        set.delete(wake);
        if (outcome === "timeout") {
          throw new IndexManagerError(
            "timeout",
            taskError("task_timeout", `task ${taskUid} did not finish within ${timeoutMs} ms`, "internal"),
          );
        }
      }
    } finally {
      clearTimeout(timer);
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
    }
  }

  private documentsTask(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options: { primaryKey?: string },
    mode: "replace" | "update" | "absent",
  ): Promise<TaskSummary> {
    const payload: DocumentsPayload & { mode: string } = { documents: [...documents], mode };
    if (options.primaryKey !== undefined) payload.primaryKey = options.primaryKey;
    return this.enqueue(
      uid,
      "documentAdditionOrUpdate",
      { receivedDocuments: documents.length, indexedDocuments: null },
      payload,
    );
  }

  /**
   * Stores the task, with its account's next number, in one transaction whose COMMIT is checked: the
   * summary is answered only once the task is stored. (An INSERT … RETURNING in autocommit commits
   * when the statement is reset, and node:sqlite does not report a failure there: on a full disk
   * it answered a number that was never stored, and the next write got the same number.)
   */
  private async enqueue(
    uid: string,
    type: TaskType,
    details: Record<string, unknown>,
    payload: unknown,
  ): Promise<TaskSummary> {
    if (!INDEX_UID.test(uid)) throw invalidUidError(uid);
    const { accountId } = this.locate(uid);
    const enqueuedAt = this.now().toISOString();
    const detailsJson = JSON.stringify(details);
    const payloadJson = payload === null ? null : JSON.stringify(payload);
    let taskUid: number;
    try {
      taskUid = transaction(this.db, () => {
        const { last_uid } = this.stmts.nextNumber.get(accountId) as { last_uid: number };
        this.stmts.insertTask.run(accountId, last_uid, uid, type, enqueuedAt, detailsJson, payloadJson);
        return last_uid;
      });
    } catch (error) {
      const cause = storageFullCause(error);
      if (cause === null) throw error;
      this.logger?.error("index manager: a write was refused, the disk is full", {
        indexUid: uid,
        type,
        cause,
      });
      const refused = new IndexManagerError("refused", storageFullTaskError("the write was"), 507);
      refused.cause = error;
      throw refused;
    } finally {
      // Space may be back: a worker waiting to record a task's end tries again.
      this.kick();
    }
    return { taskUid, indexUid: uid, status: "enqueued", type, enqueuedAt };
  }

  /** Runs the worker unless it runs already; it processes tasks until none is left. */
  private kick(): void {
    if (!this.started || this.running !== null) return;
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .catch((error: unknown) => {
        // The database itself failed (closed, broken; a full disk does not stop the worker): the
        // task stays where it was and is processed by the next write's kick or the next start.
        this.logger?.error("index manager: the task worker stopped", { error: String(error) });
      })
      .finally(() => {
        this.running = null;
      });
  }

  /**
   * One round over the unfinished tasks, in the order they were enqueued: each is run (or, when an
   * earlier task's end is still waiting to be recorded, failed at once) and its end recorded. A
   * full disk never stops the round: an end that cannot be recorded is kept in memory (`unsaved`)
   * and its waiters are woken all the same. Any other database failure stops the worker (logged).
   */
  private async drain(): Promise<void> {
    let after = 0;
    for (;;) {
      const row = this.stmts.nextTask.get(after) as unknown as TaskRow | undefined;
      if (row === undefined) return;
      after = row.seq;
      const verdict =
        this.unsaved.get(row.seq) ?? (this.unsaved.size > 0 ? this.blocked(row) : await this.run(row));
      this.save(row, verdict);
      for (const wake of this.waiters.get(waiterKey(row.account_id, row.uid)) ?? []) wake();
      // A turn of the event loop before the next task: a task's store calls answer at once
      // (SQLite), so without it a round over many queued batches (tenants writing at once) held
      // every other request for all of them. (None when no task is left: the round ends in the
      // turn of the last one.)
      if (this.stmts.hasNextTask.get(after) !== undefined)
        await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Runs a task: its verdict, with the metadata change that completes a success. */
  private async run(row: TaskRow): Promise<Verdict> {
    const startedAt = row.started_at ?? this.now().toISOString();
    try {
      this.stmts.startTask.run(startedAt, row.seq);
    } catch (error) {
      // On a full disk the task is still run: its own writes decide, and its verdict keeps startedAt.
      if (storageFullCause(error) === null) throw error;
    }
    const enqueued = JSON.parse(row.details) as Record<string, unknown>;
    try {
      const outcome = await this.process(row);
      return {
        status: "succeeded",
        startedAt,
        finishedAt: this.now().toISOString(),
        error: null,
        details: { ...enqueued, ...outcome.details },
        ...(outcome.apply === undefined ? {} : { apply: outcome.apply }),
        ...(outcome.stored === true ? { stored: true } : {}),
      };
    } catch (thrown) {
      return this.failed(row, startedAt, this.errorOf(row, thrown));
    }
  }

  /** A task that waits behind an earlier one whose end could not be recorded: failed, nothing of it run. */
  private blocked(row: TaskRow): Verdict {
    const at = this.now().toISOString();
    return this.failed(row, row.started_at ?? at, storageFullTaskError("the write was"));
  }

  private failed(row: TaskRow, startedAt: string, error: TaskError): Verdict {
    const enqueued = JSON.parse(row.details) as Record<string, unknown>;
    return {
      status: "failed",
      startedAt,
      finishedAt: this.now().toISOString(),
      error,
      details: failedDetails(row.type, enqueued),
    };
  }

  /** A task's failure as Meilisearch reports it: the task's own, a full disk, or an internal error. */
  private errorOf(row: TaskRow, thrown: unknown): TaskError {
    if (thrown instanceof TaskFailure) return thrown.error;
    const cause = storageFullCause(thrown);
    if (cause !== null) {
      this.logger?.error("index manager: a task failed, the disk is full", {
        indexUid: row.index_uid,
        taskUid: row.uid,
        cause,
      });
      return storageFullTaskError("the task's writes were");
    }
    return taskError("internal", `An internal error has occurred. \`${errorMessage(thrown)}\`.`, "internal");
  }

  /**
   * Records a verdict with the metadata change that completes it, in one transaction. On a full
   * disk: a success whose whole effect was that change did not happen, and is recorded as a failure
   * instead; a success whose documents are stored stays a success; a verdict that cannot be
   * recorded at all waits in `unsaved` for the next round.
   */
  private save(row: TaskRow, verdict: Verdict): void {
    try {
      this.finish(row, verdict);
    } catch (error) {
      if (storageFullCause(error) === null) throw error;
      let kept = verdict;
      if (verdict.status === "succeeded" && verdict.stored !== true) {
        kept = this.failed(row, verdict.startedAt, storageFullTaskError("the task's writes were"));
        try {
          this.finish(row, kept);
          this.unsaved.delete(row.seq);
          return;
        } catch (again) {
          if (storageFullCause(again) === null) throw again;
        }
      }
      this.unsaved.set(row.seq, kept);
      this.logger?.error("index manager: the end of a task could not be recorded, the disk is full", {
        indexUid: row.index_uid,
        taskUid: row.uid,
        status: kept.status,
        cause: storageFullCause(error),
      });
      return;
    }
    this.unsaved.delete(row.seq);
    try {
      this.stmts.pruneTasks.run(this.keepFinishedTasks);
    } catch (error) {
      // Pruning waits for a round with room for it.
      if (storageFullCause(error) === null) throw error;
    }
  }

  private finish(row: TaskRow, verdict: Verdict): void {
    transaction(this.db, () => {
      verdict.apply?.();
      this.stmts.finishTask.run(
        verdict.status,
        verdict.startedAt,
        verdict.finishedAt,
        verdict.error === null ? null : JSON.stringify(verdict.error),
        JSON.stringify(verdict.details),
        row.seq,
      );
    });
  }

  /**
   * Does a task's work, answering its details and the metadata change that completes it (applied
   * with the task's success, in one transaction). Document writes happen here, in the DocumentStore's
   * own transactions: a task interrupted after them runs again on the next start, and finds them
   * done (replacing, merging or deleting the same documents again changes nothing). Throws
   * TaskFailure for a failed task.
   */
  private async process(row: TaskRow): Promise<Outcome> {
    const uid = row.index_uid;
    const payload = row.payload === null ? null : (JSON.parse(row.payload) as Record<string, unknown>);
    const { accountId, index } = this.locate(uid);
    const at = this.now().toISOString();
    switch (row.type) {
      case "indexCreation": {
        if (this.indexRow(uid) !== null) {
          throw new TaskFailure(taskError("index_already_exists", `Index \`${uid}\` already exists.`));
        }
        const { primaryKey } = JSON.parse(row.details) as { primaryKey: string | null };
        return { details: {}, apply: () => this.stmts.insertIndex.run(uid, primaryKey, at, at, "{}") };
      }
      case "indexDeletion": {
        if (this.indexRow(uid) === null) throw new TaskFailure(indexNotFound(uid));
        const deletedDocuments = await this.documents.count(accountId, index);
        await this.documents.deleteIndex(accountId, index);
        return { details: { deletedDocuments }, apply: () => this.stmts.deleteIndex.run(uid), stored: true };
      }
      case "documentDeletion": {
        if (this.indexRow(uid) === null) throw new TaskFailure(indexNotFound(uid));
        if ((payload as { all?: boolean }).all === true) {
          // Every document: the store's own delete of the index's documents (its revision moves on).
          const deletedDocuments = await this.documents.count(accountId, index);
          await this.documents.deleteIndex(accountId, index);
          return { details: { deletedDocuments }, apply: () => this.touch(uid, at), stored: true };
        }
        const ids = (payload as { ids: string[] }).ids;
        const deletedDocuments = await this.documents.deleteMany(accountId, index, ids);
        return { details: { deletedDocuments }, apply: () => this.touch(uid, at), stored: true };
      }
      case "settingsUpdate": {
        const update = (payload as { settings: SettingsUpdate }).settings;
        return {
          details: {},
          apply: () => {
            const current = this.indexRow(uid) ?? this.createImplicitly(uid, null, at);
            const stored = JSON.parse(current.settings) as Partial<IndexSettings>;
            for (const [key, value] of Object.entries(update)) {
              if (value === null) delete stored[key as keyof IndexSettings];
              else if (value !== undefined) (stored as Record<string, unknown>)[key] = value;
            }
            this.stmts.updateIndex.run(current.primary_key, at, JSON.stringify(stored), uid);
          },
        };
      }
      case "documentAdditionOrUpdate":
        return this.processDocuments(uid, payload as unknown as DocumentsPayload & { mode: string }, at);
    }
  }

  private async processDocuments(
    uid: string,
    payload: DocumentsPayload & { mode: string },
    at: string,
  ): Promise<Outcome> {
    const existing = this.indexRow(uid);
    if (existing === null && payload.mode === "absent") throw new TaskFailure(indexNotFound(uid));
    const docs = payload.documents;
    const { accountId, index } = this.locate(uid);
    let primaryKey = existing?.primary_key ?? null;
    if (payload.primaryKey !== undefined) {
      // As milli does: another primary key is refused once the index holds documents.
      if (
        primaryKey !== null &&
        primaryKey !== payload.primaryKey &&
        (await this.documents.count(accountId, index)) > 0
      ) {
        throw new TaskFailure(
          taskError(
            "index_primary_key_already_exists",
            `Index already has a primary key: \`${primaryKey}\`.`,
          ),
        );
      }
      primaryKey = payload.primaryKey;
    }
    if (primaryKey === null && docs.length > 0) primaryKey = inferPrimaryKey(docs[0] as Document);
    const ids: string[] = [];
    for (const doc of docs) {
      if (!isPlainObject(doc) || primaryKey === null || !Object.hasOwn(doc, primaryKey)) {
        throw new TaskFailure(
          taskError(
            "missing_document_id",
            `Document doesn't have a \`${primaryKey}\` attribute: \`${JSON.stringify(doc)}\`.`,
          ),
        );
      }
      const id = documentIdOf(doc[primaryKey]);
      if (id === null) {
        throw new TaskFailure(
          taskError(
            "invalid_document_id",
            `Document identifier \`${JSON.stringify(doc[primaryKey])}\` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.`,
          ),
        );
      }
      ids.push(id);
    }
    // The index and its primary key first (a run again after the documents were written then sees
    // the same primary key, not "another one on an index with documents").
    const row = existing ?? this.createImplicitly(uid, primaryKey, at);
    if (row.primary_key !== primaryKey) this.stmts.updateIndex.run(primaryKey, at, row.settings, uid);
    // Later documents of a batch win over earlier ones with the same id, as in Meilisearch.
    const byId = new Map<string, Document>();
    const stored =
      payload.mode === "update" || payload.mode === "absent"
        ? await this.documents.getMany(accountId, index, [...new Set(ids)])
        : new Map<string, Document>();
    docs.forEach((doc, i) => {
      const id = ids[i] as string;
      if (payload.mode === "absent" && stored.has(id)) return;
      const base = payload.mode === "update" ? (byId.get(id) ?? stored.get(id)) : undefined;
      byId.set(id, base === undefined ? { ...doc } : { ...base, ...doc });
    });
    if (byId.size > 0 && primaryKey !== null) {
      await this.checkRoom(accountId, index, byId, stored, payload.mode);
      await this.documents.upsert(accountId, index, primaryKey, [...byId.values()]);
    }
    const indexed = payload.mode === "absent" ? byId.size : docs.length;
    return { details: { indexedDocuments: indexed }, apply: () => this.touch(uid, at), stored: true };
  }

  /**
   * Fails the task (nothing written) when its documents would take the index past its bound;
   * documents it replaces take no room. Counts are kept by the store: no document is read.
   */
  private async checkRoom(
    accountId: string,
    index: string,
    byId: Map<string, Document>,
    stored: Map<string, Document>,
    mode: string,
  ): Promise<void> {
    const held = await this.documents.count(accountId, index);
    if (held + byId.size <= this.maxDocumentsPerIndex) return;
    const ids = [...byId.keys()];
    const replaced =
      mode === "update"
        ? ids.filter((id) => stored.has(id)).length
        : ((await this.documents.countIds?.(accountId, index, ids)) ?? 0);
    const after = held + ids.length - replaced;
    if (after <= this.maxDocumentsPerIndex) return;
    throw new TaskFailure(
      taskError(
        "index_documents_limit_exceeded",
        `The index would hold ${after} documents, more than the limit of ${this.maxDocumentsPerIndex} per index; no document of this task was stored.`,
      ),
    );
  }

  private createImplicitly(uid: string, primaryKey: string | null, at: string): IndexRow {
    this.stmts.insertIndex.run(uid, primaryKey, at, at, "{}");
    return this.indexRow(uid) as IndexRow;
  }

  private touch(uid: string, at: string): void {
    const row = this.indexRow(uid);
    if (row !== null) this.stmts.updateIndex.run(row.primary_key, at, row.settings, uid);
  }

  private indexRow(uid: string): IndexRow | null {
    return (this.stmts.getIndex.get(uid) as unknown as IndexRow | undefined) ?? null;
  }

  /** The index's row, or IndexManagerError index_not_found (404). */
  private existing(uid: string): IndexRow {
    if (!INDEX_UID.test(uid)) throw invalidUidError(uid);
    const row = this.indexRow(uid);
    if (row === null) throw new IndexManagerError("refused", indexNotFound(uid), 404);
    return row;
  }
}

/** Meilisearch's inference: the one top-level field of the first document whose name ends with `id` (any case). */
function inferPrimaryKey(doc: Document): string {
  const candidates = isPlainObject(doc)
    ? Object.keys(doc).filter((key) => key.toLowerCase().endsWith("id"))
    : [];
  if (candidates.length === 1) return candidates[0] as string;
  if (candidates.length === 0) {
    throw new TaskFailure(
      taskError(
        "index_primary_key_no_candidate_found",
        "The primary key inference failed as the engine did not find any field ending with `id` in its name. Please specify the primary key manually using the `primaryKey` query parameter.",
      ),
    );
  }
  throw new TaskFailure(
    taskError(
      "index_primary_key_multiple_candidates_found",
      `The primary key inference failed as the engine found ${candidates.length} fields ending with \`id\` in their names: '${candidates.join("' and '")}'. Please specify the primary key manually using the \`primaryKey\` query parameter.`,
    ),
  );
}

/** A failed task indexed or deleted nothing. */
function failedDetails(type: TaskType, details: Record<string, unknown>): Record<string, unknown> {
  if (type === "documentAdditionOrUpdate") return { ...details, indexedDocuments: 0 };
  if (type === "documentDeletion" || type === "indexDeletion") return { ...details, deletedDocuments: 0 };
  return details;
}

function infoOf(row: IndexRow): IndexInfo {
  return { uid: row.uid, primaryKey: row.primary_key, createdAt: row.created_at, updatedAt: row.updated_at };
}

function settingsOf(row: IndexRow): IndexSettings {
  return { ...DEFAULT_SETTINGS, ...(JSON.parse(row.settings) as Partial<IndexSettings>) };
}

const waiterKey = (accountId: string, uid: number): string => `${accountId}\u0000${uid}`;

/** What an unrecorded verdict changes in the task as getTask shows it. */
function verdictView(verdict: Verdict): Partial<Task> {
  return {
    status: verdict.status,
    startedAt: verdict.startedAt,
    finishedAt: verdict.finishedAt,
    error: verdict.error,
    details: verdict.details,
  };
}

/**
 * Creates the task tables, or brings those of an older version to per-account numbers: their tasks
 * keep their uids (each now its account's), in their order, and every account's next uid is above
 * the largest uid ever given (the floor row), so no account sees a number twice.
 */
function migrateTasks(db: DatabaseSync, locate: (uid: string) => { accountId: string }): void {
  const create = `CREATE TABLE IF NOT EXISTS tasks (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, account_id TEXT NOT NULL, uid INTEGER NOT NULL,
      index_uid TEXT NOT NULL, type TEXT NOT NULL, status TEXT NOT NULL, enqueued_at TEXT NOT NULL,
      started_at TEXT, finished_at TEXT, error TEXT, details TEXT NOT NULL, payload TEXT,
      UNIQUE (account_id, uid)
    )`;
  const columns = db.prepare("SELECT name FROM pragma_table_info('tasks')").all() as { name: string }[];
  const numbers = `CREATE TABLE IF NOT EXISTS task_numbers (
      account_id TEXT PRIMARY KEY, last_uid INTEGER NOT NULL
    ) WITHOUT ROWID`;
  if (columns.length === 0 || columns.some((c) => c.name === "seq")) {
    db.exec(create);
    db.exec(numbers);
    db.exec("CREATE INDEX IF NOT EXISTS tasks_by_status ON tasks (status, seq)");
    return;
  }
  transaction(db, () => {
    db.exec("DROP INDEX IF EXISTS tasks_by_status");
    db.exec("ALTER TABLE tasks RENAME TO tasks_global");
    db.exec(create);
    db.exec(numbers);
    const insert = db.prepare(
      `INSERT INTO tasks (seq, account_id, uid, index_uid, type, status, enqueued_at, started_at,
         finished_at, error, details, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const r of db.prepare("SELECT * FROM tasks_global ORDER BY uid").iterate() as Iterable<
      Omit<TaskRow, "seq" | "account_id">
    >) {
      insert.run(
        r.uid,
        locate(r.index_uid).accountId,
        r.uid,
        r.index_uid,
        r.type,
        r.status,
        r.enqueued_at,
        r.started_at,
        r.finished_at,
        r.error,
        r.details,
        r.payload,
      );
    }
    const given = db
      .prepare(
        "SELECT MAX(n) AS n FROM (SELECT MAX(uid) AS n FROM tasks_global UNION ALL SELECT seq FROM sqlite_sequence WHERE name IN ('tasks', 'tasks_global'))",
      )
      .get() as { n: number | null };
    db.prepare("INSERT INTO task_numbers (account_id, last_uid) VALUES (?, ?)").run(FLOOR_ROW, given.n ?? 0);
    db.exec("DROP TABLE tasks_global");
    db.exec("CREATE INDEX tasks_by_status ON tasks (status, seq)");
  });
}

function taskOf(row: TaskRow): Task {
  return {
    uid: row.uid,
    indexUid: row.index_uid,
    status: row.status,
    type: row.type,
    enqueuedAt: row.enqueued_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    error: row.error === null ? null : (JSON.parse(row.error) as TaskError),
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}
