import { request as httpRequest } from "node:http";
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

/**
 * Sends one hostile request over a fresh HTTP connection and reads the answer (JSON when it
 * parses). node:http rather than fetch: a server that refuses a body early answers and closes while
 * the client is still sending, and only a client that reads the response while writing (as curl
 * does) sees that answer; a fresh connection keeps one case's closed socket from failing the next.
 */
export function sendHttp(base: string, req: HostileRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(req.path, base);
    let responded = false;
    const client = httpRequest(url, { method: req.method, headers: req.headers, agent: false }, (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      const done = () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (typeof v === "string") h.set(k, v);
          else if (Array.isArray(v)) h.set(k, v.join(", "));
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: h,
          body: parse(Buffer.concat(chunks).toString("utf8")),
        });
        client.destroy();
      };
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", done);
      // A connection reset after the answer began: what was read is the answer.
      res.on("error", done);
    });
    client.on("error", (err) => {
      if (!responded) reject(err);
    });
    const body = req.body;
    if (body === undefined) {
      client.end();
      return;
    }
    if (typeof body === "string") {
      client.end(body);
      return;
    }
    // Like curl: stop sending once the server has answered (it refused the body early).
    const reader = body().getReader();
    const pump = async (): Promise<void> => {
      while (!responded && !client.destroyed) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!client.write(value)) await new Promise((r) => client.once("drain", r));
      }
      await reader.cancel().catch(() => undefined);
      if (!client.destroyed) client.end();
    };
    pump().catch(() => undefined);
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
