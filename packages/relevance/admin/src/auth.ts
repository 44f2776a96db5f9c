import { API_KEY_SK, apiKeyHash, apiKeyPk, type SettingsTable } from "@relevance/settings";
import {
  AuthThrottle,
  type ClientAddress,
  headerClientAddress,
  presentedApiKey,
  unauthorized,
} from "@shared/http";
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import {
  AUTH_FAILURES_PER_ADDRESS,
  AUTH_FAILURES_PER_PREFIX,
  AUTH_WINDOW_MS,
  MAX_CREDENTIAL_CHARS,
} from "./limits.ts";
import type { ApiDeps } from "./ports.ts";

/** Hono variables of customer routes: the account the API key belongs to. */
export type CustomerEnv = { Variables: { accountId: string } };

/** Who is asking, and the budget of failed attempts they share (per address, per credential prefix). */
export interface AuthGuard {
  throttle: AuthThrottle;
  clientAddress: ClientAddress;
}

/** The deps' throttle and address, or the defaults (a throttle on the deps' clock, so tests can move it). */
export function authGuard(deps: Pick<ApiDeps, "authThrottle" | "clientAddress" | "now">): AuthGuard {
  return {
    throttle:
      deps.authThrottle ??
      new AuthThrottle({
        maxFailuresPerAddress: AUTH_FAILURES_PER_ADDRESS,
        maxFailuresPerPrefix: AUTH_FAILURES_PER_PREFIX,
        windowMs: AUTH_WINDOW_MS,
        now: () => deps.now().getTime(),
      }),
    clientAddress: deps.clientAddress ?? headerClientAddress,
  };
}

/**
 * The characters of a bearer token (RFC 6750's b64token): the only tokens `bearerAuth` reads from a
 * header, so an admin token must be made of them (the generated ones are: base64url, alphanumeric).
 */
export const BEARER_TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;
export const BEARER_TOKEN_RULE = "letters, digits and - . _ ~ + / (then = padding)";

// The credential as the throttle counts it (the part after "Bearer", else the whole header value).
const BEARER = /^Bearer +(\S+) *$/i;
const ADMIN_TOKEN_REQUIRED = "a valid admin token is required (Authorization: Bearer <token>)";

/**
 * `Authorization: Bearer <adminToken>`: Hono's `bearerAuth` parses the header and compares the token
 * in constant time (its timingSafeEqual); 401 otherwise, with the API's error body rather than
 * Hono's plain-text one. The throttle decides after the comparison (AuthThrottle.verdict): a client
 * over its failed-attempt budget gets 429 whatever it sends, except a token that already worked from
 * its address, so guessing costs a minute per 20 tries and correct clients are not slowed.
 */
export function adminAuth(adminToken: string, guard: AuthGuard): MiddlewareHandler {
  const failed = (c: Context): never => {
    const presented = c.req.header("authorization") ?? "";
    guard.throttle.verdict(guard.clientAddress(c), BEARER.exec(presented)?.[1] ?? presented, false);
    throw unauthorized(ADMIN_TOKEN_REQUIRED);
  };
  const checkToken = bearerAuth({
    token: adminToken,
    noAuthenticationHeader: {
      // No header is no guess: answered 401 without counting (an empty one is counted, as a wrong one).
      message: (c) => (c.req.header("authorization") === "" ? failed(c) : throwUnauthorized()),
    },
    // Malformed (not `Bearer <token>`) and wrong tokens are both 401 and both count.
    invalidAuthenticationHeader: { message: failed },
    invalidToken: { message: failed },
  });
  return (c, next) =>
    checkToken(c, async () => {
      const token = BEARER.exec(c.req.header("authorization") ?? "")?.[1] ?? "";
      // A credential over MAX_CREDENTIAL_CHARS is never valid, whatever the configured token.
      if (token.length > MAX_CREDENTIAL_CHARS) failed(c);
      guard.throttle.verdict(guard.clientAddress(c), token, true);
      await next();
    });
}

function throwUnauthorized(): never {
  throw unauthorized(ADMIN_TOKEN_REQUIRED);
}

/**
 * `x-api-key` (or `Authorization: Bearer <key>`, as Meilisearch's clients send it): the SHA-256 of
 * the key finds its APIKEY item, which names the account; 401 otherwise.
 * Throttled like `adminAuth`, after the lookup (a key of over 512 characters is not looked up).
 */
export function customerAuth(table: SettingsTable, guard: AuthGuard): MiddlewareHandler<CustomerEnv> {
  return async (c, next) => {
    const key = presentedApiKey(c);
    let account: unknown;
    if (key !== undefined && key !== "" && key.length <= MAX_CREDENTIAL_CHARS) {
      const item = await table.get(apiKeyPk(await apiKeyHash(key)), API_KEY_SK);
      account = item?.attributes.system_account_id;
    }
    const valid = typeof account === "string" && account !== "";
    if (key !== undefined && key !== "") guard.throttle.verdict(guard.clientAddress(c), key, valid);
    if (!valid)
      throw unauthorized("a valid API key is required (x-api-key header, or Authorization: Bearer <key>)");
    c.set("accountId", account as string);
    await next();
  };
}
