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
  /** More rows for the OpenAPI document's `x-limits` (the search and monitor limits, say). */
  extraLimitRows?: readonly LimitRow[];
  /** Paths and schemas of apps served beside these (the search proxy in npm start), for the OpenAPI document. */
  extraOpenApi?: { paths: Readonly<Record<string, object>>; schemas: Readonly<Record<string, object>> };
}

/** The admin app touches no documents: the admin Lambda runs without a document store. */
export type AdminDeps = Omit<ApiDeps, "documents">;
/** The customer app does not know the admin token. */
export type CustomerDeps = Omit<ApiDeps, "adminToken">;
