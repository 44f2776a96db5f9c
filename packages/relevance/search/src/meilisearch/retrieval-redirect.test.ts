// Meilisearch (or something in front of it) answering with a redirect must not make the search
// client send the query and its API key on: two local HTTP servers, the second must receive nothing.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetrievalError } from "../ports.ts";
import { MeilisearchRetrieval } from "./retrieval.ts";

function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = createServer(handler);
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });
}

let redirecting: { server: Server; url: string };
let elsewhere: { server: Server; url: string };
const reached: string[] = [];

beforeAll(async () => {
  elsewhere = await listen((req, res) => {
    reached.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
    res.writeHead(200, { "content-type": "application/json" }).end('{"hits":[],"estimatedTotalHits":0}');
  });
  redirecting = await listen((req, res) => {
    req.resume();
    res.writeHead(307, { location: `${elsewhere.url}${req.url}` }).end();
  });
});

afterAll(async () => {
  for (const s of [redirecting.server, elsewhere.server]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe("MeilisearchRetrieval follows no redirect", () => {
  it("a 307 is an unavailable backend; the redirect's target receives nothing", async () => {
    const meili = new MeilisearchRetrieval({ url: redirecting.url, apiKey: "search-key", timeoutMs: 2000 });
    const error = await meili
      .search(
        {
          systemAccountId: "acct",
          index: "products",
          primaryKey: "id",
          searchableAttributes: [],
          filterableAttributes: [],
        },
        { q: "red", limit: 1, offset: 0 },
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(RetrievalError);
    expect(error).toMatchObject({
      failure: "unavailable",
      message: "Meilisearch answered 307, which is not followed",
    });
    expect(reached).toEqual([]);
  });
});
