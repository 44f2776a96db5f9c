import type { AuthThrottle, ClientAddress, LimitRow } from "@relevance/http";
import type { Document, DocumentStore, Kv, Logger, SettingsTable } from "@relevance/settings";
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
   * When present, the customer app hands every index, document and settings write on to it after
   * the settings table (which stays the source of truth for settings): index creation and deletion,
   * the accepted documents (which then go to it instead of `documents`), and an index's whole
   * settings after each change. Answers carry its task summary as `task`. Reads still use `table`
   * and `documents` (the embedded IndexManager writes to the same DocumentStore).
   */
  indexManager?: IndexWrites;
  /** More rows for the OpenAPI document's `x-limits` (the search and monitor limits, say). */
  extraLimitRows?: readonly LimitRow[];
  /** Paths and schemas of apps served beside these (the search proxy in npm start), for the OpenAPI document. */
  extraOpenApi?: { paths: Readonly<Record<string, object>>; schemas: Readonly<Record<string, object>> };
}

/** A Meilisearch-shaped task summary, as the IndexManager port (@relevance/search) answers a write. */
export interface TaskSummary {
  taskUid: number;
  indexUid: string;
  status: string;
  type: string;
  enqueuedAt: string;
}

/**
 * The index writes the customer app hands on to the search backend: structurally the IndexManager
 * port of @relevance/search (its embedded and Meilisearch adapters both fit), which the admin
 * package does not import. Uids are `<systemAccountId>-<index>`.
 */
export interface IndexWrites {
  createIndex(uid: string, options?: { primaryKey?: string }): Promise<TaskSummary>;
  deleteIndex(uid: string): Promise<TaskSummary>;
  addDocuments(
    uid: string,
    documents: readonly Record<string, unknown>[],
    options?: { primaryKey?: string },
  ): Promise<TaskSummary>;
  updateSettings(
    uid: string,
    settings: {
      searchableAttributes: string[];
      displayedAttributes: string[];
      filterableAttributes: string[];
      sortableAttributes: string[];
      synonyms: Record<string, string[]>;
      stopWords: string[];
    },
  ): Promise<TaskSummary>;
}

/** The admin app touches no documents: the admin Lambda runs without a document store. */
export type AdminDeps = Omit<ApiDeps, "documents">;
/** The customer app does not know the admin token. */
export type CustomerDeps = Omit<ApiDeps, "adminToken">;
