import type { Document, DocumentStore, Kv, Logger, SettingsTable } from "@relevance/settings";

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
}

/** The admin app touches no documents: the admin Lambda runs without a document store. */
export type AdminDeps = Omit<ApiDeps, "documents">;
/** The customer app does not know the admin token. */
export type CustomerDeps = Omit<ApiDeps, "adminToken">;
