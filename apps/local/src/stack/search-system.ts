// The search system of the embedded stack: the settings table and its change log, the KV copies,
// the documents and the embedded engine behind the IndexManager port (SQLite files in DATA_DIR), and
// the settings exporter tailing the change log into KV, and the outcome store (served searches and
// outcome events) on the stack's chDB folder. docs/architecture.md, apps/local.
import { join } from "node:path";
import type { OutcomeStore } from "@relevance/outcomes";
import {
  dropSqliteIndexSnapshots,
  EmbeddedIndexManager,
  EmbeddedRetrieval,
  FileIndexSnapshotStore,
} from "@relevance/search-embedded";
import { ChangeTailer, type Logger } from "@relevance/settings";
import {
  openDatabase,
  SqliteChangeLog,
  SqliteDocumentStore,
  SqliteKv,
  SqliteSettingsTable,
} from "@relevance/settings/sqlite";
import type { LocalConfig } from "../env.ts";
import { type OutcomeRetention, startOutcomeStore } from "./outcome-store.ts";

export interface SearchSystem {
  table: SqliteSettingsTable;
  kv: SqliteKv;
  documents: SqliteDocumentStore;
  /** The embedded index manager behind the customer API's index writes (tasks in settings.db). */
  indexManager: EmbeddedIndexManager;
  changeLog: SqliteChangeLog;
  tailer: ChangeTailer | null;
  retrieval: EmbeddedRetrieval;
  /** Served searches and outcome events (chDB, database `relevance`), purged every hour. */
  outcomes: OutcomeStore;
  outcomeRetention: OutcomeRetention;
  /** Ends the work in flight: the exporter, the engine's snapshots and its task worker. */
  drain(): Promise<void>;
  /** Closes the databases (after drain, and after everything that reads them). */
  close(): void;
}

export function startSearchSystem(config: LocalConfig, log: Logger): SearchSystem {
  const settingsDb = openDatabase(join(config.dataDir, "settings.db"));
  const kvDb = openDatabase(join(config.dataDir, "kv.db"));
  const table = new SqliteSettingsTable(settingsDb);
  const changeLog = new SqliteChangeLog(settingsDb);
  const kv = new SqliteKv(kvDb);
  const documents = new SqliteDocumentStore(settingsDb);
  // Index writes go through the IndexManager port, as they go to Meilisearch in production: tasks
  // (GET /api/v1/tasks/{uid}) in the same database, processed in order by an in-process worker.
  const indexManager = new EmbeddedIndexManager({ db: settingsDb, documents, logger: log });

  let tailer: ChangeTailer | null = null;
  let unsubscribe = () => {};
  if (config.exporter) {
    const t = new ChangeTailer(changeLog, {
      kv,
      log,
      onExported: (change, outcome) => {
        if (outcome.status !== "ignored") {
          log.info("settings exported", {
            sequence: Number(change.sequence),
            pk: change.pk,
            sk: change.sk,
            ...outcome,
          });
        }
      },
    });
    // Writes in this process wake the exporter at once; the poll covers writes by other processes.
    const off = table.onChange(() => t.poke());
    unsubscribe = () => off();
    t.start();
    tailer = t;
  }

  // Index snapshots are files (a restart reads a 100,000-product index in one large read, no copy);
  // the tables that held them before are dropped once (a restart rebuilds what they held).
  dropSqliteIndexSnapshots(settingsDb);
  const retrieval = new EmbeddedRetrieval({
    documents,
    store: new FileIndexSnapshotStore(join(config.dataDir, "search-index")),
    logger: log,
  });

  const outcomes = startOutcomeStore(config, log);

  return {
    table,
    kv,
    documents,
    indexManager,
    changeLog,
    tailer,
    retrieval,
    outcomes: outcomes.store,
    outcomeRetention: outcomes.retention,
    async drain() {
      unsubscribe();
      await tailer?.stop();
      await retrieval.flush();
      await indexManager.idle();
      await outcomes.retention.stop();
    },
    close() {
      settingsDb.close();
      kvDb.close();
      outcomes.close();
    },
  };
}
