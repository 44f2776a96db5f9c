import type { Answer, HostileRequest } from "./catalogue.ts";

/** A fetch-shaped function: global fetch against a server, or Miniflare's dispatchFetch. */
export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

/** Sends one hostile request to `base` and reads the answer (JSON when it parses, text otherwise). */
export async function send(fetcher: Fetcher, base: string, req: HostileRequest): Promise<Answer> {
  const body = typeof req.body === "function" ? req.body() : req.body;
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers: req.headers };
  if (body !== undefined) {
    init.body = body;
    // A streamed body goes out chunked; fetch needs `duplex` for it.
    if (typeof body !== "string") init.duplex = "half";
  }
  const res = await fetcher(base + req.path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the judge reports the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
