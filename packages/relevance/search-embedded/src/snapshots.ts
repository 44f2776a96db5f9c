/**
 * A serialized index and the document revision it was built from, as parts of about 60 KB
 * (snapshot-parts.ts): written and read a part at a time, so neither holds the event loop long.
 */
export interface IndexSnapshot {
  revision: number;
  parts: readonly string[];
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
