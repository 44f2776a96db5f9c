/**
 * `/system` (the status page), its login/logout, and `GET /api/system/collectors/failures` (the
 * 7-day failure counts and latest-run details the page's cards need). docs/monitor-page.md.
 */
import { ApiError, type AuthThrottle, type ClientAddress } from "@relevance/http";
import { type CollectorRegistry, MAX_CREDENTIAL_CHARS, type RunStore } from "@svcmon/core";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { NONCE, secureHeaders } from "hono/secure-headers";
import { loginPage, systemPage } from "./html.ts";
import type { SignedPageSessions } from "./signed-sessions.ts";

export interface SystemPageDeps {
  store: RunStore;
  registry: CollectorRegistry;
  /** The page's signed, expiring session cookies (valid on every instance holding the keys). */
  sessions: SignedPageSessions;
  /** The app's request-body limit. */
  limit: MiddlewareHandler;
  /** Constant-time check of a presented token against the monitor token. */
  checkToken: (given: string) => Promise<boolean>;
  /** Whether the app serves `/api/system/silences` (a silence store is configured). */
  silences?: boolean;
  /** The app's failed-authentication throttle, shared with the bearer auth of `/api/system/*`. */
  throttle: AuthThrottle;
  /** The client's address, as the app determines it (proxy headers only when trusted). */
  clientAddress: ClientAddress;
  /** Whether `X-Forwarded-Proto` of the proxy in front may mark the request as HTTPS. */
  trustProxy: boolean;
  /** Runs a read under the app's read deadline. */
  read: <T>(what: string, work: () => Promise<T>) => Promise<T>;
  now: () => number;
}

export const FAILURE_DAYS = 7;

/**
 * The page's security headers (Hono's secureHeaders): a CSP whose script and style sources are one
 * nonce per response, no referrer, no MIME sniffing; the middleware's other headers are off.
 */
const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: [NONCE],
    styleSrc: [NONCE],
    connectSrc: ["'self'"],
    imgSrc: ["'self'", "data:"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
  referrerPolicy: "no-referrer",
  xContentTypeOptions: true,
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  removePoweredBy: false,
});

/** An HTML page under `pageHeaders`: its inline script and style carry the response's nonce. */
function html(c: Context, body: (nonce: string) => string, status: 200 | 401 | 429 = 200): Response {
  c.header("Cache-Control", "no-store");
  return c.html(body(c.get("secureHeadersNonce") as string), status);
}

/**
 * Whether the browser reached us over HTTPS: the request URL's scheme, or — only behind a trusted
 * proxy that terminates TLS — its `X-Forwarded-Proto` (the first value, when proxies are chained).
 */
export function arrivedOverHttps(c: Context, trustProxy: boolean): boolean {
  if (new URL(c.req.url).protocol === "https:") return true;
  if (!trustProxy) return false;
  const proto = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  return proto === "https";
}

export function registerSystemPage(app: Hono, deps: SystemPageDeps): void {
  const { sessions } = deps;

  app.use("/system", pageHeaders);
  app.use("/system/login", pageHeaders);

  app.get("/system", async (c) => {
    if (!(await sessions.valid(c))) return c.redirect("/system/login", 303);
    return html(c, (nonce) => systemPage(nonce, deps.silences === true));
  });

  app.get("/system/login", (c) => html(c, (n) => loginPage(n)));

  /** The login form again, saying how long to wait, with the 429's `Retry-After`. */
  const throttled = (c: Context, err: ApiError): Response => {
    for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
    const wait = err.headers?.["Retry-After"] ?? "60";
    return html(
      c,
      (n) => loginPage(n, `Too many failed attempts from here. Wait ${wait} seconds, then try again.`),
      429,
    );
  };
  app.post("/system/login", deps.limit, async (c) => {
    let given = "";
    try {
      const form = await c.req.parseBody();
      given = typeof form.token === "string" ? form.token : "";
    } catch {
      given = "";
    }
    const valid = given !== "" && given.length <= MAX_CREDENTIAL_CHARS && (await deps.checkToken(given));
    // An empty form guessed nothing; anything else counts. A blocked address is refused whatever it
    // sends, except a token that already worked from there (AuthThrottle.verdict).
    if (given !== "") {
      try {
        deps.throttle.verdict(deps.clientAddress(c), given, valid);
      } catch (err) {
        if (err instanceof ApiError && err.status === 429) return throttled(c, err);
        throw err;
      }
    }
    if (!valid) return html(c, (n) => loginPage(n, "Wrong token. Try again."), 401);
    await sessions.issue(c, { secure: arrivedOverHttps(c, deps.trustProxy) });
    return c.redirect("/system", 303);
  });

  app.post("/system/logout", async (c) => {
    // Stateless: the cookie is cleared; a copy taken earlier stays valid until it expires.
    sessions.clear(c, { secure: arrivedOverHttps(c, deps.trustProxy) });
    return c.redirect("/system/login", 303);
  });

  // Behind the `/api/system/*` auth middleware (bearer token or page session).
  app.get("/api/system/collectors/failures", async (c) => {
    const now = deps.now();
    const { specs, rows, latest } = await deps.read("the failure queries", async () => {
      const [specs, rows, latest] = await Promise.all([
        deps.registry.list(),
        deps.store.failuresPerCollectorPerDay(FAILURE_DAYS, now),
        deps.store.latestRunPerCollector(),
      ]);
      return { specs, rows, latest };
    });
    const days = [...new Set(rows.map((r) => r.day))].sort();
    if (days.length === 0) {
      const today = Math.floor(now / 86_400_000) * 86_400_000;
      for (let i = FAILURE_DAYS - 1; i >= 0; i--) {
        days.push(new Date(today - i * 86_400_000).toISOString().slice(0, 10));
      }
    }
    const names = [...new Set([...specs.map((s) => s.name), ...rows.map((r) => r.collector)])].sort();
    const count = new Map(rows.map((r) => [`${r.collector}\u0000${r.day}`, r.failures]));
    const latestOf = new Map(latest.map((r) => [r.collector, r]));
    return c.json({
      generated_at: new Date(now).toISOString(),
      days,
      collectors: names.map((name) => {
        const failures = days.map((d) => count.get(`${name}\u0000${d}`) ?? 0);
        const lr = latestOf.get(name);
        return {
          name,
          failures,
          total: failures.reduce((a, b) => a + b, 0),
          latest_run:
            lr === undefined
              ? null
              : {
                  status: lr.status,
                  completed_at: new Date(lr.completed_at).toISOString(),
                  duration_ms: lr.duration_ms,
                  events_produced: lr.events_produced,
                  error: lr.error,
                },
        };
      }),
    });
  });
}
