import {
  AuthThrottle,
  type ClientAddress,
  headerClientAddress,
  presentedApiKey,
  unauthorized,
} from "@relevance/http";
import { API_KEY_SK, apiKeyHash, apiKeyPk, type SettingsTable } from "@relevance/settings";
import type { MiddlewareHandler } from "hono";
import { constantTimeEqual } from "./crypto.ts";
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

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * `Authorization: Bearer <adminToken>`, compared in constant time; 401 otherwise. The throttle
 * decides after the comparison (AuthThrottle.verdict): a client over its failed-attempt budget gets
 * 429 whatever it sends, except a token that already worked from its address, so guessing costs a
 * minute per 20 tries and correct clients are not slowed.
 */
export function adminAuth(adminToken: string, guard: AuthGuard): MiddlewareHandler {
  return async (c, next) => {
    const presented = c.req.header("authorization");
    const token = BEARER.exec(presented ?? "")?.[1];
    const valid =
      token !== undefined &&
      token.length <= MAX_CREDENTIAL_CHARS &&
      (await constantTimeEqual(token, adminToken));
    // No header is no guess: answered 401 without counting.
    if (presented !== undefined) guard.throttle.verdict(guard.clientAddress(c), token ?? presented, valid);
    if (!valid) throw unauthorized("a valid admin token is required (Authorization: Bearer <token>)");
    await next();
  };
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
