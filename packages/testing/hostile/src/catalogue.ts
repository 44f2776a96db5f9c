// The hostile requests: one per finding of the hostile-input issue and one per limit of
// docs/limits.md. The Node suite (apps/local), the Worker suite (apps/edge-worker) and the benchmark
// (`npm run bench -- hostile`) replay the same list, so a limit that is documented is a limit that
// is tried on every entry that serves it.
import type { LimitRow } from "@shared/http";

export interface HostileContext {
  apiKey: string;
  adminToken: string;
  monitorToken: string;
  account: string;
  /** An index of the account with a few documents; `category` and `price` are filterable. */
  index: string;
}

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** A string, or a stream made on demand (sent chunked, without Content-Length). */
  body?: string | (() => ReadableStream<Uint8Array>);
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: unknown;
}

export interface HostileCase {
  id: string;
  /** What it proves: a finding of the issue (`finding: ...`) or a row of the limits table. */
  proves: string;
  /** The entries that serve it: the Worker serves search and the unknown-route answers only. */
  surfaces: ReadonlyArray<"node" | "worker">;
  /** Requests sent in order (several to exhaust a budget); the last one's answer is checked. */
  requests(ctx: HostileContext): HostileRequest[];
  /**
   * The answer of the last request: status (or the statuses either of which is right), JSON error
   * code and the field it names.
   */
  expect: { status: number | readonly number[]; code?: string; path?: string | RegExp; header?: string };
  /** A further check of the answer; returns what is wrong, or null. */
  check?: (answer: Answer) => string | null;
  /**
   * How long the work a request starts may go on after its answer (an alert tick that reads what
   * it stored): the benchmark watches the event loop that long.
   */
  settleMs?: number;
}

/** The row of `rows` for `area`, `field` and `unit`; a missing row is a catalogue bug, so it throws. */
export function limitOf(
  rows: readonly LimitRow[],
  area: string,
  field: string,
  unit: LimitRow["unit"],
  status?: LimitRow["status"],
): number {
  const row = rows.find(
    (r) =>
      r.area === area &&
      r.field === field &&
      r.unit === unit &&
      (status === undefined || r.status === status),
  );
  if (row === undefined) {
    throw new Error(
      `hostile catalogue: no limit row for ${area} / ${field} / ${unit} / ${status ?? "any status"}`,
    );
  }
  return row.limit;
}

/** A chunked body of `bytes` bytes of `fill`, made as it is read (nothing big is held by the sender). */
export function streamedBody(bytes: number, prefix = "", fill = "a"): () => ReadableStream<Uint8Array> {
  return () => {
    const encoder = new TextEncoder();
    const chunk = encoder.encode(fill.repeat(64 * 1024));
    let sent = 0;
    let first = true;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (first) {
          first = false;
          controller.enqueue(encoder.encode(prefix));
          sent += prefix.length;
          return;
        }
        if (sent >= bytes) {
          controller.close();
          return;
        }
        const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += part.length;
        controller.enqueue(part);
      },
    });
  };
}

/** An error body's `details[].path` values. */
export function detailPaths(body: unknown): string[] {
  const details = (body as { error?: { details?: Array<{ path?: unknown }> } } | null)?.error?.details;
  return Array.isArray(details) ? details.map((d) => String(d.path)) : [];
}

/** What is wrong with `answer` against `c.expect` and `c.check`, or null. */
export function judge(c: HostileCase, answer: Answer): string | null {
  const e = c.expect;
  const statuses: readonly number[] = typeof e.status === "number" ? [e.status] : e.status;
  if (!statuses.includes(answer.status)) {
    return `${c.id}: expected ${statuses.join(" or ")}, got ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
  }
  if (e.code !== undefined && answer.status >= 400) {
    const code = (answer.body as { error?: { code?: unknown } } | null)?.error?.code;
    if (code !== e.code) return `${c.id}: expected error code ${e.code}, got ${JSON.stringify(answer.body)}`;
    const message = (answer.body as { error?: { message?: unknown } }).error?.message;
    if (typeof message !== "string" || message === "") return `${c.id}: the error has no message`;
  }
  if (e.path !== undefined) {
    const paths = detailPaths(answer.body);
    const named = paths.some((p) => (typeof e.path === "string" ? p === e.path : e.path?.test(p)));
    if (!named) return `${c.id}: expected details naming ${String(e.path)}, got ${JSON.stringify(paths)}`;
  }
  if (e.header !== undefined && answer.headers.get(e.header) === null) {
    return `${c.id}: expected a ${e.header} header`;
  }
  return c.check?.(answer) ?? null;
}
