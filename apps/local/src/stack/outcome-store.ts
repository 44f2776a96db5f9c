// The outcome store of the embedded stack: served searches and outcome events in chDB. chDB allows
// one data folder per process, so the store opens the monitor's folder (DATA_DIR/chdb, opened
// through @monitor/clickhouse) with a session of its own and keeps its tables in the database
// `relevance`; OUTCOME_RETENTION_DAYS sets their TTL and the hourly purge. docs/outcomes.md.
import { join } from "node:path";
import {
  ClickHouseOutcomeStore,
  type OutcomeStore,
  type RetentionPurge,
  startRetentionPurge,
} from "@relevance/outcomes";
import { chdbClickHouse } from "@relevance/outcomes/chdb";
import type { Logger } from "@relevance/settings";
import type { LocalConfig } from "../env.ts";

export type OutcomeRetention = RetentionPurge;

export function startOutcomeStore(
  config: Pick<LocalConfig, "dataDir" | "outcomeRetentionDays">,
  log: Logger,
  now: () => number = Date.now,
): { store: OutcomeStore; retention: OutcomeRetention; close(): void } {
  const sql = chdbClickHouse(join(config.dataDir, "chdb"));
  // Migrates on first use (the purge below is the first), so the stack's start does not wait on it.
  const store = new ClickHouseOutcomeStore(sql, { retentionDays: config.outcomeRetentionDays });
  const retention = startRetentionPurge({ store, retentionDays: config.outcomeRetentionDays, now, log });
  return { store, retention, close: () => sql.close() };
}
