/**
 * A local double of healthchecks.io's ping API, written from its documentation (Pinging API:
 * https://healthchecks.io/docs/http_api/): `/ping/<uuid>` success, `/ping/<uuid>/start`,
 * `/ping/<uuid>/fail`, `/ping/<uuid>/<exit-status>` (0 success, 1-255 fail) and `/ping/<uuid>/log`,
 * by HEAD, GET or POST; the request body (the first 10,000 bytes) is kept with the ping; answers 200
 * `OK`, or 404 `not found` for a check it does not know. Listens on 127.0.0.1, an ephemeral port.
 * Tests only.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type DoublePingKind = "success" | "start" | "fail" | "log";

export interface ReceivedPing {
  check: string;
  kind: DoublePingKind;
  method: string;
  body: string;
}

export interface HealthchecksDouble {
  /** The ping URL of the check this double knows (`http://127.0.0.1:<port>/ping/<uuid>`). */
  checkUrl: string;
  /** A URL of a check it does not know (404). */
  unknownUrl: string;
  /** Base of the server, for other paths. */
  origin: string;
  received: ReceivedPing[];
  /** The next `n` pings answer `status` (default 500). */
  failNext(n: number, status?: number): void;
  close(): Promise<void>;
}

const BODY_LIMIT = 10_000;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      if (size < BODY_LIMIT) chunks.push(c);
      size += c.length;
    });
    req.on("end", () => resolve(Buffer.concat(chunks).subarray(0, BODY_LIMIT).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startHealthchecksDouble(): Promise<HealthchecksDouble> {
  const check = randomUUID();
  const received: ReceivedPing[] = [];
  let failures = 0;
  let failStatus = 500;
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const m = /^\/ping\/([0-9a-f-]{36})(?:\/(start|fail|log|\d{1,3}))?\/?$/.exec(
      new URL(req.url ?? "/", "http://x").pathname,
    );
    if (m === null || !["GET", "HEAD", "POST"].includes(req.method ?? "")) {
      res.writeHead(400, { "content-type": "text/plain" }).end("invalid url format");
      return;
    }
    if (m[1] !== check) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (failures > 0) {
      failures--;
      res.writeHead(failStatus, { "content-type": "text/plain" }).end("told to fail");
      return;
    }
    const suffix = m[2];
    const kind: DoublePingKind =
      suffix === undefined || suffix === "0"
        ? "success"
        : suffix === "start" || suffix === "fail" || suffix === "log"
          ? suffix
          : "fail";
    received.push({ check: m[1], kind, method: req.method ?? "", body });
    res.writeHead(200, { "content-type": "text/plain" }).end("OK");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    checkUrl: `${origin}/ping/${check}`,
    unknownUrl: `${origin}/ping/${randomUUID()}`,
    origin,
    received,
    failNext(n, status = 500) {
      failures = n;
      failStatus = status;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
