/**
 * LOCAL TEST BRIDGE: a ClickHouse server's HTTP interface in front of an embedded chDB data folder
 * (tests only; there is no ClickHouse server on the test machine). The HTTP adapter
 * (openHttpRunStore, @clickhouse/client over HTTP) then runs its real statements against a real
 * engine: the SQL in the body, or in the `query` parameter with the rows to insert in the body,
 * `param_*` as query parameters, the answer in the format the statement names, exceptions as a 500
 * with ClickHouse's `Code: N. DB::Exception: …` text. Other settings are not forwarded (chDB keeps
 * its defaults).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { errorMessage } from "@shared/kernel";
import { createChdbConnection } from "chdb/connection";

export interface ChdbHttpBridge {
  url: string;
  /** The SQL of every statement received, in order. */
  queries: string[];
  close(): Promise<void>;
}

interface BridgeConnection {
  exec(params: {
    query: string;
    values?: Readable;
    query_params?: Record<string, unknown>;
    clickhouse_settings?: Record<string, unknown>;
  }): Promise<{ stream: Readable }>;
  close(): Promise<void>;
}

/** Starts a bridge to the chDB data folder `path` on a free port of 127.0.0.1. */
export async function startChdbHttpBridge(path: string): Promise<ChdbHttpBridge> {
  const connection = createChdbConnection({ path }) as unknown as BridgeConnection;
  const queries: string[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://bridge");
    if (url.pathname === "/ping") {
      res.writeHead(200).end("Ok.\n");
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const inUrl = url.searchParams.get("query");
    const sql = inUrl ?? body;
    queries.push(sql.trim());
    const params: Record<string, string> = {};
    for (const [k, v] of url.searchParams) if (k.startsWith("param_")) params[k.slice(6)] = v;
    const format = url.searchParams.get("default_format");
    try {
      const out = await connection.exec({
        query: sql,
        ...(inUrl === null ? {} : { values: Readable.from([body]) }),
        query_params: params,
        ...(format === null ? {} : { clickhouse_settings: { default_format: format } }),
      });
      const answer: Buffer[] = [];
      for await (const c of out.stream) answer.push(Buffer.from(c as Uint8Array));
      res.writeHead(200, {
        "content-type": "text/plain; charset=UTF-8",
        "x-clickhouse-query-id": url.searchParams.get("query_id") ?? "",
      });
      res.end(Buffer.concat(answer));
    } catch (err) {
      const message = errorMessage(err);
      const code = /Code: (\d+)/.exec(message)?.[1] ?? "1001";
      res.writeHead(500, {
        "content-type": "text/plain; charset=UTF-8",
        "x-clickhouse-exception-code": code,
      });
      res.end(
        message.startsWith("Code:") ? message : `Code: ${code}. DB::Exception: ${message}. (STD_EXCEPTION)`,
      );
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500);
      res.end(`Code: 1001. DB::Exception: test bridge failed: ${String(err)}. (STD_EXCEPTION)`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await connection.close();
    },
  };
}
