/**
 * LOCAL TEST DOUBLE of a ClickHouse server's HTTP interface (tests only; there is no ClickHouse server
 * on the test machine, only chDB). It speaks just enough of the protocol for `@clickhouse/client`:
 * `POST /?query_id=…` with the SQL as the body, JSONEachRow answers, and exceptions as a non-200
 * status with ClickHouse's `Code: N. DB::Exception: … (NAME)` text. Each query is answered by the first
 * rule whose pattern matches its SQL; unmatched queries get an empty result.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type DoubleReply =
  | { rows: readonly Record<string, unknown>[] }
  | { error: { code: number; name: string; message: string; status?: number } };

export interface ClickHouseHttpDouble {
  url: string;
  /** The SQL of every query received, in order. */
  queries: string[];
  /** Answer queries matching `pattern` with `reply` (first matching rule wins). */
  answer(pattern: RegExp, reply: DoubleReply): void;
  close(): Promise<void>;
}

export async function startClickHouseHttpDouble(): Promise<ClickHouseHttpDouble> {
  const rules: { pattern: RegExp; reply: DoubleReply }[] = [];
  const queries: string[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const sql = Buffer.concat(chunks).toString("utf8").trim();
    queries.push(sql);
    const reply = rules.find((r) => r.pattern.test(sql))?.reply ?? { rows: [] };
    if ("error" in reply) {
      const e = reply.error;
      res.writeHead(e.status ?? 500, {
        "content-type": "text/plain; charset=UTF-8",
        "x-clickhouse-exception-code": String(e.code),
      });
      res.end(
        `Code: ${e.code}. DB::Exception: ${e.message}. (${e.name}) (version 24.8.4.13 (official build))\n`,
      );
      return;
    }
    res.writeHead(200, {
      "content-type": "application/x-ndjson; charset=UTF-8",
      "x-clickhouse-format": "JSONEachRow",
      "x-clickhouse-query-id": new URL(req.url ?? "/", "http://double").searchParams.get("query_id") ?? "",
    });
    res.end(reply.rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500);
      res.end(`Code: 1001. DB::Exception: test double failed: ${String(err)}. (STD_EXCEPTION)`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    answer(pattern, reply) {
      rules.push({ pattern, reply });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
