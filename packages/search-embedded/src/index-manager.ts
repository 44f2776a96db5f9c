// The IndexManager port over SQLite: documents in the DocumentStore (whose revision is what the
// embedded engine's snapshots are checked against), index metadata and tasks in tables of the same
// database. Writes are recorded as `enqueued` tasks and processed in uid order by an in-process
// worker; tasks survive a restart (an unfinished one is run again, which is safe: every task is
// idempotent). docs/search.md, "Index management".
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
  type Task,
  type TaskError,
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
}

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
    | "getTask"
    | "nextTask"
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
  /** Waiters by task uid, woken when the task ends. */
  private readonly waiters = new Map<number, Set<() => void>>();

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
    db.exec(`CREATE TABLE IF NOT EXISTS tasks (
      uid INTEGER PRIMARY KEY AUTOINCREMENT, index_uid TEXT NOT NULL, type TEXT NOT NULL,
      status TEXT NOT NULL, enqueued_at TEXT NOT NULL, started_at TEXT, finished_at TEXT,
      error TEXT, details TEXT NOT NULL, payload TEXT
    )`);
    db.exec("CREATE INDEX IF NOT EXISTS tasks_by_status ON tasks (status, uid)");
    db.exec(`CREATE TABLE IF NOT EXISTS managed_indexes (
      uid TEXT PRIMARY KEY, primary_key TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
      settings TEXT NOT NULL
    ) WITHOUT ROWID`);
    this.stmts = {
      insertTask: db.prepare(
        "INSERT INTO tasks (index_uid, type, status, enqueued_at, details, payload) VALUES (?, ?, 'enqueued', ?, ?, ?) RETURNING uid",
      ),
      getTask: db.prepare("SELECT * FROM tasks WHERE uid = ?"),
      nextTask: db.prepare(
        "SELECT * FROM tasks WHERE status IN ('enqueued', 'processing') ORDER BY uid LIMIT 1",
      ),
      startTask: db.prepare("UPDATE tasks SET status = 'processing', started_at = ? WHERE uid = ?"),
      finishTask: db.prepare(
        "UPDATE tasks SET status = ?, finished_at = ?, error = ?, details = ?, payload = NULL WHERE uid = ?",
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
        "DELETE FROM tasks WHERE status IN ('succeeded', 'failed') AND uid <= (SELECT uid FROM tasks WHERE status IN ('succeeded', 'failed') ORDER BY uid DESC LIMIT 1 OFFSET ?)",
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

  async getTask(taskUid: number): Promise<Task | null> {
    const row = this.stmts.getTask.get(taskUid) as unknown as TaskRow | undefined;
    return row === undefined ? null : taskOf(row);
  }

  /** Waits for the worker's word that the task ended (no polling); `intervalMs` is not used here. */
  async waitForTask(taskUid: number, options: WaitOptions = {}): Promise<Task> {
    const timeoutMs = options.timeoutMs ?? 5000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    let wake: () => void = () => undefined;
    const set = this.waiters.get(taskUid) ?? new Set<() => void>();
    this.waiters.set(taskUid, set);
    try {
      for (;;) {
        // Registered before the read, so an end between the read and the wait is not missed.
        const woken = new Promise<void>((resolve) => {
          wake = resolve;
        });
        set.add(wake);
        const task = await this.getTask(taskUid);
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
      if (set.size === 0 && this.waiters.get(taskUid) === set) this.waiters.delete(taskUid);
    }
  }

  private documentsTask(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options: { primaryKey?: string },
    mode: "replace" | "update",
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

  private async enqueue(
    uid: string,
    type: TaskType,
    details: Record<string, unknown>,
    payload: unknown,
  ): Promise<TaskSummary> {
    if (!INDEX_UID.test(uid)) throw invalidUidError(uid);
    const enqueuedAt = this.now().toISOString();
    const row = this.stmts.insertTask.get(
      uid,
      type,
      enqueuedAt,
      JSON.stringify(details),
      payload === null ? null : JSON.stringify(payload),
    ) as { uid: number };
    this.kick();
    return { taskUid: row.uid, indexUid: uid, status: "enqueued", type, enqueuedAt };
  }

  /** Runs the worker unless it runs already; it processes tasks until none is left. */
  private kick(): void {
    if (!this.started || this.running !== null) return;
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .catch((error: unknown) => {
        // The database itself failed (closed, disk full): the task stays where it was and is
        // processed by the next write's kick or the next start.
        this.logger?.error("index manager: the task worker stopped", { error: String(error) });
      })
      .finally(() => {
        this.running = null;
      });
  }

  private async drain(): Promise<void> {
    for (;;) {
      const row = this.stmts.nextTask.get() as unknown as TaskRow | undefined;
      if (row === undefined) return;
      this.stmts.startTask.run(row.started_at ?? this.now().toISOString(), row.uid);
      const enqueued = JSON.parse(row.details) as Record<string, unknown>;
      let outcome: Outcome | undefined;
      let error: TaskError | null = null;
      try {
        outcome = await this.process(row);
      } catch (thrown) {
        error =
          thrown instanceof TaskFailure
            ? thrown.error
            : taskError(
                "internal",
                `An internal error has occurred. \`${thrown instanceof Error ? thrown.message : String(thrown)}\`.`,
                "internal",
              );
      }
      const finishedAt = this.now().toISOString();
      transaction(this.db, () => {
        outcome?.apply?.();
        this.stmts.finishTask.run(
          error === null ? "succeeded" : "failed",
          finishedAt,
          error === null ? null : JSON.stringify(error),
          JSON.stringify(
            outcome === undefined ? failedDetails(row.type, enqueued) : { ...enqueued, ...outcome.details },
          ),
          row.uid,
        );
      });
      this.stmts.pruneTasks.run(this.keepFinishedTasks);
      for (const wake of this.waiters.get(row.uid) ?? []) wake();
    }
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
        return { details: { deletedDocuments }, apply: () => this.stmts.deleteIndex.run(uid) };
      }
      case "documentDeletion": {
        if (this.indexRow(uid) === null) throw new TaskFailure(indexNotFound(uid));
        const ids = (payload as { ids: string[] }).ids;
        const deletedDocuments = await this.documents.deleteMany(accountId, index, ids);
        return { details: { deletedDocuments }, apply: () => this.touch(uid, at) };
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
      payload.mode === "update"
        ? await this.documents.getMany(accountId, index, [...new Set(ids)])
        : new Map<string, Document>();
    docs.forEach((doc, i) => {
      const id = ids[i] as string;
      const base = payload.mode === "update" ? (byId.get(id) ?? stored.get(id)) : undefined;
      byId.set(id, base === undefined ? { ...doc } : { ...base, ...doc });
    });
    if (byId.size > 0 && primaryKey !== null) {
      await this.checkRoom(accountId, index, byId, stored, payload.mode);
      await this.documents.upsert(accountId, index, primaryKey, [...byId.values()]);
    }
    return { details: { indexedDocuments: docs.length }, apply: () => this.touch(uid, at) };
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
