import {
  allowsIndex,
  corsClassOf,
  grantRefusal,
  keyRefusalMessage,
  neededGrant,
  originAllowed,
  originRefusalMessage,
  type RouteAction,
  type SettingsTable,
} from "@relevance/settings";
import { ApiError } from "@shared/http";
import type { Context, ErrorHandler, MiddlewareHandler } from "hono";
import type { CustomerEnv } from "./auth.ts";
import { readCors } from "./key-store.ts";

/**
 * After customerAuth: the action and index the route needs (ROUTE_ACTIONS of @relevance/settings),
 * refused 403 `invalid_api_key` as Meilisearch refuses a key without them; then, for a request from
 * a browser (an Origin header), the account's CORS origins of the route's class, refused 403
 * `origin_not_allowed`. Both before the route reads a body or writes anything. A request no row
 * names goes on to the router, which answers it 404 or 405.
 */
export function keyScope(table: SettingsTable): MiddlewareHandler<CustomerEnv> {
  return async (c, next) => {
    const needed = neededGrant(c.req.method, c.req.path);
    if (needed === null) return next();
    const refusal = grantRefusal(c.get("grant"), needed.action, needed.index);
    if (refusal !== null)
      throw new ApiError(403, "invalid_api_key", keyRefusalMessage(needed.action, needed.index, refusal));
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      const cors = await readCors(table, c.get("accountId"));
      const kind = corsClassOf(needed);
      if (!originAllowed(cors, kind, origin))
        throw new ApiError(403, "origin_not_allowed", originRefusalMessage(origin, kind));
    }
    return next();
  };
}

/** The refusals above, which Meilisearch's clients tell apart by the top-level `code`. */
const AUTH_CODES = new Set(["invalid_api_key", "origin_not_allowed"]);

/**
 * Wraps the customer app's error handler: a refusal of keyScope also carries Meilisearch's
 * top-level message, code, type and link (as the search routes' errors do), so the official
 * clients raise it with its code. Other answers are left as they are.
 */
export function withAuthRefusalFields(base: ErrorHandler<CustomerEnv>): ErrorHandler<CustomerEnv> {
  return async (err, c) => {
    const res = await base(err, c);
    if (!(err instanceof ApiError) || err.status !== 403 || !AUTH_CODES.has(err.code)) return res;
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    const fields = {
      message: err.message,
      code: err.code,
      type: "auth",
      link: `https://docs.meilisearch.com/errors#${err.code}`,
    };
    return new Response(JSON.stringify({ ...err.body(), ...fields }), { status: 403, headers });
  };
}

/**
 * For an index named in the body rather than the path (an index creation, an alias's target): 403
 * `invalid_api_key` unless the key covers it, checked before anything is written.
 */
export function requireIndex(c: Context<CustomerEnv>, index: string, action: RouteAction): void {
  if (!allowsIndex(c.get("grant"), index))
    throw new ApiError(403, "invalid_api_key", keyRefusalMessage(action, index, "index"));
}
