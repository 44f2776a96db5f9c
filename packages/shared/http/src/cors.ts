import type { MiddlewareHandler } from "hono";

/** The request headers a page may send: the key headers and what Meilisearch's clients add. */
export const CORS_ALLOW_HEADERS = [
  "x-api-key",
  "authorization",
  "content-type",
  "x-meilisearch-client",
  "x-ms-user-id",
  "meili-include-metadata",
  "if-match",
  "if-none-match",
];
export const CORS_ALLOW_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** Response headers a page may read besides the simple ones. */
export const CORS_EXPOSE_HEADERS = ["x-relevance-model", "etag", "retry-after"];
/** How long a browser may reuse a preflight's answer, in seconds (Chromium caps it at 7,200). */
export const CORS_MAX_AGE_SECONDS = 7200;

const handled = new WeakSet<Request>();

export interface CorsOptions {
  /** Paths whose requests get no CORS headers at all (the admin API is for operators, not pages). */
  skip?: (path: string) => boolean;
}

/**
 * CORS for the search and customer APIs, the same on Node, Lambda and the Worker. A preflight
 * (`OPTIONS` with Origin and Access-Control-Request-Method) is answered 204 here, before
 * authentication and without any read: it carries no key, so it cannot know the account. Every
 * other answer to a request with an Origin, errors included, names that origin in
 * Access-Control-Allow-Origin, so a page can read a 401 or a 403; whether the account lets that
 * origin use the route is decided after authentication (403 `origin_not_allowed`).
 */
export function cors(options: CorsOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header("origin");
    // Apps composed on one port (search and customer) each bring this middleware: the first one serves.
    if (origin === undefined || options.skip?.(c.req.path) === true || handled.has(c.req.raw)) return next();
    handled.add(c.req.raw);
    if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method") !== undefined) {
      return c.body(null, 204, {
        "access-control-allow-origin": origin,
        "access-control-allow-methods": CORS_ALLOW_METHODS.join(", "),
        "access-control-allow-headers": CORS_ALLOW_HEADERS.join(", "),
        "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
        vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
      });
    }
    await next();
    let headers: Headers;
    try {
      c.res.headers.set("access-control-allow-origin", origin);
      headers = c.res.headers;
    } catch {
      // A response whose headers are immutable (a fetched one) is copied first.
      c.res = new Response(c.res.body, c.res);
      headers = c.res.headers;
      headers.set("access-control-allow-origin", origin);
    }
    headers.set("access-control-expose-headers", CORS_EXPOSE_HEADERS.join(", "));
    headers.append("vary", "Origin");
  };
}
