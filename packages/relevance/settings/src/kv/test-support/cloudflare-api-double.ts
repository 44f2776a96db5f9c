// A LOCAL DOUBLE of the documented Workers KV REST endpoints (values, keys), for tests of every
// Cloudflare REST client (the adapter here, the `relevance` CLI): Cloudflare itself cannot be reached
// from the test environment. State in memory, plus knobs to misbehave.
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";

export const DOUBLE_ACCOUNT = "0123456789abcdef0123456789abcdef";
export const DOUBLE_TOKEN = "cf-test-token-Zq8vN2xL";
/** Small, so that listings paginate. */
const PAGE_SIZE = 2;

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
export class CloudflareApiDouble {
  readonly namespaces = new Map<string, Map<string, Uint8Array>>();
  /** Metadata written with a value (the multipart form of PUT), per namespace and key. */
  readonly metadata = new Map<string, Map<string, unknown>>();
  /** Added to this machine's clock for the `Date` header of every answer (a store clock that differs). */
  clockOffsetMs = 0;
  /** Raw request paths and queries as received, for encoding checks. */
  readonly requests: {
    method: string;
    path: string;
    search: string;
    contentType: string | null;
    authorization: string | null;
  }[] = [];
  delayMs = 0;
  /** Requests waiting for `releaseAnswers()`, while `holdAnswers()` is on. */
  waiting = 0;
  private held: Promise<void> | undefined;
  private release: () => void = () => {};
  failWith500 = false;
  private server: ServerType | undefined;
  private nextNamespace = 0;
  baseUrl = "";

  newNamespace(): string {
    const id = `ns${++this.nextNamespace}`;
    this.namespaces.set(id, new Map());
    this.metadata.set(id, new Map());
    return id;
  }

  /** Until `releaseAnswers()`, every request waits unanswered (an API slower than any timeout). */
  holdAnswers(): void {
    this.held ??= new Promise((resolve) => (this.release = resolve));
  }

  releaseAnswers(): void {
    this.release();
    this.held = undefined;
  }

  reset(): void {
    this.releaseAnswers();
    this.delayMs = 0;
    this.failWith500 = false;
    this.clockOffsetMs = 0;
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
      if (this.held) {
        this.waiting++;
        await this.held;
        this.waiting--;
      }
      c.header("date", new Date(Date.now() + this.clockOffsetMs).toUTCString());
      if (this.failWith500) return c.json(failure(10001, "Internal server error"), 500);
      if (c.req.header("authorization") !== `Bearer ${DOUBLE_TOKEN}`) {
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
      if (account !== DOUBLE_ACCOUNT) return c.json(failure(10000, "Authentication error"), 403);
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
          result: page.map((name) => {
            const metadata = this.metadata.get(namespaceId)?.get(name);
            return metadata === undefined ? { name } : { name, metadata };
          }),
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
        case "PUT": {
          // Two documented forms: the raw value, or multipart with `value` and `metadata` (JSON).
          const metadata = this.metadata.get(namespaceId) as Map<string, unknown>;
          if ((c.req.header("content-type") ?? "").startsWith("multipart/form-data")) {
            const form = await c.req.formData();
            const value = form.get("value");
            if (value === null) return c.json(failure(10004, "no value in the form"), 400);
            ns.set(
              key,
              typeof value === "string"
                ? new TextEncoder().encode(value)
                : new Uint8Array(await value.arrayBuffer()),
            );
            const meta = form.get("metadata");
            if (typeof meta === "string") metadata.set(key, JSON.parse(meta));
            else metadata.delete(key);
          } else {
            ns.set(key, new Uint8Array(await c.req.arrayBuffer()));
            metadata.delete(key);
          }
          return c.json({ success: true, errors: [], messages: [], result: {} });
        }
        case "DELETE":
          ns.delete(key);
          this.metadata.get(namespaceId)?.delete(key);
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
