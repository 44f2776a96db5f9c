/**
 * The one authentication of `/api/system/*`, `/api/v1/system/*` and `/metrics`: the bearer token, or
 * (reads only) a live `/system` page session, with failed guesses throttled per address and token
 * prefix. docs/monitor-api.md.
 */
import { MAX_CREDENTIAL_CHARS } from "@monitor/core";
import { type AuthThrottle, type ClientAddress, unauthorized } from "@shared/http";
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth as honoBearerAuth } from "hono/bearer-auth";
import { timingSafeEqual } from "hono/utils/buffer";
import type { SignedPageSessions } from "./page/signed-sessions.ts";

const BEARER = /^Bearer +(\S+) *$/i;
const TOKEN_REQUIRED = "a valid token is required (Authorization: Bearer <token>)";

/** Hono's timing-safe comparison (SHA-256 of both, then a comparison without an early exit). */
export async function constantTimeEqual(a: string, b: string): Promise<boolean> {
  return timingSafeEqual(a, b);
}

function throwUnauthorized(): never {
  throw unauthorized(TOKEN_REQUIRED);
}

/**
 * Bearer token, or (GET/HEAD only, no Authorization header) a live `/system` page session cookie.
 * Hono's `bearerAuth` parses the header and compares the token in constant time; a refusal is 401
 * with the API's error body rather than Hono's plain-text one. A wrong or malformed credential counts
 * against its address and prefix; the throttle decides after the comparison (AuthThrottle.verdict).
 * A request without an Authorization header is not counted: it guessed nothing (an expired page
 * session polling the status, say).
 */
export function bearerAuth(
  token: string,
  sessions: SignedPageSessions,
  throttle: AuthThrottle,
  address: ClientAddress,
): MiddlewareHandler {
  const failed = (c: Context): never => {
    // What was presented counts under its own prefix, even when it is not a well-formed bearer value.
    const header = c.req.header("authorization") ?? "";
    throttle.verdict(address(c), BEARER.exec(header)?.[1] ?? header, false);
    throw unauthorized(TOKEN_REQUIRED);
  };
  const checkToken = honoBearerAuth({
    token,
    noAuthenticationHeader: {
      // No header is no guess: answered 401 without counting (an empty one is counted, as a wrong one).
      message: (c) => (c.req.header("authorization") === "" ? failed(c) : throwUnauthorized()),
    },
    invalidAuthenticationHeader: { message: failed },
    invalidToken: { message: failed },
  });
  return async (c, next) => {
    const readOnly = c.req.method === "GET" || c.req.method === "HEAD";
    // A session cookie signed by a listed key is not a guess and skips the throttle.
    if (c.req.header("authorization") === undefined && readOnly && (await sessions.valid(c))) {
      await next();
      return;
    }
    return checkToken(c, async () => {
      const given = BEARER.exec(c.req.header("authorization") ?? "")?.[1] ?? "";
      // A credential over MAX_CREDENTIAL_CHARS is never valid, whatever the configured token.
      if (given.length > MAX_CREDENTIAL_CHARS) failed(c);
      // A blocked address is refused whatever it presents, except a token that already worked from there.
      throttle.verdict(address(c), given, true);
      await next();
    });
  };
}
