import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
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

/**
 * Hono's body limit, answered with the JSON 413. It refuses a too-large `Content-Length` before
 * reading anything, and counts a chunked body while reading it, so no more than `maxBytes` is ever
 * held in memory.
 */
export function limitBody(maxBytes: number, field = "body"): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw payloadTooLarge(maxBytes, field);
    },
  });
}
