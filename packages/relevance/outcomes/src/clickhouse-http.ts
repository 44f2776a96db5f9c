/**
 * ClickHouseSql over a ClickHouse server's HTTP interface, with nothing but `fetch`: it runs in the
 * Worker's queue consumer (workerd), on Lambda and on Node alike, so it imports no node:* module.
 * Outbound HTTP here follows no redirects (a 3xx is an error: credentials must not travel to another
 * host), every call has a deadline (AbortSignal), and ClickHouse's own exception text reaches the
 * caller in the error.
 */
import { ClickHouseError, type ClickHouseSql, exceptionCode, type SqlParams } from "./clickhouse-sql.ts";

export interface HttpClickHouseOptions {
  /** The server's HTTP(S) endpoint, e.g. `https://ch.example.com:8443`. */
  url: string;
  user?: string;
  password?: string;
  /** The default database of every statement (the store names its tables fully anyway). */
  database?: string;
  /** Deadline of one call, connect to last byte. */
  timeoutMs: number;
  /** The fetch to use (tests, or a Worker's service binding); the global one by default. */
  fetch?: typeof fetch;
}

/**
 * A query parameter's value in ClickHouse's escaped text form: the server parses `param_x` as the
 * type's text, where a backslash starts an escape, so these characters are escaped as
 * @clickhouse/client does.
 */
export function escapeParam(value: string | number): string {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`query parameter is not a finite number: ${value}`);
    return String(value);
  }
  return value.replace(/[\\\t\n\r'\0]/g, (c) =>
    c === "\\"
      ? "\\\\"
      : c === "\t"
        ? "\\t"
        : c === "\n"
          ? "\\n"
          : c === "\r"
            ? "\\r"
            : c === "'"
              ? "\\'"
              : "\\0",
  );
}

export function httpClickHouse(opts: HttpClickHouseOptions): ClickHouseSql {
  const base = new URL(opts.url);
  if (base.protocol !== "http:" && base.protocol !== "https:")
    throw new RangeError(`CLICKHOUSE_URL must be http(s): ${base.protocol}`);
  const doFetch = opts.fetch ?? ((input: URL, init?: RequestInit) => fetch(input, init));
  const headers: Record<string, string> = { "content-type": "text/plain; charset=utf-8" };
  if (opts.user !== undefined) headers["X-ClickHouse-User"] = opts.user;
  if (opts.password !== undefined) headers["X-ClickHouse-Key"] = opts.password;

  async function call(search: Record<string, string>, body: string): Promise<string> {
    const url = new URL(base);
    for (const [k, v] of Object.entries(search)) url.searchParams.set(k, v);
    if (opts.database !== undefined) url.searchParams.set("database", opts.database);
    let res: Response;
    try {
      res = await doFetch(url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      const e = err as Error;
      const why = e.name === "TimeoutError" ? `no answer within ${opts.timeoutMs} ms` : e.message;
      throw new ClickHouseError(`ClickHouse at ${base.origin} unreachable: ${why}`);
    }
    const text = await res.text().catch(() => "");
    if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) {
      throw new ClickHouseError(
        `ClickHouse at ${base.origin} answered a redirect (${res.status} to ${res.headers.get("location") ?? "?"}): not followed`,
      );
    }
    // A query may fail after the 200 was sent: the header or the text's tail says so.
    const headerCode = res.headers.get("x-clickhouse-exception-code");
    if (!res.ok || headerCode !== null) {
      const code = headerCode !== null ? Number(headerCode) : exceptionCode(text);
      throw new ClickHouseError(
        `ClickHouse at ${base.origin} failed (HTTP ${res.status}): ${text.trim().slice(0, 2000)}`,
        code,
      );
    }
    return text;
  }

  const paramsOf = (params: SqlParams | undefined): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(params ?? {})) out[`param_${k}`] = escapeParam(v);
    return out;
  };

  return {
    async query<T>(sql: string, params?: SqlParams): Promise<T[]> {
      const text = await call({ default_format: "JSONEachRow", ...paramsOf(params) }, sql);
      return parseJsonEachRow<T>(text);
    },
    async exec(sql: string, params?: SqlParams): Promise<void> {
      await call(paramsOf(params), sql);
    },
    async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
      if (rows.length === 0) return;
      // wait_for_async_insert: resolve only once readable, also on a server with async inserts on.
      await call(
        { query: `INSERT INTO ${table} FORMAT JSONEachRow`, wait_for_async_insert: "1" },
        rows.map((r) => JSON.stringify(r)).join("\n"),
      );
    },
  };
}

export function parseJsonEachRow<T>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split("\n")) if (line.trim() !== "") out.push(JSON.parse(line) as T);
  return out;
}
