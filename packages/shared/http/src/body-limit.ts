import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors.ts";

/** 1 MiB: the default for every JSON body (docs/limits.md). */
export const DEFAULT_JSON_BODY_BYTES = 1024 * 1024;

/** `n` bytes in the unit a person reads (1 MiB, 20 MiB, 512 KiB, 300 bytes). */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** The 413 of a body over `maxBytes`, naming the field and the limit. */
export function payloadTooLarge(maxBytes: number, field = "body"): ApiError {
  return new ApiError(
    413,
    "payload_too_large",
    `the request body is larger than the limit of ${formatBytes(maxBytes)}`,
    [{ path: field, message: `must be at most ${maxBytes} bytes` }],
  );
}

/** Bytes read between two turns given back to the event loop while a chunked body is read. */
const BYTES_PER_TURN = 1024 * 1024;

/** The next turn of the event loop (setImmediate on Node, a zero timer elsewhere). */
const nextTurn = (): Promise<void> =>
  new Promise((resolve) =>
    typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0),
  );

/**
 * The body limit, answered with the JSON 413. A too-large `Content-Length` is refused before
 * anything is read (the body is then read by the route as it needs it). A chunked body is read here
 * and counted, so no more than `maxBytes` is ever held in memory, as Hono's own body limit does; but
 * the turn is given back to the event loop after every megabyte (chunks that arrived together are
 * otherwise read in one turn: 20 MiB held every other request 140 ms), and the chunks are joined
 * once at the end rather than copied into a buffer grown by doubling.
 */
export function limitBody(maxBytes: number, field = "body"): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    if (raw.body === null) return next();
    const length = raw.headers.get("content-length");
    if (length !== null && !raw.headers.has("transfer-encoding")) {
      if (Number.parseInt(length, 10) > maxBytes) throw payloadTooLarge(maxBytes, field);
      return next();
    }
    const reader = raw.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    let sinceTurn = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw payloadTooLarge(maxBytes, field);
      }
      chunks.push(value);
      sinceTurn += value.length;
      if (sinceTurn >= BYTES_PER_TURN) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
    const body = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      body.set(chunk, at);
      at += chunk.length;
    }
    c.req.raw = new Request(raw, { body });
    return next();
  };
}
