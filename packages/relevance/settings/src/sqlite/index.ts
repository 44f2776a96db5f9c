export { SqliteChangeLog } from "./change-log.ts";
export { openDatabase, transaction } from "./database.ts";
export { SqliteDocumentStore } from "./documents.ts";
export { SqliteKv } from "./kv.ts";
export { SqliteSettingsTable } from "./settings-table.ts";
