export {
  EmbeddedRetrieval,
  type EmbeddedRetrievalOptions,
  type EmbeddedRetrievalStats,
  fuzziness,
} from "./engine.ts";
export { FileIndexSnapshotStore } from "./file-snapshots.ts";
export { compileFilter, type DocumentPredicate, type FilterExpression, parseFilter } from "./filter.ts";
export { defaultLocate, EmbeddedIndexManager, type EmbeddedIndexManagerOptions } from "./index-manager.ts";
export type { IndexSnapshot, IndexSnapshotStore } from "./snapshots.ts";
export { dropSqliteIndexSnapshots, SqliteIndexSnapshotStore } from "./sqlite-snapshots.ts";
