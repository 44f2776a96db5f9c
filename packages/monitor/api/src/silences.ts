/**
 * Silences over HTTP (docs/monitor-alerts.md): `POST /api/system/silences` creates one, `GET` lists
 * those not ended (`?all=true`: ended ones too), `DELETE /api/system/silences/{id}` expires one now.
 * Behind the monitor's bearer token (GET also with a page session). The engine reads the same store
 * each tick.
 */
import { randomUUID } from "node:crypto";
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  parseSilenceInput,
  SILENCE_MAX_ACTIVE,
  SILENCE_RETENTION_MS,
  type Silence,
  SilenceRequestSchema,
  type SilenceStore,
  silenceLive,
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
import { SilenceSchema, SilencesSchema } from "./schemas/resources.ts";

export interface SilenceRoutesDeps {
  silences: SilenceStore;
  now: () => number;
  limit: MiddlewareHandler;
}

/** `active` (in effect), `pending` (starts later) or `expired` (ended), at `now`. */
export function silenceState(s: Silence, now: number): "active" | "pending" | "expired" {
  if (now >= s.endsAt) return "expired";
  return now < s.startsAt ? "pending" : "active";
}

export function silenceJson(s: Silence, now: number): z.input<typeof SilenceSchema> {
  return {
    id: s.id,
    matchers: s.matchers,
    author: s.author,
    reason: s.reason,
    starts_at: new Date(s.startsAt).toISOString(),
    ends_at: new Date(s.endsAt).toISOString(),
    created_at: new Date(s.createdAt).toISOString(),
    state: silenceState(s, now),
  };
}

/** Checks and stores a silence (the body of `POST /api/system/silences`); 422 when invalid. */
export async function createSilence(silences: SilenceStore, body: unknown, at: number) {
  const kept = await silences.list();
  const checked = parseSilenceInput(body, at, kept.filter((s) => silenceLive(s, at)).length);
  if (!checked.ok) throw invalid("the silence is invalid; nothing was stored", checked.errors);
  const silence: Silence = { id: randomUUID(), ...checked.value, createdAt: at };
  // Ended silences are kept a while (listed with ?all=true), then dropped: before the new one is
  // stored, so that what a full disk refuses is refused before anything is acknowledged, and the
  // room they took is the new one's.
  await silences.prune(at - SILENCE_RETENTION_MS);
  await silences.create(silence);
  return silenceJson(silence, at);
}

/** The body of `GET /api/system/silences` (`all`: ended ones too). */
export async function listSilences(
  silences: SilenceStore,
  at: number,
  all = false,
): Promise<z.input<typeof SilencesSchema>> {
  const list = (await silences.list()).filter((s) => all || silenceLive(s, at));
  return {
    generated_at: new Date(at).toISOString(),
    silences: list.map((s) => silenceJson(s, at)),
  };
}

export const postSilence = createRoute({
  method: "post",
  path: "/api/system/silences",
  ...SECURED,
  summary: `Create a silence: alerts matching its rule and subject are muted (not notified) from starts_at until ends_at (at most 30 days ahead; at most ${SILENCE_MAX_ACTIVE} not ended). A still-firing alert is notified when it ends.`,
  request: { body: { required: true, content: json(SilenceRequestSchema) } },
  responses: { 201: { description: "The silence created.", content: json(SilenceSchema) }, ...WRITE_ERRORS },
});

export const getSilences = createRoute({
  method: "get",
  path: "/api/system/silences",
  ...SECURED,
  summary: "Silences not yet ended (active or pending); with all=true also those ended in the last 5 days.",
  request: {
    query: z.object({
      all: z.string().optional().meta({ description: "true: ended ones too (any other value: not)." }),
    }),
  },
  responses: {
    200: { description: "Silences, by creation time.", content: json(SilencesSchema) },
    ...COMMON_ERRORS,
  },
});

export const deleteSilence = createRoute({
  method: "delete",
  path: "/api/system/silences/{id}",
  ...SECURED,
  summary:
    "Expire a silence now (it stays listed with all=true); its alerts, if still firing, are notified at the next evaluation.",
  request: { params: z.object({ id: z.string().meta({ description: "The silence's id." }) }) },
  responses: {
    200: { description: "The silence as expired.", content: json(SilenceSchema) },
    404: errorAnswer("No silence with that id (not_found)."),
    ...COMMON_ERRORS,
    507: STORAGE_FULL,
  },
});

export function silenceRoutes(deps: SilenceRoutesDeps): OpenAPIHono<BlankEnv> {
  const { silences, now } = deps;
  const app = monitorRoutes();

  // The body is read whatever its Content-Type and checked by parseSilenceInput
  // (SilenceRequestSchema, then the times against now and the bound on live silences).
  app.openAPIRegistry.registerPath(postSilence);
  app.post(postSilence.path, deps.limit, async (c) => {
    const body = await readJson(c);
    return c.json(await createSilence(silences, body, now()), 201);
  });

  app.openapi(getSilences, async (c) => {
    return c.json(await listSilences(silences, now(), c.req.valid("query").all === "true"), 200);
  });

  app.openapi(deleteSilence, async (c) => {
    const { id } = c.req.valid("param");
    const at = now();
    const s = await silences.expire(id, at);
    if (s === null) throw new ApiError(404, "not_found", `no silence with id ${JSON.stringify(id)}`);
    return c.json(silenceJson(s, at), 200);
  });

  return app;
}
