import { connect } from "node:net";
import type { Answer, HostileRequest } from "./catalogue.ts";

/** A fetch-shaped function: Miniflare's dispatchFetch, say. */
export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // not JSON: the judge reports the text
  }
}

/** A complete HTTP/1.1 response in `buf`, or null while more is to come. */
function parseResponse(buf: Buffer, ended: boolean): Answer | null {
  const headEnd = buf.indexOf("\r\n\r\n");
  if (headEnd < 0) return null;
  const [statusLine = "", ...lines] = buf.subarray(0, headEnd).toString("latin1").split("\r\n");
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const status = Number(statusLine.split(" ")[1]);
  let rest = buf.subarray(headEnd + 4);
  let body: Buffer;
  const length = headers.get("content-length");
  if (length !== null) {
    if (rest.length < Number(length)) return null;
    body = rest.subarray(0, Number(length));
  } else if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf("\r\n");
      if (lineEnd < 0) return null;
      const size = Number.parseInt(rest.subarray(0, lineEnd).toString("latin1"), 16);
      if (size === 0) break;
      if (rest.length < lineEnd + 2 + size + 2) return null;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    body = Buffer.concat(parts);
  } else {
    if (!ended) return null;
    body = rest;
  }
  return { status, headers, body: parse(body.toString("utf8")) };
}

/**
 * Sends one hostile request over a fresh TCP connection, speaking HTTP/1.1 itself, and reads the
 * answer (JSON when it parses). Like curl, it reads while it writes and stops sending once the
 * server has answered: a server that refuses a body early answers while the client is still
 * sending, and closes later; fetch and node:http may report the closed pipe before the answer.
 */
export function sendHttp(base: string, req: HostileRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(req.path, base);
    const socket = connect(Number(url.port || 80), url.hostname);
    let received = Buffer.alloc(0);
    let answer: Answer | null = null;
    const finish = (ended: boolean) => {
      if (answer !== null) return;
      answer = parseResponse(received, ended);
      if (answer !== null) {
        socket.destroy();
        resolve(answer);
      } else if (ended) {
        reject(new Error(`the connection closed without a complete answer (${received.length} bytes read)`));
      }
    };
    socket.on("data", (d: Buffer) => {
      received = Buffer.concat([received, d]);
      finish(false);
    });
    socket.on("end", () => finish(true));
    // A write into a connection the server closed after answering: the answer read is what counts.
    socket.on("error", () => finish(true));
    socket.on("connect", () => {
      const body = req.body;
      const head = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
      for (const [k, v] of Object.entries(req.headers)) head.push(`${k}: ${v}`);
      if (typeof body === "string") head.push(`Content-Length: ${Buffer.byteLength(body)}`);
      else if (body !== undefined) head.push("Transfer-Encoding: chunked");
      else if (req.method !== "GET" && req.method !== "HEAD") head.push("Content-Length: 0");
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      if (typeof body === "string") {
        socket.write(body);
        return;
      }
      if (body === undefined) return;
      const reader = body().getReader();
      const pump = async (): Promise<void> => {
        while (received.length === 0 && !socket.destroyed) {
          const { done, value } = await reader.read();
          if (done) {
            socket.write("0\r\n\r\n");
            break;
          }
          const ok = socket.write(
            Buffer.concat([Buffer.from(`${value.length.toString(16)}\r\n`), value, Buffer.from("\r\n")]),
          );
          if (!ok) await new Promise((r) => socket.once("drain", r));
        }
        await reader.cancel().catch(() => undefined);
      };
      pump().catch(() => undefined);
    });
  });
}

/** Sends one hostile request through `fetcher` (an in-process runtime such as Miniflare). */
export async function send(fetcher: Fetcher, base: string, req: HostileRequest): Promise<Answer> {
  const body = typeof req.body === "function" ? req.body() : req.body;
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers: req.headers };
  if (body !== undefined) {
    init.body = body;
    // A streamed body goes out chunked; fetch needs `duplex` for it.
    if (typeof body !== "string") init.duplex = "half";
  }
  const res = await fetcher(base + req.path, init);
  return { status: res.status, headers: res.headers, body: parse(await res.text()) };
}
