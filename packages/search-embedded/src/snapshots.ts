/** A serialized index and the document revision it was built from. */
export interface IndexSnapshot {
  revision: number;
  json: string;
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
