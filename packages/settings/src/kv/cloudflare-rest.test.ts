// The Cloudflare REST adapter against a LOCAL DOUBLE of the documented Workers KV endpoints
// (Cloudflare itself cannot be reached from the test environment).
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { kvContract } from "../contract/kv.contract.ts";
import { CloudflareKvError, CloudflareRestKv, type CloudflareRestKvOptions } from "./cloudflare-rest.ts";

const ACCOUNT = "0123456789abcdef0123456789abcdef";
const TOKEN = "cf-test-token-Zq8vN2xL";
const PAGE_SIZE = 2; // small, so that listings paginate

type Envelope = {
  success: boolean;
  errors: { code: number; message: string }[];
  messages: [];
  result: unknown;
};
const failure = (code: number, message: string): Envelope => ({
  success: false,
  errors: [{ code, message }],
  messages: [],
  result: null,
});

/** Workers KV REST endpoints (values, keys) with state in memory, plus knobs to misbehave. */
class CloudflareApiDouble {
  readonly namespaces = new Map<string, Map<string, Uint8Array>>();
  /** Raw request paths and queries as received, for encoding checks. */
  readonly requests: {
    method: string;
    path: string;
    search: string;
    contentType: string | null;
    authorization: string | null;
  }[] = [];
  delayMs = 0;
  failWith500 = false;
  private server: ServerType | undefined;
  private nextNamespace = 0;
  baseUrl = "";

  newNamespace(): string {
    const id = `ns${++this.nextNamespace}`;
    this.namespaces.set(id, new Map());
    return id;
  }

  reset(): void {
    this.delayMs = 0;
    this.failWith500 = false;
    this.requests.length = 0;
  }

  async start(): Promise<void> {
    const app = new Hono();
    app.all("*", async (c) => {
      const url = new URL(c.req.url);
      this.requests.push({
        method: c.req.method,
        path: url.pathname,
        search: url.search,
        contentType: c.req.header("content-type") ?? null,
        authorization: c.req.header("authorization") ?? null,
      });
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      if (this.failWith500) return c.json(failure(10001, "Internal server error"), 500);
      if (c.req.header("authorization") !== `Bearer ${TOKEN}`) {
        return c.json(failure(10000, "Authentication error"), 403);
      }
      // /client/v4/accounts/{account}/storage/kv/namespaces/{namespace}/(values/{key}|keys)
      const segments = url.pathname.split("/").slice(1).map(decodeURIComponent);
      const [client, v4, accounts, account, storage, kvSeg, namespaces, namespaceId, kind, ...rest] =
        segments;
      const routed =
        client === "client" &&
        v4 === "v4" &&
        accounts === "accounts" &&
        storage === "storage" &&
        kvSeg === "kv" &&
        namespaces === "namespaces" &&
        namespaceId !== undefined &&
        ((kind === "values" && rest.length === 1) || (kind === "keys" && rest.length === 0));
      if (!routed) return c.json(failure(7003, "Could not route to the requested path"), 404);
      if (account !== ACCOUNT) return c.json(failure(10000, "Authentication error"), 403);
      const ns = this.namespaces.get(namespaceId);
      if (!ns) return c.json(failure(10013, "get namespace: 'namespace not found'"), 404);

      if (kind === "keys") {
        if (c.req.method !== "GET") return c.json(failure(10405, "Method not allowed"), 405);
        const prefix = url.searchParams.get("prefix") ?? "";
        const limit = Number(url.searchParams.get("limit") ?? "1000");
        if (!Number.isInteger(limit) || limit < 10 || limit > 1000) {
          return c.json(failure(10026, "limit must be between 10 and 1000"), 400);
        }
        const after = url.searchParams.get("cursor");
        const afterKey = after ? Buffer.from(after, "base64url").toString("utf8") : null;
        const names = [...ns.keys()]
          .filter((k) => k.startsWith(prefix))
          .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
          .filter((k) => afterKey === null || Buffer.compare(Buffer.from(k), Buffer.from(afterKey)) > 0);
        const page = names.slice(0, Math.min(limit, PAGE_SIZE));
        const last = page.at(-1);
        const cursor = names.length > page.length && last ? Buffer.from(last).toString("base64url") : "";
        return c.json({
          success: true,
          errors: [],
          messages: [],
          result: page.map((name) => ({ name })),
          result_info: { count: page.length, cursor },
        });
      }

      const key = rest[0] as string;
      switch (c.req.method) {
        case "GET": {
          const value = ns.get(key);
          if (!value) return c.json(failure(10009, "get: 'key not found'"), 404);
          return c.body(new Uint8Array(value), 200, { "content-type": "application/octet-stream" });
        }
        case "PUT":
          ns.set(key, new Uint8Array(await c.req.arrayBuffer()));
          return c.json({ success: true, errors: [], messages: [], result: {} });
        case "DELETE":
          ns.delete(key);
          return c.json({ success: true, errors: [], messages: [], result: null });
        default:
          return c.json(failure(10405, "Method not allowed"), 405);
      }
    });
    await new Promise<void>((resolve) => {
      this.server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) => {
        this.baseUrl = `http://127.0.0.1:${info.port}/client/v4`;
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    const server = this.server as (ServerType & { closeAllConnections?: () => void }) | undefined;
    server?.closeAllConnections?.();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

const double = new CloudflareApiDouble();
beforeAll(() => double.start());
afterAll(() => double.stop());
afterEach(() => double.reset());

function client(overrides: Partial<CloudflareRestKvOptions> = {}): CloudflareRestKv {
  return new CloudflareRestKv({
    accountId: ACCOUNT,
    namespaceId: double.newNamespace(),
    apiToken: TOKEN,
    baseUrl: double.baseUrl,
    ...overrides,
  });
}

/** Every operation of the port, as thunks (so that no rejection goes unobserved). */
function everyOperation(kv: CloudflareRestKv): (() => Promise<unknown>)[] {
  return [() => kv.get("k"), () => kv.put("k", "v"), () => kv.delete("k"), () => kv.list("")];
}

async function failureOf(op: () => Promise<unknown>): Promise<Error> {
  const error = await op().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe("CloudflareRestKv against a local double of the Cloudflare API (Cloudflare itself is not reachable here)", () => {
  kvContract("Cloudflare REST API (local double of the documented endpoints)", async () => client());

  it("sends the documented requests: bearer token, raw body, encoded key, paginated keys", async () => {
    const namespaceId = double.newNamespace();
    const kv = client({ namespaceId });
    await kv.put("acct-products", "v");
    await kv.get("acct-products");
    await kv.delete("acct-products");
    await kv.list("acct-");
    const ns = `/client/v4/accounts/${ACCOUNT}/storage/kv/namespaces/${namespaceId}`;
    expect(double.requests.map((r) => `${r.method} ${r.path}${r.search}`)).toEqual([
      `PUT ${ns}/values/acct-products`,
      `GET ${ns}/values/acct-products`,
      `DELETE ${ns}/values/acct-products`,
      `GET ${ns}/keys?prefix=acct-&limit=1000`,
    ]);
    expect(double.requests[0]?.contentType).toBe("application/octet-stream");
    expect(double.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it("follows result_info.cursor across pages", async () => {
    const kv = client();
    const keys = Array.from({ length: 7 }, (_, i) => `relevance_model:a:p:v${i}`);
    for (const key of keys.toReversed()) await kv.put(key, "x");
    await kv.put("relevance_model:b:p:v1", "x");
    double.requests.length = 0;
    expect(await kv.list("relevance_model:a:")).toEqual(keys);
    const listings = double.requests.filter((r) => r.path.endsWith("/keys"));
    expect(listings).toHaveLength(4);
    expect(new URLSearchParams(listings[0]?.search).get("cursor")).toBeNull();
    expect(new URLSearchParams(listings[0]?.search).get("limit")).toBe("1000");
    expect(new URLSearchParams(listings[1]?.search).get("cursor")).toBeTruthy();
  });

  it("encodes keys with ':', '/', spaces, '?', '#', '%' and non-ASCII", async () => {
    const namespaceId = double.newNamespace();
    const kv = client({ namespaceId });
    const keys = [
      "relevance_model:acct:p:v1",
      "a/b/../c",
      "acct-prod ucts",
      "q?x=1#frag",
      "100%",
      "acct-größe-✓😀",
    ];
    for (const [i, key] of keys.entries()) await kv.put(key, `value ${i}`);
    for (const [i, key] of keys.entries()) expect(await kv.get(key)).toBe(`value ${i}`);
    const ns = double.namespaces.get(namespaceId);
    expect([...(ns?.keys() ?? [])].sort()).toEqual([...keys].sort());
    const putPaths = double.requests
      .filter((r) => r.method === "PUT")
      .map((r) => r.path.split("/values/")[1]);
    expect(putPaths).toEqual([
      "relevance_model%3Aacct%3Ap%3Av1",
      "a%2Fb%2F..%2Fc",
      "acct-prod%20ucts",
      "q%3Fx%3D1%23frag",
      "100%25",
      "acct-gr%C3%B6%C3%9Fe-%E2%9C%93%F0%9F%98%80",
    ]);
    await kv.delete("a/b/../c");
    expect(await kv.get("a/b/../c")).toBeNull();
    expect(await kv.list("a/")).toEqual([]);
  });

  it("rejects key names the URL cannot carry", async () => {
    const kv = client();
    for (const key of ["", ".", ".."]) {
      expect((await failureOf(() => kv.put(key, "x"))).message).toContain("invalid key name");
    }
  });

  it("reports a wrong token with the status and Cloudflare's error code, never the token", async () => {
    const wrongToken = "wrong-secret-token-4711";
    const kv = client({ apiToken: wrongToken });
    for (const op of everyOperation(kv)) {
      const error = await failureOf(op);
      expect(error.message).toContain("403");
      expect(error.message).toContain("10000");
      expect(error.message).toContain("Authentication error");
      expect(error.message).not.toContain(wrongToken);
      expect(JSON.stringify(error)).not.toContain(wrongToken);
      expect(error).toBeInstanceOf(CloudflareKvError);
      expect((error as CloudflareKvError).status).toBe(403);
      expect((error as CloudflareKvError).codes).toEqual([10000]);
    }
  });

  it("treats an unknown namespace as an error, not as a missing key", async () => {
    const kv = client({ namespaceId: "no-such-namespace" });
    for (const op of everyOperation(kv)) {
      const error = await failureOf(op);
      expect(error.message).toContain("404");
      expect(error.message).toContain("10013");
    }
  });

  it("turns a 500 into an error", async () => {
    const kv = client();
    await kv.put("k", "v");
    double.failWith500 = true;
    for (const op of everyOperation(kv)) {
      const error = await failureOf(op);
      expect(error.message).toContain("500");
      expect(error.message).toContain("10001");
    }
  });

  it("reports a non-JSON error body with its status", async () => {
    const kv = client({
      fetch: async () => new Response("<html>bad gateway</html>", { status: 502 }),
    });
    const error = await failureOf(() => kv.get("k"));
    expect(error.message).toContain("502");
    expect(error.message).toContain("bad gateway");
  });

  it("times out a slow API with a clear error", async () => {
    const kv = client({ timeoutMs: 200 });
    double.delayMs = 1000;
    const started = Date.now();
    for (const op of everyOperation(kv)) {
      const error = await failureOf(op);
      expect(error.message).toMatch(/timed out after 200 ms/);
    }
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("reports a network failure without the token", async () => {
    const kv = client({ baseUrl: "http://127.0.0.1:1/client/v4" });
    const error = await failureOf(() => kv.get("k"));
    expect(error.message).toContain("request failed");
    expect(error.message).not.toContain(TOKEN);
  });
});
