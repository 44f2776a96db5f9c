// Ports owned by the settings domain. Adapters (sqlite/, dynamodb/, kv/) only translate; every
// adapter of a port runs the same contract suite (contract/).

/**
 * One item of the settings table (`{env}-EcomIndexSettingsTable`). Index and alias settings records
 * have `pk` = system account id and `sk` = `INDEX#<index_name>`; accounts and API keys live in the
 * same table under other sort keys (see records.ts).
 */
export interface TableItem {
  pk: string;
  sk: string;
  /** 1 on creation, +1 on every write; conditional writes compare it. */
  version: number;
  /** Every other attribute as plain JSON: DynamoDB maps are objects, NULL is null. */
  attributes: Record<string, unknown>;
}

/** When a write may happen: at a known version, only if absent, or always (direct table edits). */
export type WriteCondition = { expectedVersion: number } | { mustNotExist: true } | { always: true };

export type WriteResult =
  | { ok: true; item: TableItem }
  | { ok: false; reason: "conflict"; current: TableItem | null };

export type DeleteResult =
  | { ok: true; old: TableItem }
  | { ok: false; reason: "conflict"; current: TableItem | null };

export interface SettingsTable {
  get(pk: string, sk: string): Promise<TableItem | null>;
  /** Replaces the item's attributes, setting version to previous + 1 (1 when new), if `condition` holds. */
  put(
    pk: string,
    sk: string,
    attributes: Record<string, unknown>,
    condition: WriteCondition,
  ): Promise<WriteResult>;
  delete(pk: string, sk: string, condition: WriteCondition): Promise<DeleteResult>;
  /** Items of one partition whose sort key starts with `skPrefix`, in sort-key order. */
  query(pk: string, skPrefix: string): Promise<TableItem[]>;
  /**
   * The direct settings edit (docs/operations.md): set one top-level attribute (or remove it with
   * `undefined`) on an existing item without any validation, as an operator in the console does.
   * Bumps the version so that stale conditional writers get a conflict. Null when the item is absent.
   */
  setAttribute(pk: string, sk: string, name: string, value: unknown): Promise<TableItem | null>;
}

/** One change of one table item, as a change stream delivers it (NEW_AND_OLD_IMAGES). */
export interface Change {
  /** Position in the stream; increases per item (SQLite: the change-log sequence number). */
  sequence: string;
  pk: string;
  sk: string;
  kind: "insert" | "modify" | "remove";
  oldItem: TableItem | null;
  newItem: TableItem | null;
}

/**
 * The edge key-value store: models under `relevance_model:<modelId>`, settings copies under
 * `<system_account_id>-<index_name>`. Adapters throw on I/O failure; callers decide on retries.
 */
export interface Kv {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** Key names starting with `prefix`, sorted. */
  list(prefix: string): Promise<string[]>;
}

/**
 * What a KV records of its own about when keys were written, for decisions that must not rest on the
 * caller's clock alone (the 24 h grace period before an old model version is deleted). Optional: the
 * SQLite KV (each row's write time) and the Cloudflare REST KV (metadata written with the value, and
 * the API's own clock) have it; the Worker binding does not need it.
 */
export interface KvWriteTimes {
  /** Puts like `Kv.put`, and keeps the time of the write beside the value. */
  putStamped(key: string, value: string): Promise<void>;
  /**
   * For keys starting with `prefix`: key → ISO time the store keeps for its last write (keys written
   * without one are absent), and the store's own current time when it tells it (else null).
   */
  writeTimes(prefix: string): Promise<{ times: Map<string, string>; storeNow: Date | null }>;
}

/** Structured log lines: the kernel's port, which both systems log through. */
export type { Logger } from "@shared/kernel";

/** A document as the customer sent it (a JSON object). */
export type Document = Record<string, unknown>;

/** An index's stats as Meilisearch answers them: its document count and documents per top-level field. */
export interface DocumentStats {
  numberOfDocuments: number;
  fieldDistribution: Record<string, number>;
}

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
  /**
   * The same page as `list`, each document as its stored JSON text, read a few at a time: a page of
   * a thousand large documents is never held whole (the customer GET streams it).
   */
  listJson(accountId: string, index: string, offset: number, limit: number): AsyncIterable<string>;
  deleteIndex(accountId: string, index: string): Promise<void>;
  /** Increases with every change to the index's documents (in the same transaction); 0 when never written. */
  revision(accountId: string, index: string): Promise<number>;
  /**
   * The index's count and field distribution when the store keeps them as it writes; a store
   * without it has them counted by reading every document (`documentStats`).
   */
  stats?(accountId: string, index: string): Promise<DocumentStats>;
  /** How many of `ids` (primary-key values as strings) the index holds, when the store can say cheaply. */
  countIds?(accountId: string, index: string, ids: readonly string[]): Promise<number>;
}

/**
 * A DocumentStore that can also read and delete documents by id: what the embedded IndexManager
 * (packages/relevance/search) needs for partial updates and deletions by id. `SqliteDocumentStore` is one.
 */
export interface EditableDocumentStore extends DocumentStore {
  /** The stored documents among `ids` (primary-key values as strings), by id; missing ids are absent. */
  getMany(accountId: string, index: string, ids: readonly string[]): Promise<Map<string, Document>>;
  /** Deletes the documents among `ids`, all or nothing; when any existed, increments the revision. Answers how many were deleted. */
  deleteMany(accountId: string, index: string, ids: readonly string[]): Promise<number>;
}
