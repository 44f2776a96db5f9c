import {
  API_KEY_SK,
  type ApiKeyGrant,
  apiKeyHash,
  apiKeyPk,
  grantOf,
  isExpired,
  type SettingsTable,
} from "@relevance/settings";
import {
  AuthThrottle,
  type ClientAddress,
  headerClientAddress,
  presentedApiKey,
  throttledBearerAuth,
  unauthorized,
} from "@shared/http";
import type { MiddlewareHandler } from "hono";
import {
  AUTH_FAILURES_PER_ADDRESS,
  AUTH_FAILURES_PER_PREFIX,
  AUTH_WINDOW_MS,
  MAX_CREDENTIAL_CHARS,
} from "./limits.ts";
import type { ApiDeps } from "./ports.ts";

/** Hono variables of customer routes: the account the API key belongs to, and what the key may do. */
export type CustomerEnv = { Variables: { accountId: string; grant: ApiKeyGrant } };

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

const ADMIN_TOKEN_REQUIRED = "a valid admin token is required (Authorization: Bearer <token>)";

/**
 * `Authorization: Bearer <adminToken>`, checked in constant time, a refusal answered 401 with the
 * API's error body, failed guesses throttled (@shared/http's throttledBearerAuth): guessing costs a
 * minute per 20 tries and correct clients are not slowed.
 */
export function adminAuth(adminToken: string, guard: AuthGuard): MiddlewareHandler {
  return throttledBearerAuth({
    token: adminToken,
    throttle: guard.throttle,
    address: guard.clientAddress,
    message: ADMIN_TOKEN_REQUIRED,
    maxChars: MAX_CREDENTIAL_CHARS,
  });
}

/**
 * `x-api-key` (or `Authorization: Bearer <key>`, as Meilisearch's clients send it): the SHA-256 of
 * the key finds its APIKEY item, which names the account and what the key may do; 401 otherwise,
 * and for a key expired at `now`. Throttled like `adminAuth`, after the lookup (a key of over 512
 * characters is not looked up). What the route needs is checked next (keyScope, key-scope.ts).
 */
export function customerAuth(
  table: SettingsTable,
  guard: AuthGuard,
  now: () => Date,
): MiddlewareHandler<CustomerEnv> {
  return async (c, next) => {
    const key = presentedApiKey(c);
    let account: unknown;
    let grant: ApiKeyGrant | null = null;
    if (key !== undefined && key !== "" && key.length <= MAX_CREDENTIAL_CHARS) {
      const item = await table.get(apiKeyPk(await apiKeyHash(key)), API_KEY_SK);
      account = item?.attributes.system_account_id;
      if (item !== null) grant = grantOf(item.attributes);
    }
    // An expired key is a key that no longer exists (it counts as a failed guess).
    const valid =
      typeof account === "string" && account !== "" && grant !== null && !isExpired(grant, now().getTime());
    if (key !== undefined && key !== "") guard.throttle.verdict(guard.clientAddress(c), key, valid);
    if (!valid)
      throw unauthorized("a valid API key is required (x-api-key header, or Authorization: Bearer <key>)");
    c.set("accountId", account as string);
    c.set("grant", grant as ApiKeyGrant);
    await next();
  };
}
