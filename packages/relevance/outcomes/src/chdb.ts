/**
 * ClickHouseSql over the embedded chDB engine (Node only): its own entry, `@relevance/outcomes/chdb`,
 * imported by npm start and tests, never by what the Worker or a Lambda bundles. Every call runs off
 * the event loop (Session.queryAsync / queryBindAsync / insert), never the synchronous query.
 *
 * chDB allows one data folder per process: sessions on the same folder coexist, another folder is
 * refused. npm start therefore opens the stack's chDB folder (the monitor's, DATA_DIR/chdb) and keeps
 * the outcome tables in a database of their own (`relevance`).
 */
import { Session } from "chdb";
import { parseJsonEachRow } from "./clickhouse-http.ts";
import { ClickHouseError, type ClickHouseSql, exceptionCode, type SqlParams } from "./clickhouse-sql.ts";
import { ClickHouseOutcomeStore, type ClickHouseOutcomeStoreOptions } from "./clickhouse-store.ts";

export interface ChdbClickHouse extends ClickHouseSql {
  /** Releases this session (the folder stays open for other sessions of the process). */
  close(): void;
}

function wrap(err: unknown): ClickHouseError {
  const text = err instanceof Error ? err.message : String(err);
  return new ClickHouseError(`chDB failed: ${text}`, exceptionCode(text));
}

/** A chDB session on the data folder `path`. */
export function chdbClickHouse(path: string): ChdbClickHouse {
  const session = new Session(path);
  return {
    async query<T>(sql: string, params?: SqlParams): Promise<T[]> {
      try {
        const r =
          params === undefined
            ? await session.queryAsync(sql, { format: "JSONEachRow" })
            : await session.queryBindAsync(sql, params, { format: "JSONEachRow" });
        return parseJsonEachRow<T>(r.text());
      } catch (err) {
        throw wrap(err);
      }
    },
    async exec(sql: string, params?: SqlParams): Promise<void> {
      try {
        if (params === undefined) await session.queryAsync(sql, { format: "JSONEachRow" });
        else await session.queryBindAsync(sql, params, { format: "JSONEachRow" });
      } catch (err) {
        throw wrap(err);
      }
    },
    async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
      if (rows.length === 0) return;
      try {
        await session.insert({
          table,
          values: rows.map((r) => JSON.stringify(r)).join("\n"),
          format: "JSONEachRow",
        });
      } catch (err) {
        throw wrap(err);
      }
    },
    close() {
      session.close();
    },
  };
}

/**
 * The outcome store on a chDB data folder, its tables in `database` (default `relevance`), migrated
 * before it resolves.
 */
export async function openChdbOutcomeStore(
  path: string,
  opts: ClickHouseOutcomeStoreOptions = {},
): Promise<{ store: ClickHouseOutcomeStore; close(): void }> {
  const sql = chdbClickHouse(path);
  try {
    const store = new ClickHouseOutcomeStore(sql, opts);
    await store.migrate();
    return { store, close: () => sql.close() };
  } catch (err) {
    sql.close();
    throw err;
  }
}
