// A Cloudflare API endpoint answering with a redirect must not make the client send its token (or a
// value) on to the redirect's target: two local HTTP servers, the second must receive nothing.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudflareKvError, CloudflareRestKv } from "./cloudflare-rest.ts";

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
let status = 307;

beforeAll(async () => {
  elsewhere = await listen((req, res) => {
    reached.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
    res.writeHead(200, { "content-type": "application/json" }).end('{"success":true,"result":[]}');
  });
  redirecting = await listen((req, res) => {
    req.resume();
    res.writeHead(status, { location: `${elsewhere.url}${req.url}` }).end();
  });
});

afterAll(async () => {
  for (const s of [redirecting.server, elsewhere.server]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe("CloudflareRestKv follows no redirect", () => {
  it.each([301, 302, 307, 308])(
    "an answer %i fails every operation; the redirect's target receives nothing",
    async (code) => {
      status = code;
      const kv = new CloudflareRestKv({
        accountId: "acct",
        namespaceId: "ns",
        apiToken: "secret-token",
        baseUrl: `${redirecting.url}/client/v4`,
      });
      for (const op of [() => kv.get("k"), () => kv.put("k", "v"), () => kv.delete("k"), () => kv.list("")]) {
        const error = await op().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(CloudflareKvError);
        expect((error as CloudflareKvError).status).toBe(code);
        expect((error as Error).message).toContain("redirect, which is not followed");
      }
      expect(reached).toEqual([]);
    },
  );
});
