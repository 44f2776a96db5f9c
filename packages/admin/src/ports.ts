import type { Kv, Logger, SettingsTable } from "@relevance/settings";

/** A document as the customer sent it (a JSON object). */
export type Document = Record<string, unknown>;

/**
 * Where an index's documents live. The embedded default is SQLite (`SqliteDocumentStore`); in
 * production the documents belong to Meilisearch (a later issue). The search engine reads from it.
 */
export interface DocumentStore {
  /** Inserts or replaces `docs` by `String(doc[primaryKey])`, all or nothing. */
  upsert(accountId: string, index: string, primaryKey: string, docs: readonly Document[]): Promise<void>;
  count(accountId: string, index: string): Promise<number>;
  /** Documents in primary-key order. */
  list(accountId: string, index: string, offset: number, limit: number): Promise<Document[]>;
  deleteIndex(accountId: string, index: string): Promise<void>;
}

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
}

/** The admin app touches no documents: the admin Lambda runs without a document store. */
export type AdminDeps = Omit<ApiDeps, "documents">;
/** The customer app does not know the admin token. */
export type CustomerDeps = Omit<ApiDeps, "adminToken">;
