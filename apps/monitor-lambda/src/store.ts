/** The run store of the functions: ClickHouse over HTTP, migrated once per execution environment. */
import { type ClickHouseRunStore, openHttpRunStore } from "@monitor/clickhouse";
import type { ClickHouseSettings } from "./config.ts";

export function openStore(s: ClickHouseSettings): ClickHouseRunStore {
  return openHttpRunStore({
    url: s.url,
    username: s.username,
    password: s.password,
    database: s.database,
    timeoutMs: s.timeoutMs,
  });
}

/**
 * `make` once per execution environment, shared by concurrent callers; a failure is not kept, so
 * the next invocation tries again (the database may be back).
 */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | null = null;
  return () => {
    value ??= make().catch((error: unknown) => {
      value = null;
      throw error;
    });
    return value;
  };
}
