/**
 * The monitor's HTTP API: run ingest, account and collector updates, the system status, freshness,
 * coverage, silences, metrics and the /system page. A Hono app (OpenAPIHono), runtime-neutral (Web
 * APIs only), joined from one sub-app per resource (routes/); its OpenAPI document is generated from
 * their schemas. Routes and decisions: docs/monitor-api.md.
 */

import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import {
  AUTH_FAILURES_PER_ADDRESS,
  AUTH_FAILURES_PER_PREFIX,
  AUTH_WINDOW_MS,
  MONITOR_TOKEN_CHARS,
  MONITOR_TOKEN_RULE,
  RunStoreUnavailable,
  RunStoreValidationError,
} from "@monitor/core";
import { maintenanceOccurrences } from "@monitor/runtime";
import {
  ApiError,
  AuthThrottle,
  forwardedClientAddress,
  headerClientAddress,
  invalid,
  limitBody,
  onError,
  routeFallback,
} from "@shared/http";
import type { BlankEnv } from "hono/types";
import { z } from "zod";
import { bearerAuth, constantTimeEqual } from "./auth.ts";
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_STATUS_TIMEOUT_MS,
  DEFAULT_WRITE_TIMEOUT_MS,
  type MonitorAppDeps,
  type MonitorContext,
  within,
} from "./context.ts";
import { listMaintenance, maintenanceRoutes } from "./maintenance.ts";
import { monitorOpenApiDocument, registerSecuritySchemes } from "./openapi-document.ts";
import { documentSystemPage } from "./page/page-document.ts";
import { registerSystemPage } from "./page/routes.ts";
import { generateSessionKey, SignedPageSessions } from "./page/signed-sessions.ts";
import { accountRoutes } from "./routes/accounts.ts";
import { collectorRoutes } from "./routes/collectors.ts";
import { COMMON_ERRORS, json, OPEN, SECURED } from "./routes/openapi-parts.ts";
import { runStartRoutes } from "./routes/run-starts.ts";
import { runRoutes } from "./routes/runs.ts";
import { statusReader, statusRoutes } from "./routes/status.ts";
import { parseTimelineQuery, timelineBody, timelineRoutes } from "./routes/timeline.ts";
import { createSilence, listSilences, silenceRoutes } from "./silences.ts";

export { constantTimeEqual } from "./auth.ts";
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_STATUS_TIMEOUT_MS,
  DEFAULT_WRITE_TIMEOUT_MS,
  type MonitorApiLogger,
  type MonitorAppDeps,
} from "./context.ts";
export { DEFAULT_RECENT_RUNS, MAX_RECENT_RUNS_READ } from "./routes/runs.ts";

const healthz = createRoute({
  method: "get",
  path: "/healthz",
  ...OPEN,
  summary: "Liveness (no authentication).",
  responses: { 200: { description: "Alive.", content: json(z.object({ status: z.literal("ok") })) } },
});

const openApiJson = createRoute({
  method: "get",
  path: "/api/system/openapi.json",
  ...SECURED,
  summary: "This document.",
  responses: {
    200: { description: "The OpenAPI document.", content: json(z.object({}).loose()) },
    ...COMMON_ERRORS,
  },
});

export function createMonitorApp(deps: MonitorAppDeps): OpenAPIHono<BlankEnv> {
  const { log } = deps;
  if (typeof deps.token !== "string" || deps.token === "")
    throw new Error("createMonitorApp: token is empty");
  if (!MONITOR_TOKEN_CHARS.test(deps.token))
    throw new Error(`createMonitorApp: the token must be ${MONITOR_TOKEN_RULE}`);
  const readMs = deps.statusTimeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS;
  const writeMs = deps.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
  const ctx: MonitorContext = {
    deps,
    store: deps.store,
    registry: deps.registry,
    log,
    now: deps.now,
    read: (what, work) => within(readMs, what, work),
    readMs,
    write: (what, work) => within(writeMs, what, work),
    limit: limitBody(deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
    knownCollectors: new Map(),
  };

  const app = new OpenAPIHono<BlankEnv>();
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
  registerSecuritySchemes(app);

  app.openapi(healthz, (c) => c.json({ status: "ok" as const }, 200));

  // One authentication for every API route: the bearer token, or a page session for reads.
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

  const readStatus = statusReader(ctx);
  app.route("/", runRoutes(ctx));
  app.route("/", runStartRoutes(ctx));
  app.route("/", accountRoutes(ctx));
  app.route("/", collectorRoutes(ctx));
  app.route("/", statusRoutes(auth, readStatus));
  const silences = deps.silences;
  if (silences !== undefined) app.route("/", silenceRoutes({ silences, now: deps.now, limit: ctx.limit }));
  const timelineSources = {
    ...(deps.history ?? {}),
    ...(silences === undefined ? {} : { silences }),
    ...(deps.maintenance === undefined ? {} : { windows: maintenanceOccurrences(deps.maintenance) }),
  };
  app.route("/", timelineRoutes(ctx, timelineSources));
  const maintenance = deps.maintenance;
  if (maintenance !== undefined)
    app.route("/", maintenanceRoutes({ maintenance, now: deps.now, limit: ctx.limit }));

  const page = new OpenAPIHono<BlankEnv>();
  registerSystemPage(page, {
    store: ctx.store,
    registry: ctx.registry,
    sessions,
    limit: ctx.limit,
    checkToken: (given) => constantTimeEqual(given, deps.token),
    throttle,
    clientAddress,
    trustProxy,
    read: ctx.read,
    now: deps.now,
    status: (path) => readStatus(path),
    timeline: async (query) => timelineBody(ctx, timelineSources, parseTimelineQuery(query)),
    ...(silences === undefined
      ? {}
      : {
          listSilences: () => listSilences(silences, deps.now()),
          createSilence: (body: unknown) => createSilence(silences, body, deps.now()),
        }),
    ...(maintenance === undefined
      ? {}
      : {
          listMaintenance: () => listMaintenance(maintenance, deps.now()),
          endMaintenance: async (id: string) => (await maintenance.end(id, deps.now())) !== null,
        }),
  });
  documentSystemPage(page, silences !== undefined, maintenance !== undefined);
  app.route("/", page);

  // Generated once, after every route is registered: the document cannot change afterwards.
  let document: ReturnType<typeof monitorOpenApiDocument> | undefined;
  app.openapi(openApiJson, (c) => {
    document ??= monitorOpenApiDocument(app);
    return c.json(document, 200);
  });

  return app;
}
