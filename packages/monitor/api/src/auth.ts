/**
 * The one authentication of `/api/system/*`, `/api/v1/system/*` and `/metrics`: the bearer token, or
 * (reads only) a live `/system` page session, with failed guesses throttled per address and token
 * prefix. docs/monitor-api.md.
 */
import { MAX_CREDENTIAL_CHARS } from "@monitor/core";
import { type AuthThrottle, type ClientAddress, throttledBearerAuth } from "@shared/http";
import type { MiddlewareHandler } from "hono";
import { timingSafeEqual } from "hono/utils/buffer";
import type { SignedPageSessions } from "./page/signed-sessions.ts";

const TOKEN_REQUIRED = "a valid token is required (Authorization: Bearer <token>)";

/** Hono's timing-safe comparison (SHA-256 of both, then a comparison without an early exit). */
export async function constantTimeEqual(a: string, b: string): Promise<boolean> {
  return timingSafeEqual(a, b);
}

/**
 * Bearer token (the shared throttled check of every API with a token, @shared/http), or (GET/HEAD
 * only, no Authorization header) a live `/system` page session cookie: a session signed by a listed
 * key is not a guess and skips the throttle. A request without an Authorization header is not
 * counted: it guessed nothing (an expired page session polling the status, say).
 */
export function bearerAuth(
  token: string,
  sessions: SignedPageSessions,
  throttle: AuthThrottle,
  address: ClientAddress,
): MiddlewareHandler {
  const checkToken = throttledBearerAuth({
    token,
    throttle,
    address,
    message: TOKEN_REQUIRED,
    maxChars: MAX_CREDENTIAL_CHARS,
  });
  return async (c, next) => {
    const readOnly = c.req.method === "GET" || c.req.method === "HEAD";
    if (c.req.header("authorization") === undefined && readOnly && (await sessions.valid(c))) {
      await next();
      return;
    }
    return checkToken(c, next);
  };
}
