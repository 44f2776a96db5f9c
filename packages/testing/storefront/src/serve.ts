import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { buildStorefront } from "./build.ts";

export interface ServedStorefront {
  /** The page's origin (another port than the API's: a different origin for the browser). */
  origin: string;
  /** The page's address for one search API, key and index. */
  pageUrl(options: { host: string; apiKey: string; index: string }): string;
  close(): Promise<void>;
}

/** Serves the storefront on 127.0.0.1 (a free port), as a shop's own web server would. */
export async function serveStorefront(): Promise<ServedStorefront> {
  const files = await buildStorefront();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://storefront").pathname;
    if (path === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(files.html);
    } else if (path === "/storefront.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(files.script);
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageUrl: ({ host, apiKey, index }) =>
      `${origin}/?${new URLSearchParams({ host, key: apiKey, index }).toString()}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
