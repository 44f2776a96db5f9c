/**
 * ClickHouseSql: the little of ClickHouse the outcome store needs, as a port with two adapters: a
 * server over HTTP (clickhouse-http.ts: fetch only, so it runs in workerd and on Lambda) and the
 * embedded chDB engine (chdb.ts, Node only, through the `./chdb` entry). Values reach the SQL only as
 * ClickHouse query parameters (`{name:Type}` in the text, bound by the server), never spliced in.
 */

/** Values of `{name:Type}` parameters. */
export type SqlParams = Readonly<Record<string, string | number>>;

export interface ClickHouseSql {
  /** Runs a SELECT and returns its rows (JSONEachRow: 64-bit integers may arrive as strings). */
  query<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
  /** Runs a statement that returns nothing (DDL, ALTER, DELETE). */
  exec(sql: string, params?: SqlParams): Promise<void>;
  /** Inserts rows (JSONEachRow) into `table` (`db.name`, plain identifiers); resolves once they are readable. */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
}

/** A ClickHouse failure: the server's or the engine's own text, with its code when it gave one. */
export class ClickHouseError extends Error {
  override readonly name = "ClickHouseError";
  /** ClickHouse's error code (`Code: N`), when the answer carried one. */
  readonly code: number | null;
  constructor(message: string, code: number | null = null) {
    super(message);
    this.code = code;
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * A database or table name for SQL text (names cannot be query parameters in DDL). Only plain
 * identifiers are accepted, so nothing a name holds can change the statement.
 */
export function sqlIdentifier(name: string): string {
  if (!IDENTIFIER.test(name))
    throw new RangeError(`not a plain ClickHouse identifier: ${JSON.stringify(name)}`);
  return `\`${name}\``;
}

/** The `Code: N` of a ClickHouse exception text, if any. */
export function exceptionCode(text: string): number | null {
  const m = /Code:\s*(\d+)/.exec(text);
  return m === null ? null : Number(m[1]);
}
