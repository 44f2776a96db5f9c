/**
 * A serialized index and the document revision it was built from, as parts of up to a megabyte
 * (snapshot-parts.ts): written and read a part at a time, so neither holds the event loop long.
 */
export interface IndexSnapshot {
  revision: number;
  /** JSON text, and raw bytes (snapshot-parts.ts): a store keeps each as it is given. */
  parts: readonly (string | Uint8Array)[];
}

/**
 * Where the embedded engine keeps serialized indexes so that a restart with unchanged documents
 * loads them instead of re-indexing. Losing a snapshot only costs a rebuild.
 */
export interface IndexSnapshotStore {
  get(accountId: string, index: string): Promise<IndexSnapshot | null>;
  /** Stores the snapshot unless one built from a later revision is already there. */
  put(accountId: string, index: string, snapshot: IndexSnapshot): Promise<void>;
}
