import type { OutcomeStore } from "@relevance/outcomes";
import type {
  CustomerSettings,
  Document,
  DocumentStore,
  Kv,
  Logger,
  SettingsTable,
} from "@relevance/settings";
import type { AuthThrottle, ClientAddress, LimitRow } from "@shared/http";
import type { BodyLimits } from "./limits.ts";

export type { Document, DocumentStore };

/** Everything the admin and customer apps need; built by each deployable, nothing read at import time. */
export interface ApiDeps {
  table: SettingsTable;
  kv: Kv;
  documents: DocumentStore;
  /** The internal admin token (`Authorization: Bearer <adminToken>`), at least 16 characters. */
  adminToken: string;
  log: Logger;
  now: () => Date;
  /** Fills `bytes` with random values; defaults to `crypto.getRandomValues`. */
  randomBytes?: (bytes: Uint8Array) => Uint8Array;
  /**
   * Body size limits (defaults: JSON 1 MiB, documents upload 20 MiB); `bodyLimitsFromEnv` reads
   * `MAX_JSON_BODY_BYTES` / `MAX_DOCUMENTS_BODY_BYTES`.
   */
  limits?: Partial<BodyLimits>;
  /**
   * Failed authentications per client address and credential prefix. Default: a new one (20 per
   * address, 50 per prefix, per minute, on `now`). Pass one instance to share it between apps.
   */
  authThrottle?: AuthThrottle;
  /**
   * The client's address as the runtime knows it (Node's socket, Lambda's sourceIp). Default
   * `headerClientAddress` (CF-Connecting-IP, else "unknown": then every client shares one budget).
   */
  clientAddress?: ClientAddress;
  /**
   * The search backend's index management (structurally the IndexManager port of @relevance/search).
   * When present, the customer app hands every index, document and settings write on to it after
   * the settings table (which stays the source of truth for settings and aliases), and serves its
   * tasks at `GET /api/v1/tasks/{uid}`; answers to writes carry its task. Documents, counts and
   * stats are read from `documents` when given (the embedded stack, whose manager writes to that
   * store), else from the manager (Lambda: Meilisearch). Without it, documents go to `documents`
   * synchronously.
   */
  indexManager?: IndexBackend;
  /**
   * With an index manager: wait (up to `timeoutMs`) for each write's task before answering, and
   * answer its final state. The embedded stack sets it, so what a client wrote is what it reads next
   * (its document store is read directly); Meilisearch's clients still get a task to follow.
   */
  awaitTasks?: { timeoutMs: number };
  /**
   * Largest body a documents page may have, in bytes. Unset: no bound (pages are streamed). The
   * Lambda deployment sets it under API Gateway's 6 MB response limit: a page that would exceed
   * it answers 422 naming `limit` and a limit that fits.
   */
  maxResponseBytes?: number;
  /** More rows for the OpenAPI document's `x-limits` (the search and monitor limits, say). */
  extraLimitRows?: readonly LimitRow[];
  /** Paths and schemas of apps served beside these (the search proxy in npm start), for the OpenAPI document. */
  extraOpenApi?: { paths: Readonly<Record<string, object>>; schemas: Readonly<Record<string, object>> };
  /**
   * Where served searches and outcome events are kept (the stack's chDB; a ClickHouse server in
   * production): the quality report and the training export read it. Without it those routes
   * answer 503 `recording_not_configured`.
   */
  outcomes?: OutcomeStore;
}

/** A Meilisearch-shaped task summary, as the IndexManager port (@relevance/search) answers a write. */
export interface TaskSummary {
  taskUid: number;
  indexUid: string;
  status: string;
  type: string;
  enqueuedAt: string;
}

/** A task as the backend shows it (`GET /tasks/{uid}`). */
export interface BackendTask extends Omit<TaskSummary, "taskUid"> {
  uid: number;
  startedAt: string | null;
  finishedAt: string | null;
  error: { message: string; code: string; type: string; link: string } | null;
  details: Record<string, unknown>;
}

/** Meilisearch's `GET /tasks` filters, as the IndexManager port takes them. */
export interface BackendTaskQuery {
  uids?: readonly number[];
  statuses?: readonly ("enqueued" | "processing" | "succeeded" | "failed")[];
  types?: readonly (
    | "indexCreation"
    | "indexDeletion"
    | "documentAdditionOrUpdate"
    | "documentDeletion"
    | "settingsUpdate"
  )[];
  indexUids?: readonly string[];
  limit?: number;
  from?: number;
  beforeEnqueuedAt?: string;
  afterEnqueuedAt?: string;
  beforeStartedAt?: string;
  afterStartedAt?: string;
  beforeFinishedAt?: string;
  afterFinishedAt?: string;
}

export interface BackendTaskPage {
  results: BackendTask[];
  total: number;
  limit: number;
  from: number | null;
  next: number | null;
}

/** The index settings the customer app sends the backend: the whole customer settings of an index. */
export type BackendSettings = CustomerSettings;

/**
 * The search backend as the customer app uses it: structurally the IndexManager port of
 * @relevance/search (its embedded and Meilisearch adapters both fit), which the admin package does
 * not import. Uids are `<systemAccountId>-<index>`. Reads of an index the backend does not have
 * reject with an error whose `error.code` is `index_not_found`; a write it cannot store (a full
 * disk) rejects with `error.code` `no_space_left_on_device`, or its task fails with it.
 */
export interface IndexBackend {
  createIndex(uid: string, options?: { primaryKey?: string }): Promise<TaskSummary>;
  deleteIndex(uid: string): Promise<TaskSummary>;
  addDocuments(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options?: { primaryKey?: string },
  ): Promise<TaskSummary>;
  /** Merges each document's top-level fields into the stored one (Meilisearch's PUT …/documents). */
  updateDocuments(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options?: { primaryKey?: string },
  ): Promise<TaskSummary>;
  deleteDocuments(uid: string, ids: readonly (string | number)[]): Promise<TaskSummary>;
  deleteAllDocuments(uid: string): Promise<TaskSummary>;
  /** Null when the index has no such document. */
  getDocument(uid: string, id: string | number): Promise<Record<string, unknown> | null>;
  /** Meilisearch's `GET /tasks`, newest first; with `scope.accountId` only that account's. */
  listTasks(query: BackendTaskQuery, scope?: { accountId?: string }): Promise<BackendTaskPage>;
  updateSettings(uid: string, settings: BackendSettings): Promise<TaskSummary>;
  getStats(
    uid: string,
  ): Promise<{ numberOfDocuments: number; isIndexing: boolean; fieldDistribution: Record<string, number> }>;
  getDocuments(
    uid: string,
    page?: { offset?: number; limit?: number },
  ): Promise<{ results: Record<string, unknown>[]; offset: number; limit: number; total: number }>;
  /** Task uids count per account (embedded): `accountId` says whose; another account's task is null. */
  getTask(taskUid: number, scope?: { accountId?: string }): Promise<BackendTask | null>;
  /** The task once it is `succeeded` or `failed`; rejects when it does not end within `timeoutMs`. */
  waitForTask(taskUid: number, options?: { timeoutMs?: number; accountId?: string }): Promise<BackendTask>;
}

/** The admin app touches no documents: the admin Lambda runs without a document store. */
export type AdminDeps = Omit<ApiDeps, "documents">;
/**
 * The customer app does not know the admin token, and needs a document store only without an index
 * backend (the Lambda deployment reads and writes documents through Meilisearch alone).
 */
export type CustomerDeps = Omit<ApiDeps, "adminToken" | "documents" | "indexManager"> &
  (
    | { documents: DocumentStore; indexManager?: IndexBackend }
    | { documents?: undefined; indexManager: IndexBackend }
  );
