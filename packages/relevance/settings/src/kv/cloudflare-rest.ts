// Kv over the Cloudflare API (Workers KV REST endpoints), for writers outside the Worker: the
// exporter Lambda and the CLI. No retries here: callers decide (the exporter retries).

import { errorMessage } from "@shared/kernel";
import type { Kv, KvWriteTimes } from "../ports.ts";
import { compareKeys } from "./sort.ts";

type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface CloudflareRestKvOptions {
  accountId: string;
  namespaceId: string;
  apiToken: string;
  baseUrl?: string;
  fetch?: FetchLike;
  timeoutMs?: number;
}

interface CloudflareMessage {
  code?: number;
  message?: string;
}

interface CloudflareEnvelope {
  success?: boolean;
  errors?: CloudflareMessage[];
  messages?: CloudflareMessage[];
  result?: unknown;
  result_info?: { count?: number; cursor?: string };
}

/** Cloudflare API error code for "key not found" on the values endpoint. */
const KEY_NOT_FOUND = 10009;
const PAGE_LIMIT = 1000;
/** The metadata field `putStamped` writes and `writeTimes` reads. */
const WRITTEN_AT = "writtenAt";

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const entryName = (entry: unknown): string => (entry as { name: string }).name;

export class CloudflareRestKv implements Kv, KvWriteTimes {
  private readonly namespaceUrl: string;
  private readonly apiToken: string;
  private readonly fetchFn: FetchLike;
  private readonly timeoutMs: number;

  constructor(options: CloudflareRestKvOptions) {
    const baseUrl = (options.baseUrl ?? "https://api.cloudflare.com/client/v4").replace(/\/+$/, "");
    this.namespaceUrl = `${baseUrl}/accounts/${encodeURIComponent(options.accountId)}/storage/kv/namespaces/${encodeURIComponent(options.namespaceId)}`;
    this.apiToken = options.apiToken;
    const f = options.fetch ?? globalThis.fetch;
    // Called unbound: some runtimes reject `fetch` invoked with a foreign `this`.
    this.fetchFn = (input, init) => f(input, init);
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async get(key: string): Promise<string | null> {
    const what = `GET value ${JSON.stringify(key)}`;
    return this.request(what, "GET", this.valueUrl(key), undefined, async (res) => {
      if (res.ok) return res.text();
      const envelope = await readEnvelope(res);
      if (res.status === 404 && hasCode(envelope, KEY_NOT_FOUND)) return null;
      throw this.httpError(what, res.status, envelope);
    });
  }

  async put(key: string, value: string): Promise<void> {
    const what = `PUT value ${JSON.stringify(key)}`;
    await this.request(what, "PUT", this.valueUrl(key), new TextEncoder().encode(value), async (res) => {
      const envelope = await readEnvelope(res);
      if (!res.ok || envelope.body?.success === false) throw this.httpError(what, res.status, envelope);
    });
  }

  /**
   * Puts the value with Workers KV metadata `{"writtenAt": <ISO time>}` (the documented multipart
   * form of the same endpoint): Workers KV keeps no write time of its own, so the writer records one
   * that `writeTimes` reads back from the key listing.
   */
  async putStamped(key: string, value: string): Promise<void> {
    const what = `PUT value ${JSON.stringify(key)}`;
    const form = new FormData();
    form.set("value", new Blob([new TextEncoder().encode(value)]));
    form.set("metadata", JSON.stringify({ [WRITTEN_AT]: new Date().toISOString() }));
    await this.request(what, "PUT", this.valueUrl(key), form, async (res) => {
      const envelope = await readEnvelope(res);
      if (!res.ok || envelope.body?.success === false) throw this.httpError(what, res.status, envelope);
    });
  }

  /** The `writtenAt` metadata of the listed keys, and the API's clock (the `Date` of its answer). */
  async writeTimes(prefix: string): Promise<{ times: Map<string, string>; storeNow: Date | null }> {
    const times = new Map<string, string>();
    const storeNow = await this.listPages(prefix, (entry) => {
      const metadata = (entry as { metadata?: unknown }).metadata;
      const at = isRecord(metadata) ? metadata[WRITTEN_AT] : undefined;
      if (typeof at === "string" && !Number.isNaN(Date.parse(at))) times.set(entryName(entry), at);
    });
    return { times, storeNow };
  }

  async delete(key: string): Promise<void> {
    const what = `DELETE value ${JSON.stringify(key)}`;
    await this.request(what, "DELETE", this.valueUrl(key), undefined, async (res) => {
      const envelope = await readEnvelope(res);
      // Deleting a missing key succeeds (200); a "key not found" answer means the same thing.
      if (res.status === 404 && hasCode(envelope, KEY_NOT_FOUND)) return;
      if (!res.ok || envelope.body?.success === false) throw this.httpError(what, res.status, envelope);
    });
  }

  async list(prefix: string): Promise<string[]> {
    const names: string[] = [];
    await this.listPages(prefix, (entry) => names.push(entryName(entry)));
    return names.sort(compareKeys);
  }

  /** Every page of the key listing, each entry to `each`; returns the `Date` of the last answer. */
  private async listPages(prefix: string, each: (entry: unknown) => void): Promise<Date | null> {
    const what = `GET keys prefix=${JSON.stringify(prefix)}`;
    const seen = new Set<string>();
    let cursor = "";
    let date: Date | null = null;
    for (;;) {
      const params = new URLSearchParams({ prefix, limit: String(PAGE_LIMIT) });
      if (cursor) params.set("cursor", cursor);
      const page = await this.request(
        what,
        "GET",
        `${this.namespaceUrl}/keys?${params}`,
        undefined,
        async (res) => {
          const envelope = await readEnvelope(res);
          const body = envelope.body;
          if (!res.ok || body?.success !== true) throw this.httpError(what, res.status, envelope);
          if (!Array.isArray(body.result))
            throw new Error(`Cloudflare KV ${what}: response has no result array`);
          const header = Date.parse(res.headers.get("date") ?? "");
          date = Number.isNaN(header) ? null : new Date(header);
          return { result: body.result as unknown[], cursor: body.result_info?.cursor ?? "" };
        },
      );
      for (const entry of page.result) {
        if (typeof (entry as { name?: unknown } | null)?.name !== "string")
          throw new Error(`Cloudflare KV ${what}: key entry without a name`);
        each(entry);
      }
      if (!page.cursor) break;
      if (seen.has(page.cursor)) throw new Error(`Cloudflare KV ${what}: the API repeated a cursor`);
      seen.add(page.cursor);
      cursor = page.cursor;
    }
    return date;
  }

  private valueUrl(key: string): string {
    // "." and ".." would be resolved as path segments by the URL parser even when percent-encoded;
    // Workers KV rejects such names anyway.
    if (key === "" || key === "." || key === "..") {
      throw new Error(`Cloudflare KV: invalid key name ${JSON.stringify(key)}`);
    }
    return `${this.namespaceUrl}/values/${encodeURIComponent(key)}`;
  }

  /** One HTTP exchange, body included, under one timeout. */
  private async request<T>(
    what: string,
    method: string,
    url: string,
    body: Uint8Array | FormData | undefined,
    handle: (res: Response) => Promise<T>,
  ): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiToken}` };
    // A FormData body gets its multipart content type (with the boundary) from fetch.
    if (body instanceof Uint8Array) headers["content-type"] = "application/octet-stream";
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      // Never follow a redirect: it would send the API token (and a value) to another address.
      const res = await this.fetchFn(url, { method, headers, body, signal, redirect: "manual" });
      if (res.type === "opaqueredirect" || (res.status >= 300 && res.status <= 399)) {
        await res.body?.cancel().catch(() => undefined);
        throw new CloudflareKvError(
          this.redact(
            `Cloudflare KV ${what}: HTTP ${res.status}: the API answered with a redirect, which is not followed`,
          ),
          res.status,
          [],
        );
      }
      return await handle(res);
    } catch (error) {
      if (signal.aborted) {
        throw new Error(`Cloudflare KV ${what}: timed out after ${this.timeoutMs} ms`, { cause: error });
      }
      if (error instanceof CloudflareKvError) throw error;
      const detail = errorMessage(error);
      throw new Error(this.redact(`Cloudflare KV ${what}: request failed: ${detail}`), { cause: error });
    }
  }

  private httpError(what: string, status: number, envelope: ParsedEnvelope): CloudflareKvError {
    const errors = envelope.body?.errors ?? [];
    const described = errors.length
      ? errors.map((e) => `[${e.code ?? "?"}] ${e.message ?? ""}`.trim()).join("; ")
      : envelope.text
        ? `body: ${envelope.text.slice(0, 200)}`
        : "no error details";
    const codes = errors.map((e) => e.code).filter((c): c is number => typeof c === "number");
    return new CloudflareKvError(
      this.redact(`Cloudflare KV ${what}: HTTP ${status}: ${described}`),
      status,
      codes,
    );
  }

  private redact(message: string): string {
    return this.apiToken ? message.split(this.apiToken).join("[redacted]") : message;
  }
}

/** A non-2xx answer from the Cloudflare API (other than "key not found"). */
export class CloudflareKvError extends Error {
  readonly status: number;
  readonly codes: number[];

  constructor(message: string, status: number, codes: number[]) {
    super(message);
    this.name = "CloudflareKvError";
    this.status = status;
    this.codes = codes;
  }
}

interface ParsedEnvelope {
  body: CloudflareEnvelope | null;
  text: string;
}

async function readEnvelope(res: Response): Promise<ParsedEnvelope> {
  const text = await res.text();
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      return { body: parsed as CloudflareEnvelope, text };
    }
  } catch {
    // Not JSON (a proxy's HTML error page, say): keep the text for the message.
  }
  return { body: null, text };
}

function hasCode(envelope: ParsedEnvelope, code: number): boolean {
  return Array.isArray(envelope.body?.errors) && envelope.body.errors.some((e) => e?.code === code);
}
