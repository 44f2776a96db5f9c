/**
 * Maintenance windows over HTTP (docs/monitor-alerts.md "Maintenance windows"):
 * `POST /api/system/maintenance` creates one, `GET` lists those not over (`?all=true`: over ones
 * too, kept 7 days), `DELETE /api/system/maintenance/{id}` ends one now. Behind the monitor's bearer
 * token (GET also with a page session). The alert engine and the status read the same store.
 */
import { randomUUID } from "node:crypto";
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  MAINTENANCE_MAX_LIVE,
  MAINTENANCE_RETENTION_MS,
  MaintenanceRequestSchema,
  type MaintenanceStore,
  type MaintenanceWindow,
  maintenanceLive,
  maintenanceView,
  parseMaintenanceInput,
} from "@monitor/core";
import { ApiError, invalid } from "@shared/http";
import type { MiddlewareHandler } from "hono";
import type { BlankEnv } from "hono/types";
import { z } from "zod";
import { readJson } from "./request-body.ts";
import {
  COMMON_ERRORS,
  errorAnswer,
  json,
  monitorRoutes,
  SECURED,
  STORAGE_FULL,
  WRITE_ERRORS,
} from "./routes/openapi-parts.ts";
import { MaintenanceListSchema, MaintenanceWindowSchema } from "./schemas/maintenance.ts";

export interface MaintenanceRoutesDeps {
  maintenance: MaintenanceStore;
  now: () => number;
  limit: MiddlewareHandler;
}

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

export function maintenanceJson(w: MaintenanceWindow, now: number): z.input<typeof MaintenanceWindowSchema> {
  const v = maintenanceView(w, now);
  const t = w.timing;
  return {
    id: w.id,
    scope: w.scope,
    author: w.author,
    reason: w.reason,
    created_at: new Date(w.createdAt).toISOString(),
    kind: t.kind,
    schedule: t.kind === "recurring" ? t.schedule : null,
    timezone: t.kind === "recurring" ? t.timezone : null,
    duration_minutes: t.kind === "recurring" ? t.durationMinutes : null,
    ended_at: iso(w.endedAt),
    active: v.active,
    starts_at: iso(v.current?.startsAt),
    ends_at: iso(v.current?.endsAt),
    next_start: iso(v.nextStart),
    state: v.active ? "active" : maintenanceLive(w, now) && v.current !== null ? "pending" : "over",
  };
}

/** Checks and stores a window (the body of `POST /api/system/maintenance`); 422 when invalid. */
export async function createMaintenance(store: MaintenanceStore, body: unknown, at: number) {
  const kept = await store.list();
  const checked = parseMaintenanceInput(body, at, kept.filter((w) => maintenanceLive(w, at)).length);
  if (!checked.ok) throw invalid("the maintenance window is invalid; nothing was stored", checked.errors);
  const window: MaintenanceWindow = { id: randomUUID(), ...checked.value, createdAt: at, endedAt: null };
  // Windows over are kept a while (their end still anchors freshness), then dropped before a new one
  // is stored, so the room they took is the new one's.
  await store.prune(at - MAINTENANCE_RETENTION_MS);
  await store.create(window);
  return maintenanceJson(window, at);
}

/** The body of `GET /api/system/maintenance` (`all`: windows over too). */
export async function listMaintenance(
  store: MaintenanceStore,
  at: number,
  all = false,
): Promise<z.input<typeof MaintenanceListSchema>> {
  const list = (await store.list()).filter((w) => all || maintenanceLive(w, at));
  return { generated_at: new Date(at).toISOString(), maintenance: list.map((w) => maintenanceJson(w, at)) };
}

export const postMaintenance = createRoute({
  method: "post",
  path: "/api/system/maintenance",
  ...SECURED,
  summary: `Create a maintenance window: one-off (ends_at, at most 30 days ahead) or recurring (schedule, timezone, duration_minutes up to 24 h), scoped to collectors, accounts or all. While it is in effect the alerts it covers are muted; after it, the collectors it covered count their freshness from its end. At most ${MAINTENANCE_MAX_LIVE} not over.`,
  request: { body: { required: true, content: json(MaintenanceRequestSchema) } },
  responses: {
    201: { description: "The window created.", content: json(MaintenanceWindowSchema) },
    ...WRITE_ERRORS,
  },
});

export const getMaintenance = createRoute({
  method: "get",
  path: "/api/system/maintenance",
  ...SECURED,
  summary:
    "Maintenance windows not over (active, pending or recurring), each with active, starts_at/ends_at and next_start computed now; with all=true also those over in the last 7 days.",
  request: {
    query: z.object({
      all: z.string().optional().meta({ description: "true: windows over too (any other value: not)." }),
    }),
  },
  responses: {
    200: { description: "Windows, by creation time.", content: json(MaintenanceListSchema) },
    ...COMMON_ERRORS,
  },
});

export const deleteMaintenance = createRoute({
  method: "delete",
  path: "/api/system/maintenance/{id}",
  ...SECURED,
  summary:
    "End a maintenance window now (a recurring one has no further occurrence); what still fires is notified at the next evaluation.",
  request: { params: z.object({ id: z.string().meta({ description: "The window's id." }) }) },
  responses: {
    200: { description: "The window as ended.", content: json(MaintenanceWindowSchema) },
    404: errorAnswer("No window with that id (not_found)."),
    ...COMMON_ERRORS,
    507: STORAGE_FULL,
  },
});

export function maintenanceRoutes(deps: MaintenanceRoutesDeps): OpenAPIHono<BlankEnv> {
  const { maintenance, now } = deps;
  const app = monitorRoutes();

  // The body is read whatever its Content-Type and checked by parseMaintenanceInput.
  app.openAPIRegistry.registerPath(postMaintenance);
  app.post(postMaintenance.path, deps.limit, async (c) => {
    const body = await readJson(c);
    return c.json(await createMaintenance(maintenance, body, now()), 201);
  });

  app.openapi(getMaintenance, async (c) => {
    return c.json(await listMaintenance(maintenance, now(), c.req.valid("query").all === "true"), 200);
  });

  app.openapi(deleteMaintenance, async (c) => {
    const { id } = c.req.valid("param");
    const at = now();
    const w = await maintenance.end(id, at);
    if (w === null)
      throw new ApiError(404, "not_found", `no maintenance window with id ${JSON.stringify(id)}`);
    return c.json(maintenanceJson(w, at), 200);
  });

  return app;
}
