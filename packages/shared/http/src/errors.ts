import type { Issue, Logger } from "@shared/kernel";
import { errorMessage } from "@shared/kernel";
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import type { ErrorSchema } from "./error-schema.ts";
import { MAX_ERROR_DETAILS } from "./limits.ts";
import { STORAGE_FULL_CODE, storageFullCause } from "./storage.ts";

/** The one error body of every route (docs/api.md): `{"error": {"code", "message", "details"?}}`. */
export type ErrorBody = z.infer<typeof ErrorSchema>;

/**
 * An expected failure with its answer; thrown by handlers and helpers, turned into JSON by `onError`.
 * Its details are the first 100 problems (MAX_ERROR_DETAILS) and the message says how many there
 * were: a body of 90,000 bad keys answers a few kilobytes, not megabytes.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly details: Issue[] | undefined;
  /** Response headers that belong to this answer (`Retry-After` of a 429, say). */
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    message: string,
    details?: Issue[],
    headers?: Record<string, string>,
  ) {
    const over = details !== undefined && details.length > MAX_ERROR_DETAILS;
    super(
      over ? `${message} (${details.length} problems; the first ${MAX_ERROR_DETAILS} are listed)` : message,
    );
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = over ? details.slice(0, MAX_ERROR_DETAILS) : details;
    this.headers = headers;
  }

  body(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

export const unauthorized = (message: string) => new ApiError(401, "unauthorized", message);
export const notFound = (message: string) => new ApiError(404, "not_found", message);
export const conflict = (message: string) => new ApiError(409, "conflict", message);
export const invalid = (message: string, details: Issue[]) =>
  new ApiError(422, "validation_failed", message, details);

/**
 * The answer to a write that could not be stored because the disk is full: 507 Insufficient
 * Storage, code `no_space_left_on_device`. `outcome` says what became of the write; the engine's
 * own error goes to the log only (bodies never carry engine names or paths).
 */
export function storageFullError(outcome = "the write was not stored"): ApiError {
  return new ApiError(
    507,
    STORAGE_FULL_CODE,
    `there is no space left on the device: ${outcome}; free disk space and send it again (reads still work)`,
  );
}

export const INTERNAL_ERROR: ErrorBody = { error: { code: "internal", message: "internal error" } };

const GENERIC: Partial<Record<number, [string, string]>> = {
  400: ["bad_request", "bad request"],
  401: ["unauthorized", "unauthorized"],
  404: ["not_found", "not found"],
  405: ["method_not_allowed", "method not allowed"],
  413: ["payload_too_large", "the request body is too large"],
};

/**
 * Expected errors answer their own body; a full disk answers 507 `no_space_left_on_device` (the write
 * was not stored); anything else is logged with its cause and answered with a generic 500 that names
 * nothing internal.
 */
export function onError(log: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof ApiError) {
      for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
      return c.json(err.body(), err.status);
    }
    if (err instanceof HTTPException) {
      const known = GENERIC[err.status];
      if (known !== undefined) return c.json({ error: { code: known[0], message: known[1] } }, err.status);
    }
    const full = storageFullCause(err);
    if (full !== null) {
      log.error("storage full: a write was not stored", {
        method: c.req.method,
        path: c.req.path,
        cause: full,
      });
      const answer = storageFullError();
      return c.json(answer.body(), answer.status);
    }
    log.error("request failed", {
      method: c.req.method,
      path: c.req.path,
      error: errorMessage(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return c.json(INTERNAL_ERROR, 500);
  };
}

export const onNotFound: NotFoundHandler = (c: Context) =>
  c.json({ error: { code: "not_found", message: "no such route" } } satisfies ErrorBody, 404);
