/**
 * `/system` (the status page, rendered on the server from the status body), its login/logout, its
 * client script (`/system/assets/client-<hash>.js`), the page's silence buttons
 * (`POST /system/silences`, session + CSRF token + same origin), and
 * `GET /api/system/collectors/failures` (the 7-day failure counts, latest-run details and recent
 * runs the page's cards need). docs/monitor-page.md.
 */

import {
  type CollectorRegistry,
  MAX_CREDENTIAL_CHARS,
  MAX_PAGE_SILENCE_MINUTES,
  type RunStore,
} from "@monitor/core";
import { ApiError, type AuthThrottle, type ClientAddress, invalid } from "@shared/http";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { NONCE, secureHeaders } from "hono/secure-headers";
import { CLIENT_JS, CLIENT_JS_HASH } from "./client-bundle.gen.ts";
import { loginPage, systemPage } from "./page.ts";
import type { SignedPageSessions } from "./signed-sessions.ts";
import { type TimelineJson, timelinePage } from "./timeline-page.ts";
import type { FailuresJson, MaintenanceListJson, PageState, SilencesJson, StatusJson } from "./view-types.ts";

/** The client script's URL: its content hash in the name, so it is cached for good. */
export const CLIENT_SCRIPT_PATH = `/system/assets/client-${CLIENT_JS_HASH}.js`;

/** The status body as `GET /api/system/status` answers it: 200, or the 503 body. */
export type StatusRead = { ok: true; body: unknown } | { ok: false; body: unknown };

export interface SystemPageDeps {
  store: RunStore;
  registry: CollectorRegistry;
  /** The page's signed, expiring session cookies (valid on every instance holding the keys). */
  sessions: SignedPageSessions;
  /** The app's request-body limit. */
  limit: MiddlewareHandler;
  /** Constant-time check of a presented token against the monitor token. */
  checkToken: (given: string) => Promise<boolean>;
  /** The app's failed-authentication throttle, shared with the bearer auth of `/api/system/*`. */
  throttle: AuthThrottle;
  /** The client's address, as the app determines it (proxy headers only when trusted). */
  clientAddress: ClientAddress;
  /** Whether `X-Forwarded-Proto` of the proxy in front may mark the request as HTTPS. */
  trustProxy: boolean;
  /** Runs a read under the app's read deadline. */
  read: <T>(what: string, work: () => Promise<T>) => Promise<T>;
  now: () => number;
  /** The status body (the same function `GET /api/system/status` answers with). */
  status: (path: string) => Promise<StatusRead>;
  /** The silences not ended (`GET /api/system/silences`); absent without a silence store. */
  listSilences?: () => Promise<unknown>;
  /** Creates a silence from a `POST /api/system/silences` body; absent without a silence store. */
  createSilence?: (body: unknown) => Promise<unknown>;
  /** The timeline body for a raw query (`GET /api/system/timeline`'s checks; throws its 422). */
  timeline: (query: Record<string, string>) => Promise<TimelineJson>;
  /** The maintenance windows not over (`GET /api/system/maintenance`); absent without a maintenance store. */
  listMaintenance?: () => Promise<unknown>;
  /**
   * Ends a maintenance window now (`DELETE /api/system/maintenance/{id}`): the page's End buttons,
   * under the same session, CSRF token and origin checks as the silence buttons (so only with them).
   * Resolves false when no window has that id.
   */
  endMaintenance?: (id: string) => Promise<boolean>;
}

export const FAILURE_DAYS = 7;
/** Runs per collector in the card's run-history chart. */
export const HISTORY_RUNS = 40;

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
    const claims = await sessions.read(c);
    if (claims === undefined) return c.redirect("/system/login", 303);
    const csrfToken = deps.createSilence === undefined ? null : await sessions.csrfToken(claims);
    const state = await pageState(deps, c.req.path, csrfToken);
    return html(c, (nonce) => systemPage(nonce, state, CLIENT_SCRIPT_PATH));
  });

  app.use("/system/timeline", pageHeaders);
  app.get("/system/timeline", async (c) => {
    const claims = await sessions.read(c);
    if (claims === undefined) return c.redirect("/system/login", 303);
    const t = await deps.timeline(c.req.query());
    const back =
      "collector" in t.about
        ? `/system#collector-${encodeURIComponent(t.about.collector)}`
        : "/system#alerts";
    return html(c, (nonce) => timelinePage(nonce, t, back));
  });

  // The client script: static, no secret in it, so served without a session; cached for good
  // under its content hash (a new build is a new URL).
  app.get("/system/assets/:file", (c) => {
    if (c.req.param("file") !== CLIENT_SCRIPT_PATH.slice("/system/assets/".length)) {
      throw new ApiError(404, "not_found", "no such asset");
    }
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(CLIENT_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });

  if (deps.createSilence !== undefined) {
    const create = deps.createSilence;
    // Hono's csrf middleware (Origin of a form post): its refusal as the API's 403 error body.
    const honoCsrf = csrf({ origin: (origin, c) => sameOrigin(origin, c, deps.trustProxy) });
    const sameOriginForms: MiddlewareHandler = async (c, next) => {
      try {
        await honoCsrf(c, async () => {});
      } catch (err) {
        if (err instanceof HTTPException && err.status === 403)
          throw new ApiError(403, "forbidden", "cross-origin write refused");
        throw err;
      }
      await next();
    };
    // A write from the page's session: the request must come from this origin (Hono's csrf
    // middleware checks Origin on form posts; a fetch must name this origin too) and carry the
    // session's CSRF token (header X-CSRF-Token, or the form field csrf without the script).
    app.post("/system/silences", deps.limit, sameOriginForms, async (c) => {
      const origin = c.req.header("origin");
      if (origin !== undefined && !sameOrigin(origin, c, deps.trustProxy)) {
        throw new ApiError(403, "forbidden", "cross-origin write refused");
      }
      if (!(await sessions.valid(c))) throw new ApiError(401, "unauthorized", "sign in again");
      let form: Record<string, unknown> = {};
      try {
        form = await c.req.parseBody();
      } catch {
        form = {};
      }
      const field = (k: string) => (typeof form[k] === "string" ? (form[k] as string) : "");
      const token = c.req.header("x-csrf-token") ?? field("csrf");
      if (!(await sessions.csrfValid(c, token))) {
        throw new ApiError(
          403,
          "csrf_token_invalid",
          "the page's CSRF token is missing or wrong; reload the page",
        );
      }
      const minutes = Number(field("minutes") || "60");
      if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_PAGE_SILENCE_MINUTES) {
        throw invalid("the silence is invalid; nothing was stored", [
          { path: "minutes", message: `must be an integer from 1 to ${MAX_PAGE_SILENCE_MINUTES}` },
        ]);
      }
      const reason = field("reason").trim();
      const created = await create({
        matchers: { rule: field("rule"), subject: { op: "eq", value: field("subject") } },
        author: "the /system page",
        reason:
          reason === ""
            ? `silenced for ${minutes >= 60 ? `${minutes / 60} h` : `${minutes} min`} from the /system page`
            : reason,
        ends_at: new Date(deps.now() + minutes * 60_000).toISOString(),
      });
      if ((c.req.header("accept") ?? "").includes("application/json")) return c.json(created, 201);
      return c.redirect("/system#h-silences", 303);
    });

    const end = deps.endMaintenance;
    if (end !== undefined)
      app.post("/system/maintenance/:id/end", deps.limit, sameOriginForms, async (c) => {
        const origin = c.req.header("origin");
        if (origin !== undefined && !sameOrigin(origin, c, deps.trustProxy)) {
          throw new ApiError(403, "forbidden", "cross-origin write refused");
        }
        if (!(await sessions.valid(c))) throw new ApiError(401, "unauthorized", "sign in again");
        let form: Record<string, unknown> = {};
        try {
          form = await c.req.parseBody();
        } catch {
          form = {};
        }
        const token = c.req.header("x-csrf-token") ?? (typeof form.csrf === "string" ? form.csrf : "");
        if (!(await sessions.csrfValid(c, token))) {
          throw new ApiError(
            403,
            "csrf_token_invalid",
            "the page's CSRF token is missing or wrong; reload the page",
          );
        }
        const id = c.req.param("id");
        if (!(await end(id)))
          throw new ApiError(404, "not_found", `no maintenance window with id ${JSON.stringify(id)}`);
        if ((c.req.header("accept") ?? "").includes("application/json")) return c.json({ ended: id }, 200);
        return c.redirect("/system#h-maintenance", 303);
      });
  }

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
    // Recorded as ended where every instance looks (a copy of the cookie is refused from now on),
    // then the browser's cookie is cleared.
    await sessions.end(c);
    sessions.clear(c, { secure: arrivedOverHttps(c, deps.trustProxy) });
    return c.redirect("/system/login", 303);
  });

  // Behind the `/api/system/*` auth middleware (bearer token or page session).
  app.get("/api/system/collectors/failures", async (c) => c.json(await failuresBody(deps)));
}

/** Whether `origin` (an Origin header) is the origin of this request (the scheme too, unless a trusted proxy terminates TLS). */
function sameOrigin(origin: string, c: Context, trustProxy: boolean): boolean {
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  const here = new URL(c.req.url);
  const host = c.req.header("host") ?? here.host;
  if (o.host !== host && o.host !== here.host) return false;
  return trustProxy || o.protocol === here.protocol;
}

/** The body of `GET /api/system/collectors/failures`. */
export async function failuresBody(deps: Pick<SystemPageDeps, "now" | "read" | "registry" | "store">) {
  const now = deps.now();
  const { specs, rows, latest, recent } = await deps.read("the failure queries", async () => {
    const [specs, rows, latest] = await Promise.all([
      deps.registry.list(),
      deps.store.failuresPerCollectorPerDay(FAILURE_DAYS, now),
      deps.store.latestRunPerCollector(),
    ]);
    const names = [...new Set([...specs.map((s) => s.name), ...rows.map((r) => r.collector)])];
    const recent = new Map(
      await Promise.all(
        names.map(async (n) => [n, await deps.store.recentRuns(n, { limit: HISTORY_RUNS })] as const),
      ),
    );
    return { specs, rows, latest, recent };
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
  return {
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
        // Oldest first: the card's run-history chart.
        recent_runs: (recent.get(name) ?? [])
          .map((r) => ({
            completed_at: new Date(r.completed_at).toISOString(),
            status: r.status,
            duration_ms: r.completed_at - r.started_at,
          }))
          .reverse(),
      };
    }),
  };
}

/**
 * What `/system` is rendered from: the status, failure and silence bodies the client reads too
 * (through JSON, so both render the same values). A part that fails is a problem line, as in the
 * client; the page still answers 200.
 */
async function pageState(deps: SystemPageDeps, path: string, csrfToken: string | null): Promise<PageState> {
  const asJson = <T>(v: unknown): T => JSON.parse(JSON.stringify(v)) as T;
  const [st, fl, si, mw] = await Promise.allSettled([
    deps.status(path),
    failuresBody(deps),
    deps.listSilences === undefined ? Promise.resolve(null) : deps.listSilences(),
    deps.listMaintenance === undefined ? Promise.resolve(null) : deps.listMaintenance(),
  ]);
  const state: PageState = {
    status: null,
    statusAt: null,
    failures: null,
    silences: null,
    problems: [],
    dbDown: null,
    partialQueues: null,
    csrf: csrfToken,
  };
  if (st.status === "fulfilled" && st.value.ok) {
    state.status = asJson<StatusJson>(st.value.body);
    state.statusAt = new Date(deps.now()).toISOString();
  } else if (st.status === "fulfilled") {
    const body = asJson<StatusJson & { error?: { message?: string } }>(st.value.body);
    state.problems.push("Analytics database unreachable: no data yet");
    state.dbDown = body.error?.message ?? "unreachable";
    if (Array.isArray(body.queues)) state.partialQueues = body;
  } else {
    state.problems.push(`Status unavailable (${(st.reason as Error).message}): no data yet`);
  }
  if (fl.status === "fulfilled") state.failures = asJson<FailuresJson>(fl.value);
  else state.problems.push("Failure history unavailable");
  if (si.status === "fulfilled") state.silences = si.value === null ? null : asJson<SilencesJson>(si.value);
  else {
    state.silences = { silences: [] };
    state.problems.push(`Silences unavailable (${(si.reason as Error).message})`);
  }
  if (mw.status === "fulfilled")
    state.maintenance = mw.value === null ? null : asJson<MaintenanceListJson>(mw.value);
  else {
    state.maintenance = { maintenance: [] };
    state.problems.push(`Maintenance windows unavailable (${(mw.reason as Error).message})`);
  }
  return state;
}
