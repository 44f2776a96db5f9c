/**
 * `Authorization: Bearer <token>` with failed guesses throttled: the one bearer check of every API
 * that has a configured token (the relevance admin API; the monitor's, which adds its page session
 * in front). docs/limits.md lists the throttle's budgets.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { unauthorized } from "./errors.ts";
import type { AuthThrottle, ClientAddress } from "./throttle.ts";

// The credential as the throttle counts it (the part after "Bearer", else the whole header value).
const BEARER = /^Bearer +(\S+) *$/i;

export interface ThrottledBearerOptions {
  token: string;
  throttle: AuthThrottle;
  address: ClientAddress;
  /** The 401's message. */
  message: string;
  /** A presented token longer than this is never valid, whatever the configured token. */
  maxChars: number;
}

/**
 * Hono's `bearerAuth` parses the header and compares the token in constant time (its
 * timingSafeEqual); 401 otherwise, with the API's error body rather than Hono's plain-text one. The
 * throttle decides after the comparison (AuthThrottle.verdict): a client over its failed-attempt
 * budget gets 429 whatever it sends, except a token that already worked from its address. A request
 * without an Authorization header guessed nothing and is not counted; an empty header is.
 */
export function throttledBearerAuth(options: ThrottledBearerOptions): MiddlewareHandler {
  const { throttle, address, message, maxChars } = options;
  const refuse = (): never => {
    throw unauthorized(message);
  };
  const failed = (c: Context): never => {
    const presented = c.req.header("authorization") ?? "";
    throttle.verdict(address(c), BEARER.exec(presented)?.[1] ?? presented, false);
    return refuse();
  };
  const checkToken = bearerAuth({
    token: options.token,
    noAuthenticationHeader: { message: (c) => (c.req.header("authorization") === "" ? failed(c) : refuse()) },
    // Malformed (not `Bearer <token>`) and wrong tokens are both 401 and both count.
    invalidAuthenticationHeader: { message: failed },
    invalidToken: { message: failed },
  });
  return (c, next) =>
    checkToken(c, async () => {
      const token = BEARER.exec(c.req.header("authorization") ?? "")?.[1] ?? "";
      if (token.length > maxChars) failed(c);
      throttle.verdict(address(c), token, true);
      await next();
    });
}
