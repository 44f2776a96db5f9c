/**
 * LOCAL TEST DOUBLE of a ClickHouse server's HTTP interface, backed by chDB (tests only: there is no
 * ClickHouse server on the test machine). It runs the SQL it receives in a chDB session on a data
 * folder and answers as ClickHouse does: JSONEachRow rows with a 200, or ClickHouse's
 * `Code: N. DB::Exception: … (NAME)` text with a non-200 status and `X-ClickHouse-Exception-Code`.
 * It speaks only what httpClickHouse sends: `POST /` with the SQL as the body (or in `query`, with
 * the rows in the body), `param_*` query parameters (in ClickHouse's escaped text form),
 * `default_format`, and `X-ClickHouse-User` / `X-ClickHouse-Key` when the double was given a user.
 * Other settings (`database`, `wait_for_async_insert`) are accepted and not applied: chDB inserts are
 * synchronous, and the store names its tables fully.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Session } from "chdb";

export interface ClickHouseHttpChdbDouble {
  url: string;
  /** The SQL of every statement received, in order. */
  statements: string[];
  close(): Promise<void>;
}

export interface ClickHouseHttpChdbOptions {
  /** When set, a request must carry this user and password (else 516 AUTHENTICATION_FAILED). */
  user?: string;
  password?: string;
}

/** The value of a `param_*` in ClickHouse's escaped text form, unescaped. */
function unescapeParam(text: string): string {
  const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "0": "\0", b: "\b", f: "\f" };
  return text.replace(/\\(.)/gs, (_, c: string) => map[c] ?? c);
}

/** Starts the double on a free port of 127.0.0.1, over the chDB data folder `path`. */
export async function startClickHouseHttpChdb(
  path: string,
  opts: ClickHouseHttpChdbOptions = {},
): Promise<ClickHouseHttpChdbDouble> {
  const session = new Session(path);
  const statements: string[] = [];

  const fail = (res: ServerResponse, status: number, code: number, text: string) => {
    res.writeHead(status, {
      "content-type": "text/plain; charset=UTF-8",
      "x-clickhouse-exception-code": String(code),
    });
    res.end(`${text}\n`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://double");
    if (opts.user !== undefined) {
      if (
        req.headers["x-clickhouse-user"] !== opts.user ||
        req.headers["x-clickhouse-key"] !== (opts.password ?? "")
      ) {
        fail(
          res,
          516,
          516,
          "Code: 516. DB::Exception: default: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)",
        );
        return;
      }
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const inUrl = url.searchParams.get("query");
    const sql = inUrl === null ? body : `${inUrl}\n${body}`;
    statements.push(inUrl ?? body);
    const params: Record<string, string> = {};
    for (const [k, v] of url.searchParams) if (k.startsWith("param_")) params[k.slice(6)] = unescapeParam(v);
    const format = url.searchParams.get("default_format") ?? "TabSeparated";
    try {
      const r =
        Object.keys(params).length === 0
          ? await session.queryAsync(sql, { format })
          : await session.queryBindAsync(sql, params, { format });
      res.writeHead(200, {
        "content-type": "application/x-ndjson; charset=UTF-8",
        "x-clickhouse-format": format,
      });
      res.end(r.text());
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      const code = Number(/Code:\s*(\d+)/.exec(text)?.[1] ?? 1001);
      fail(
        res,
        code === 60 || code === 81 ? 404 : 500,
        code,
        text.startsWith("Code:") ? text : `Code: ${code}. DB::Exception: ${text}`,
      );
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) =>
      fail(res, 500, 1001, `Code: 1001. DB::Exception: double failed: ${String(err)}. (STD_EXCEPTION)`),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    statements,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          session.close();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
