/**
 * The monitor's HTTP API (spec §3 ingest, §4, §5): run ingest, account and collector updates, the
 * system status, freshness and coverage. A Hono app, runtime-neutral (Web APIs only).
 * Routes and decisions: docs/monitor-api.md.
 */

import {
  AUTH_FAILURES_PER_ADDRESS,
  AUTH_FAILURES_PER_PREFIX,
  AUTH_WINDOW_MS,
  type AutoRegisterConfig,
  type CloudAccountRow,
  COLLECTOR_NAME_RE,
  type CollectorRegistry,
  type CollectorSpec,
  checkRunsClockSkew,
  DEFAULT_AUTO_REGISTER,
  DEFAULT_MAX_CLOCK_SKEW_MS,
  DEFAULT_MONITOR_BODY_BYTES,
  type EndedSessionStore,
  MAX_COLLECTOR_NAME_CHARS,
  MAX_CREDENTIAL_CHARS,
  MAX_MONITOR_JSON_DEPTH,
  MONITOR_TOKEN_CHARS,
  MONITOR_TOKEN_RULE,
  type OwnCostReport,
  overallHealth,
  type QueueHealth,
  type RunStore,
  RunStoreUnavailable,
  RunStoreValidationError,
  registerFirstRuns,
  type SilenceStore,
  validateAccountUpdate,
  validateCollectorSpec,
  validateRunBatch,
} from "@monitor/core";
import { ownCostForStatus } from "@monitor/cost";
import { queuesForStatus } from "@monitor/queues";
import {
  analyticsDb,
  evaluateCoverage,
  evaluateFreshness,
  evaluateHealth,
  type FiringAlertJson,
  iso,
  readSnapshot,
  triage,
  warnings,
} from "@monitor/runtime";
import {
  ApiError,
  AuthThrottle,
  assertJsonShape,
  type ClientAddress,
  forwardedClientAddress,
  headerClientAddress,
  invalid,
  limitBody,
  onError,
  routeFallback,
  unauthorized,
} from "@shared/http";
import type { Logger } from "@shared/kernel";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bearerAuth as honoBearerAuth } from "hono/bearer-auth";
import { timingSafeEqual } from "hono/utils/buffer";
import { registerMetrics, type StatusEvaluation } from "./metrics.ts";
import { monitorOpenApiDocument } from "./openapi.ts";
import { registerSystemPage } from "./page/routes.ts";
import { generateSessionKey, SignedPageSessions } from "./page/signed-sessions.ts";
import { createSilence, listSilences, registerSilenceRoutes } from "./silences.ts";

/** The kernel's Logger port, under the name this app's callers know. */
export type MonitorApiLogger = Logger;

export interface MonitorAppDeps {
  store: RunStore;
  registry: CollectorRegistry;
  /** Bearer token of every `/api/system/*` and `/api/v1/system/*` route. Must not be empty. */
  token: string;
  log: MonitorApiLogger;
  /** Epoch ms; read once per request. */
  now: () => number;
  /** Bound of every read route (status, freshness, accounts, collectors). Default 2000 ms. */
  statusTimeoutMs?: number;
  /** Bound of every write route. Default 10000 ms. */
  writeTimeoutMs?: number;
  /** Largest accepted request body (JSON bodies and the login form). Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * The app runs behind a proxy that terminates TLS and sets `X-Forwarded-Proto` and
   * `X-Forwarded-For` (`TRUST_PROXY=1`): the login cookie is `Secure` when the proxy says the request
   * came over HTTPS, and the client address is the first `X-Forwarded-For` entry. Default false: both
   * headers are ignored, since any client can send them.
   */
  trustProxy?: boolean;
  /**
   * Failed authentications (bearer token of `/api/system/*`, `POST /system/login`), counted per client
   * address and token prefix; over budget is 429 with `Retry-After`. Default: 20 per address and 50
   * per prefix a minute (`AUTH_FAILURES_PER_ADDRESS`, `AUTH_FAILURES_PER_PREFIX`).
   */
  authThrottle?: AuthThrottle;
  /**
   * The address of the connection (the runtime's connection info: `getConnInfo` on Node, the Lambda
   * event's `sourceIp`). Default `headerClientAddress` (`CF-Connecting-IP`, `X-Real-IP`). With
   * `trustProxy` the first `X-Forwarded-For` entry is used instead when present.
   */
  clientAddress?: ClientAddress;
  /**
   * Silences (issue 18): `POST|GET /api/system/silences`, `DELETE /api/system/silences/{id}`. The
   * alert engine must read the same store. Absent: the routes answer 404.
   */
  silences?: SilenceStore;
  /** The firing alerts of the status body (the alert engine's stored state); none when absent. */
  alerts?: () => Promise<FiringAlertJson[]>;
  /**
   * Queue health (`queueHealthReader(source)`): the status body's `queues`. A queue that cannot be read
   * is listed as `unreadable` and the status still answers 200. None when absent (`queues: []`).
   */
  queues?: () => Promise<QueueHealth[]>;
  /**
   * The service's own cost (`ClickHouseCostStore.ownCost`, docs/monitor-cost.md): the status body's
   * `own_cost`. Absent: the body has no `own_cost`.
   */
  ownCost?: (now: number) => Promise<OwnCostReport>;
  /**
   * Auto-registration of a collector's first run (`autoRegisterFromEnv`: `AUTO_REGISTER`,
   * `AUTO_REGISTER_INTERVAL_MINUTES`, `AUTO_REGISTER_FRESHNESS_MINUTES`). Default on, 24 h / 48 h.
   */
  autoRegister?: AutoRegisterConfig;
  /** How far ahead of `now` a run's times may be (`MAX_CLOCK_SKEW_S`). Default 15 min. */
  maxClockSkewMs?: number;
  /**
   * Keys of the `/system` page's signed session cookies (`MONITOR_SESSION_KEYS`): the first signs,
   * all verify. Every instance given the same keys accepts the others' sessions. Absent: one random
   * key per app, so a session is valid only on the instance that issued it.
   */
  sessionKeys?: readonly string[];
  /**
   * Where `POST /system/logout` records the session it ends, read by every instance (SQLite in
   * DATA_DIR, the transitions table on AWS): a copy of the cookie is refused after the logout.
   * Absent: the logout only clears the browser's cookie. Whatever the store, a session is bound to
   * `token`: a new monitor token refuses every earlier cookie.
   */
  endedSessions?: EndedSessionStore;
}

export const DEFAULT_STATUS_TIMEOUT_MS = 2000;
export const DEFAULT_WRITE_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = DEFAULT_MONITOR_BODY_BYTES;
const BEARER = /^Bearer +(\S+) *$/i;
/**
 * How long a collector seen registered is not looked up again by `POST /api/system/runs`. A collector
 * deleted through another instance is registered again by its next run at most this much later.
 */
const KNOWN_COLLECTOR_TTL_MS = 60_000;

/** Hono's timing-safe comparison (SHA-256 of both, then a comparison without an early exit). */
export async function constantTimeEqual(a: string, b: string): Promise<boolean> {
  return timingSafeEqual(a, b);
}

const TOKEN_REQUIRED = "a valid token is required (Authorization: Bearer <token>)";

/**
 * Bearer token, or (GET/HEAD only, no Authorization header) a live `/system` page session cookie.
 * Hono's `bearerAuth` parses the header and compares the token in constant time; a refusal is 401
 * with the API's error body rather than Hono's plain-text one. A wrong or malformed credential counts
 * against its address and prefix; the throttle decides after the comparison (AuthThrottle.verdict).
 * A request without an Authorization header is not counted: it guessed nothing (an expired page
 * session polling the status, say).
 */
function bearerAuth(
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

function silenceStore(deps: MonitorAppDeps): SilenceStore {
  if (deps.silences === undefined) throw new Error("no silence store");
  return deps.silences;
}

function throwUnauthorized(): never {
  throw unauthorized(TOKEN_REQUIRED);
}

/** `GET /api/system/runs`: runs returned by default, and at most. */
export const DEFAULT_RECENT_RUNS = 20;
export const MAX_RECENT_RUNS_READ = 200;

const dbUnavailable = (message: string) => new ApiError(503, "analytics_db_unavailable", message);

/** Races `work` against a deadline; a late answer is dropped (its rejection is swallowed). */
async function within<T>(ms: number, what: string, work: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const p = work();
  p.catch(() => {});
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(dbUnavailable(`the analytics database did not answer ${what} within ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The body as JSON whose shape is safe to copy: no `__proto__`/`constructor`/`prototype` keys, bounded nesting. */
async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, "invalid_json", "the request body is not valid JSON");
  }
  return assertJsonShape(value, { maxDepth: MAX_MONITOR_JSON_DEPTH });
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalid("the request body must be a JSON object", [{ path: "", message: "must be an object" }]);
  }
  return body as Record<string, unknown>;
}

/** A path parameter that also appears in the body must agree with it. */
function samePathParam(body: Record<string, unknown>, field: string, value: string): void {
  if (body[field] !== undefined && body[field] !== value) {
    throw invalid(`${field} in the body differs from the path`, [
      { path: field, message: `must equal the path parameter (${JSON.stringify(value)}) or be absent` },
    ]);
  }
}

const accountJson = (a: CloudAccountRow) => ({
  account_id: a.account_id,
  account_name: a.account_name,
  svc_status: a.svc_status,
  updated_at: iso(a.updated_at),
});
const specJson = (s: CollectorSpec) => ({
  name: s.name,
  expected_interval_minutes: s.expected_interval_minutes,
  freshness_threshold_minutes: s.freshness_threshold_minutes,
});
/** The registry entry with its registration (GET /api/system/collectors). */
const registeredSpecJson = (s: CollectorSpec) => ({
  ...specJson(s),
  registered_at: iso(s.registered_at ?? null),
  registered_by: s.registered_by ?? null,
});

export function createMonitorApp(deps: MonitorAppDeps): Hono {
  const { store, registry, log } = deps;
  if (typeof deps.token !== "string" || deps.token === "")
    throw new Error("createMonitorApp: token is empty");
  if (!MONITOR_TOKEN_CHARS.test(deps.token))
    throw new Error(`createMonitorApp: the token must be ${MONITOR_TOKEN_RULE}`);
  const readMs = deps.statusTimeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS;
  const writeMs = deps.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
  const maxBody = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const autoRegister = deps.autoRegister ?? DEFAULT_AUTO_REGISTER;
  const maxSkewMs = deps.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  /** Collector names known to be registered, until when (epoch ms): run batches skip the registry read. */
  const knownCollectors = new Map<string, number>();
  /** Account PUTs read the previous version before writing the next: one at a time per app. */
  let accountChain: Promise<unknown> = Promise.resolve();

  const app = new Hono();
  const base = onError(log);
  app.onError((err, c) => {
    if (err instanceof RunStoreUnavailable) {
      log.warn("analytics database unavailable", { path: c.req.path, error: err.message });
      return c.json({ error: { code: "analytics_db_unavailable", message: err.message } }, 503);
    }
    if (err instanceof RunStoreValidationError) {
      return c.json(
        invalid("a record failed the store's checks; nothing was stored", [
          { path: `[${err.index}].${err.field}`, message: err.message },
        ]).body(),
        422,
      );
    }
    if (err instanceof ApiError && err.status === 503) {
      log.warn("analytics database unavailable", { path: c.req.path, error: err.message });
    }
    return base(err, c);
  });
  app.notFound(routeFallback(app));

  app.get("/healthz", (c) => c.json({ status: "ok" }));

  const trustProxy = deps.trustProxy ?? false;
  const throttle =
    deps.authThrottle ??
    new AuthThrottle({
      maxFailuresPerAddress: AUTH_FAILURES_PER_ADDRESS,
      maxFailuresPerPrefix: AUTH_FAILURES_PER_PREFIX,
      windowMs: AUTH_WINDOW_MS,
      now: deps.now,
    });
  const clientAddress = forwardedClientAddress(deps.clientAddress ?? headerClientAddress, trustProxy);
  const sessions = new SignedPageSessions(deps.sessionKeys ?? [generateSessionKey()], deps.now, undefined, {
    token: deps.token,
    ...(deps.endedSessions === undefined ? {} : { ended: deps.endedSessions }),
  });
  const auth = bearerAuth(deps.token, sessions, throttle, clientAddress);
  app.use("/api/system/*", auth);
  app.use("/api/v1/system/*", auth);
  const limit = limitBody(maxBody);

  app.post("/api/system/runs", limit, async (c) => {
    const body = await readJson(c);
    const checked = validateRunBatch(body);
    if (!checked.ok) {
      throw invalid(
        `${checked.errors.length} problem(s) in the run records; nothing was stored`,
        checked.errors,
      );
    }
    // Time sanity: a record from a clock far ahead would look fresh until the server catches up.
    const skew = checkRunsClockSkew(checked.value, deps.now(), maxSkewMs, Array.isArray(body));
    if (skew.length > 0) {
      throw invalid(`${skew.length} problem(s) in the run records; nothing was stored`, skew);
    }
    const res = await within(writeMs, "the run insert", () => store.insertRuns(checked.value));
    // After the runs are stored: a resend (same run_id) registers what a failed attempt did not.
    // Collectors seen registered within the last minute are not looked up again (ingest throughput).
    const at = deps.now();
    const fresh = (name: string) => (knownCollectors.get(name) ?? 0) > at;
    let registered: string[] = [];
    if (autoRegister.enabled && !checked.value.every((r) => fresh(r.collector))) {
      registered = await within(writeMs, "the registry update", () =>
        registerFirstRuns(registry, checked.value, autoRegister),
      );
      for (const r of checked.value) knownCollectors.set(r.collector, at + KNOWN_COLLECTOR_TTL_MS);
      if (knownCollectors.size > 10_000) knownCollectors.clear();
    }
    if (registered.length > 0)
      log.info("collectors registered by their first run", { collectors: registered });
    return c.json(
      { received: checked.value.length, stored: res.inserted, duplicates: res.duplicates, registered },
      201,
    );
  });

  app.put("/api/system/accounts/:account_id", limit, async (c) => {
    const accountId = c.req.param("account_id");
    const body = bodyObject(await readJson(c));
    samePathParam(body, "account_id", accountId);
    const { updated_at: _ignored, ...rest } = body;
    const checked = validateAccountUpdate({ ...rest, account_id: accountId });
    if (!checked.ok) throw invalid("the account update is invalid", checked.errors);
    const now = deps.now();
    const write = async (): Promise<CloudAccountRow> => {
      // A new version must win over the previous one even when both land in the same millisecond.
      const prev = (await store.accountsLatest()).find((a) => a.account_id === accountId);
      const row: CloudAccountRow = {
        account_id: accountId,
        account_name: checked.value.account_name,
        svc_status: checked.value.svc_status,
        updated_at: prev === undefined ? now : Math.max(now, prev.updated_at + 1),
      };
      await store.upsertAccount(row);
      return row;
    };
    const next = accountChain.then(() => within(writeMs, "the account update", write));
    accountChain = next.catch(() => {});
    return c.json(accountJson(await next), 200);
  });

  app.get("/api/system/collectors", async (c) => {
    const specs = await within(readMs, "the registry read", () => registry.list());
    return c.json({ collectors: specs.map(registeredSpecJson) });
  });

  app.put("/api/system/collectors/:name", limit, async (c) => {
    const name = c.req.param("name");
    const body = bodyObject(await readJson(c));
    samePathParam(body, "name", name);
    const checked = validateCollectorSpec({ ...body, name });
    if (!checked.ok) throw invalid("the collector spec is invalid", checked.errors);
    await within(writeMs, "the registry update", () => registry.put(checked.value));
    return c.json(specJson(checked.value), 200);
  });

  app.delete("/api/system/collectors/:name", async (c) => {
    const name = c.req.param("name");
    const outcome = await within(writeMs, "the registry update", () => registry.delete(name));
    knownCollectors.delete(name);
    if (outcome === "not_found")
      throw new ApiError(404, "not_found", `no collector ${JSON.stringify(name)} in the registry`);
    if (outcome === "configured")
      throw new ApiError(
        409,
        "configured_collector",
        `${JSON.stringify(name)} is a configured collector and cannot be deleted; adjust it with PUT /api/system/collectors/{name}`,
      );
    log.info("collector deleted from the registry", { collector: name });
    return c.json({ name, deleted: true }, 200);
  });

  /**
   * The status body (`ok`), or the 503 body when the database is unreachable. `evaluated` receives the
   * evaluation's parts (the metrics are computed from them). The /system page renders the same body.
   */
  const statusBody = async (path: string, evaluated?: (e: StatusEvaluation) => void) => {
    const now = deps.now();
    // Read beside the database queries, under its own deadline: a slow queue never makes this a 503.
    const queues = queuesForStatus(deps.queues, readMs);
    const ownCost = ownCostForStatus(deps.ownCost, now, readMs);
    const read = within(readMs, "the status queries", async () => {
      const specs = await registry.list();
      // The status queries, the database's health and the firing alerts at once (independent reads;
      // the health's latency percentiles cover the queries finished before it).
      const [{ latest, successes, streaks, accounts, scans }, db, alerts] = await Promise.all([
        readSnapshot(store, specs, now),
        store.dbHealth(),
        deps.alerts === undefined ? [] : deps.alerts(),
      ]);
      const health = evaluateHealth(specs, { latest, successes, streaks }, now);
      const registeredBy = new Map(specs.map((sp) => [sp.name, sp.registered_by ?? null]));
      const cov = evaluateCoverage(accounts, scans, now);
      const snapshot = { latest, successes, streaks, accounts, scans };
      evaluated?.({
        now,
        specs,
        snapshot,
        db,
        alerts,
        health,
        coverage: cov,
        overall: overallHealth(health),
      });
      return {
        collectors: health.map((h) => ({
          name: h.name,
          last_run: iso(h.last_run),
          status: h.status,
          minutes_ago: h.minutes_ago,
          health: h.health,
          registered_at: iso(h.registered_at),
          new_until: iso(h.new_until),
          registered_by: registeredBy.get(h.name) ?? null,
        })),
        accounts: cov.counts,
        analytics_db: analyticsDb(db),
        generated_at: iso(now),
        overall_health: overallHealth(health),
        unscanned_accounts: cov.unscanned.map((u) => ({ ...u, last_scanned_at: iso(u.last_scanned_at) })),
        new_accounts: cov.new_accounts.map((a) => ({
          ...a,
          first_active_at: iso(a.first_active_at),
          new_until: iso(a.new_until),
        })),
        warnings: warnings(health, cov, specs, latest),
        alerts,
        // Per red or amber collector: where it fails, since when, the last error, its runs (the page's triage).
        triage: triage(health, specs, { latest, successes, streaks }),
      };
    });
    let body: Awaited<typeof read>;
    try {
      body = await read;
    } catch (err) {
      const unavailable =
        err instanceof RunStoreUnavailable || (err instanceof ApiError && err.status === 503);
      if (!unavailable) throw err;
      // The parts that do not live in the database (queues) still answer; the database is marked.
      const message = err instanceof Error ? err.message : String(err);
      log.warn("analytics database unavailable", { path, error: message });
      return {
        ok: false as const,
        body: {
          error: { code: "analytics_db_unavailable", message },
          analytics_db: { status: "unreachable", error: message },
          generated_at: iso(now),
          ...(await queues),
        },
      };
    }
    return { ok: true as const, body: { ...body, ...(await queues), ...(await ownCost) } };
  };
  const status = async (c: Context, evaluated?: (e: StatusEvaluation) => void) => {
    const r = await statusBody(c.req.path, evaluated);
    return r.ok ? c.json(r.body) : c.json(r.body, 503);
  };
  app.get("/api/system/openapi.json", (c) => c.json(monitorOpenApiDocument));
  app.get("/api/system/status", (c) => status(c));
  app.get("/api/v1/system/status", (c) => status(c));
  registerMetrics(app, {
    auth,
    evaluate: async (c) => {
      let evaluation: StatusEvaluation | undefined;
      const response = await status(c, (e) => {
        evaluation = e;
      });
      return { response, evaluation };
    },
  });

  // The recent runs of one collector, newest first: the triage link of the /system page.
  app.get("/api/system/runs", async (c) => {
    const collector = c.req.query("collector") ?? "";
    const account = c.req.query("account") ?? "";
    const region = c.req.query("region") ?? "";
    const limitText = c.req.query("limit") ?? String(DEFAULT_RECENT_RUNS);
    const issues: { path: string; message: string }[] = [];
    if (
      collector === "" ||
      collector.length > MAX_COLLECTOR_NAME_CHARS ||
      !COLLECTOR_NAME_RE.test(collector)
    ) {
      issues.push({
        path: "collector",
        message: `required: a collector name (1-${MAX_COLLECTOR_NAME_CHARS} characters)`,
      });
    }
    const limit = Number(limitText);
    if (!/^[0-9]+$/.test(limitText) || limit < 1 || limit > MAX_RECENT_RUNS_READ) {
      issues.push({ path: "limit", message: `must be an integer from 1 to ${MAX_RECENT_RUNS_READ}` });
    }
    if (account.length > 128) issues.push({ path: "account", message: "must be at most 128 characters" });
    if (region.length > 64) issues.push({ path: "region", message: "must be at most 64 characters" });
    if (issues.length > 0) throw invalid("the runs query is invalid", issues);
    const runs = await within(readMs, "the runs query", () =>
      store.recentRuns(collector, {
        limit,
        ...(account === "" ? {} : { cloud_account_id: account }),
        ...(region === "" ? {} : { cloud_region: region }),
      }),
    );
    return c.json({
      collector,
      runs: runs.map((r) => ({ ...r, started_at: iso(r.started_at), completed_at: iso(r.completed_at) })),
    });
  });

  app.get("/api/system/freshness", async (c) => {
    const now = deps.now();
    const entries = await within(readMs, "the freshness queries", async () => {
      const [specs, latest] = await Promise.all([registry.list(), store.latestRunPerCollector()]);
      return evaluateFreshness(specs, latest, now);
    });
    return c.json({
      generated_at: iso(now),
      collectors: entries.map((e) => ({ ...e, last_run: iso(e.last_run) })),
    });
  });

  app.get("/api/system/accounts", async (c) => {
    const now = deps.now();
    const { accounts, cov } = await within(readMs, "the account queries", async () => {
      const [accounts, scans] = await Promise.all([
        store.accountsLatest(),
        store.lastSucceededRunPerAccount(0),
      ]);
      return { accounts, cov: evaluateCoverage(accounts, scans, now) };
    });
    return c.json({
      generated_at: iso(now),
      counts: cov.counts,
      accounts: [...accounts].sort((a, b) => (a.account_id < b.account_id ? -1 : 1)).map(accountJson),
      warnings: cov.warnings,
      unscanned: cov.unscanned.map((u) => ({ ...u, last_scanned_at: iso(u.last_scanned_at) })),
      new_accounts: cov.new_accounts.map((a) => ({
        ...a,
        first_active_at: iso(a.first_active_at),
        new_until: iso(a.new_until),
      })),
    });
  });

  if (deps.silences !== undefined)
    registerSilenceRoutes(app, { silences: deps.silences, now: deps.now, limit, readJson });

  registerSystemPage(app, {
    store,
    registry,
    sessions,
    limit,
    checkToken: (given) => constantTimeEqual(given, deps.token),
    throttle,
    clientAddress,
    trustProxy,
    read: (what, work) => within(readMs, what, work),
    now: deps.now,
    status: (path) => statusBody(path),
    ...(deps.silences === undefined
      ? {}
      : {
          listSilences: () => listSilences(silenceStore(deps), deps.now()),
          createSilence: (body: unknown) => createSilence(silenceStore(deps), body, deps.now()),
        }),
  });

  return app;
}
