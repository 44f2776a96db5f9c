// The IndexManager port: index management as Meilisearch does it (indexes, documents, settings,
// stats), asynchronous through tasks. Adapters: embedded/index-manager.ts (SQLite, tasks in a
// `tasks` table) and meilisearch/index-manager.ts (the official `meilisearch` client). Every
// adapter runs the same contract suite (contract/index-manager.contract.ts). docs/search.md,
// "Index management".

import type { TypoTolerance } from "./ports.ts";
import { DEFAULT_RANKING_RULES, DEFAULT_TYPO_TOLERANCE } from "./settings-copy.ts";

/** A task's state; `succeeded` and `failed` are final. */
export type TaskStatus = "enqueued" | "processing" | "succeeded" | "failed";

export type TaskType =
  | "indexCreation"
  | "indexDeletion"
  | "documentAdditionOrUpdate"
  | "documentDeletion"
  | "settingsUpdate";

/** Meilisearch's error object: in a failed task, and in an IndexManagerError. */
export interface TaskError {
  message: string;
  code: string;
  type: string;
  link: string;
}

/** What a write answers at once (Meilisearch's 202 body). */
export interface TaskSummary {
  taskUid: number;
  indexUid: string;
  status: TaskStatus;
  type: TaskType;
  enqueuedAt: string;
}

/** A task as `GET /tasks/{uid}` shows it. */
export interface Task {
  uid: number;
  indexUid: string;
  status: TaskStatus;
  type: TaskType;
  enqueuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Why the task failed; null unless `status` is `failed`. */
  error: TaskError | null;
  /** By type, as Meilisearch documents them: `receivedDocuments`/`indexedDocuments`, `providedIds`/`deletedDocuments`, `primaryKey`, the settings sent. */
  details: Record<string, unknown>;
}

/**
 * Meilisearch's `GET /tasks` filters (each list: any of; dates: strictly before / after). Tasks come
 * newest first: `from` is the highest uid to answer.
 */
export interface TaskQuery {
  uids?: readonly number[];
  statuses?: readonly TaskStatus[];
  types?: readonly TaskType[];
  indexUids?: readonly string[];
  /** At most this many tasks (default 20). */
  limit?: number;
  from?: number;
  beforeEnqueuedAt?: string;
  afterEnqueuedAt?: string;
  beforeStartedAt?: string;
  afterStartedAt?: string;
  beforeFinishedAt?: string;
  afterFinishedAt?: string;
}

/** A page of tasks, as Meilisearch's `GET /tasks` answers it: `next` is the `from` of the next page. */
export interface TaskPage {
  results: Task[];
  total: number;
  limit: number;
  from: number | null;
  next: number | null;
}

export interface IndexInfo {
  uid: string;
  /** Null until set at creation or inferred from the first documents. */
  primaryKey: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface IndexPage {
  results: IndexInfo[];
  offset: number;
  limit: number;
  total: number;
}

/** A page of an index's documents, as Meilisearch's `GET /indexes/{uid}/documents` answers it. */
export interface DocumentsPage {
  results: Record<string, unknown>[];
  offset: number;
  limit: number;
  total: number;
}

export interface IndexStats {
  numberOfDocuments: number;
  /** A task of the index is enqueued or processing. */
  isIndexing: boolean;
  /** How many documents have each top-level field. */
  fieldDistribution: Record<string, number>;
}

/** The settings the port manages, in Meilisearch's names and defaults (`["*"]` for displayed and searchable). */
export interface IndexSettings {
  searchableAttributes: string[];
  displayedAttributes: string[];
  filterableAttributes: string[];
  sortableAttributes: string[];
  synonyms: Record<string, string[]>;
  stopWords: string[];
  typoTolerance: TypoTolerance;
  rankingRules: string[];
}

/** A settings update: the fields present replace the current value; `null` resets it to the default. */
export type SettingsUpdate = { [K in keyof IndexSettings]?: IndexSettings[K] | null };

export const DEFAULT_SETTINGS: IndexSettings = {
  searchableAttributes: ["*"],
  displayedAttributes: ["*"],
  filterableAttributes: [],
  sortableAttributes: [],
  synonyms: {},
  stopWords: [],
  typoTolerance: DEFAULT_TYPO_TOLERANCE,
  rankingRules: DEFAULT_RANKING_RULES,
};

export type DocumentId = string | number;

/**
 * Whose task a task uid names. Task uids count per account (`accountOfIndexUid`: `acct_…` in
 * `acct_…-products`) in the embedded manager, so that one tenant's numbers say nothing of another's
 * writes; Meilisearch counts one sequence per instance. Without `accountId`: the account "" of
 * index uids that have no `-` (embedded), any account (Meilisearch).
 */
export interface TaskScope {
  /** Another account's task is not found (null, or `task_not_found`), as one that does not exist. */
  accountId?: string;
}

export interface WaitOptions extends TaskScope {
  /** Give up (IndexManagerError `task_timeout`) after this long. Default 5000 ms. */
  timeoutMs?: number;
  /** Between two reads of the task, where the adapter polls. Default 50 ms. */
  intervalMs?: number;
}

/**
 * Index management, asynchronous as in Meilisearch: a write answers a TaskSummary (`enqueued`) and
 * its task later ends `succeeded` or `failed` (with `error`). Requests the backend refuses at once
 * (an invalid uid, a rejected key, an index that does not exist for a read) reject with an
 * IndexManagerError; so do an unreachable or slow backend (`unavailable`, `timeout`). A write
 * answered with a summary is stored: one that cannot be (a full disk) rejects with the error
 * `no_space_left_on_device` (type `system`), or its task ends `failed` with it. A task uid is never
 * given twice (per account, see TaskScope).
 */
export interface IndexManager {
  /** Fails (in the task) with `index_already_exists` when the uid is taken. */
  createIndex(uid: string, options?: { primaryKey?: string }): Promise<TaskSummary>;
  /** Fails (in the task) with `index_not_found` when there is no such index. */
  deleteIndex(uid: string): Promise<TaskSummary>;
  /** Indexes by uid. Defaults: offset 0, limit 20. */
  listIndexes(page?: { offset?: number; limit?: number }): Promise<IndexPage>;
  /** Null when there is no such index. */
  getIndex(uid: string): Promise<IndexInfo | null>;
  /** Adds documents or replaces them whole, by primary key; creates the index if needed. */
  addDocuments(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options?: { primaryKey?: string },
  ): Promise<TaskSummary>;
  /** Adds documents or merges their top-level fields into the stored ones; creates the index if needed. */
  updateDocuments(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options?: { primaryKey?: string },
  ): Promise<TaskSummary>;
  /** Deletes documents by id (ids not found are not an error). */
  deleteDocuments(uid: string, ids: readonly DocumentId[]): Promise<TaskSummary>;
  /** Applies a settings update; creates the index if needed. */
  updateSettings(uid: string, settings: SettingsUpdate): Promise<TaskSummary>;
  /** Rejects with `index_not_found` when there is no such index. */
  getSettings(uid: string): Promise<IndexSettings>;
  /** Rejects with `index_not_found` when there is no such index. */
  getStats(uid: string): Promise<IndexStats>;
  /**
   * A page of the index's documents in a stable order (Meilisearch: its internal order; embedded:
   * by primary key). Defaults: offset 0, limit 20. Rejects with `index_not_found` when there is no
   * such index.
   */
  getDocuments(uid: string, page?: { offset?: number; limit?: number }): Promise<DocumentsPage>;
  /** The document whose primary key is `id`; null when none. Rejects with `index_not_found` when there is no such index. */
  getDocument(uid: string, id: DocumentId): Promise<Record<string, unknown> | null>;
  /** Deletes every document of the index (its settings stay); fails (in the task) with `index_not_found`. */
  deleteAllDocuments(uid: string): Promise<TaskSummary>;
  /**
   * Tasks matching `query`, newest first. With `scope.accountId`: only that account's (index uids
   * `<account>-…`), `total` counting only those.
   */
  listTasks(query?: TaskQuery, scope?: TaskScope): Promise<TaskPage>;
  /** Null when there is no such task (of `scope.accountId`). */
  getTask(taskUid: number, scope?: TaskScope): Promise<Task | null>;
  /** The task once it is `succeeded` or `failed` (a failed task resolves, it does not reject). */
  waitForTask(taskUid: number, options?: WaitOptions): Promise<Task>;
}

export type IndexManagerFailure =
  /** The backend refused the request (`error` says why: index_not_found, invalid_api_key, ...). */
  | "refused"
  /** The backend could not be reached or answered something that is not Meilisearch's API. */
  | "unavailable"
  /** The backend did not answer in time, or the task did not finish in time (`task_timeout`). */
  | "timeout";

export class IndexManagerError extends Error {
  readonly failure: IndexManagerFailure;
  /** Meilisearch's error object; for unavailable/timeout a synthetic one (`code` unavailable, request_timeout, task_timeout). */
  readonly error: TaskError;
  /** The HTTP status the backend answered, when there was one. */
  readonly status: number | undefined;
  constructor(failure: IndexManagerFailure, error: TaskError, status?: number) {
    super(error.message);
    this.failure = failure;
    this.error = error;
    this.status = status;
  }
}

export const errorLink = (code: string): string => `https://docs.meilisearch.com/errors#${code}`;

export const taskError = (code: string, message: string, type = "invalid_request"): TaskError => ({
  message,
  code,
  type,
  link: errorLink(code),
});

/**
 * Meilisearch's error for a full disk (code `no_space_left_on_device`, type `system`): in a task that
 * failed because its writes could not be stored, or in the IndexManagerError of a write refused
 * before it was enqueued. The engine's own error goes to the log, not here.
 */
export const storageFullTaskError = (what: string): TaskError =>
  taskError(
    "no_space_left_on_device",
    `There is no space left on the device: ${what} not stored. Free disk space (or grow the disk) and send the write again.`,
    "system",
  );

/** Meilisearch's index uid rule. */
export const INDEX_UID = /^[A-Za-z0-9_-]{1,400}$/;

export function invalidUidError(uid: string): IndexManagerError {
  return new IndexManagerError(
    "refused",
    taskError(
      "invalid_index_uid",
      `\`${uid}\` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.`,
    ),
    400,
  );
}

export function indexNotFound(uid: string): TaskError {
  return taskError("index_not_found", `Index \`${uid}\` not found.`);
}

/** The account an index uid belongs to: the part before its first `-` (none: the account ""). */
export const accountOfIndexUid = (uid: string): string => {
  const at = uid.indexOf("-");
  return at < 0 ? "" : uid.slice(0, at);
};

/** The Meilisearch index uid of a customer index: `<systemAccountId>-<index>`. */
export const indexUidOf = (systemAccountId: string, index: string): string => `${systemAccountId}-${index}`;

export const isFinal = (status: TaskStatus): boolean => status === "succeeded" || status === "failed";

/** Sends `documents` as several writes of at most `batchSize` documents each (the client's `addDocumentsInBatches`). */
export async function addDocumentsInBatches(
  manager: IndexManager,
  uid: string,
  documents: readonly Record<string, unknown>[],
  batchSize = 1000,
  options: { primaryKey?: string; partial?: boolean } = {},
): Promise<TaskSummary[]> {
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError("batchSize must be an integer >= 1");
  const summaries: TaskSummary[] = [];
  const write = options.partial === true ? manager.updateDocuments : manager.addDocuments;
  const primaryKey = options.primaryKey === undefined ? {} : { primaryKey: options.primaryKey };
  for (let at = 0; at < documents.length; at += batchSize) {
    summaries.push(await write.call(manager, uid, documents.slice(at, at + batchSize), primaryKey));
  }
  return summaries;
}
