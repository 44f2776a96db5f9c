/**
 * Silences over HTTP (issue 18): `POST /api/system/silences` creates one, `GET` lists those not
 * ended (`?all=true`: ended ones too), `DELETE /api/system/silences/{id}` expires one now. Behind the
 * monitor's bearer token (GET also with a page session). The engine reads the same store each tick.
 */
import { randomUUID } from "node:crypto";
import {
  parseSilenceInput,
  SILENCE_RETENTION_MS,
  type Silence,
  type SilenceStore,
  silenceLive,
} from "@monitor/core";
import { ApiError, invalid } from "@shared/http";
import type { Context, Hono, MiddlewareHandler } from "hono";

export interface SilenceRoutesDeps {
  silences: SilenceStore;
  now: () => number;
  limit: MiddlewareHandler;
  readJson: (c: Context) => Promise<unknown>;
}

/** `active` (in effect), `pending` (starts later) or `expired` (ended), at `now`. */
export function silenceState(s: Silence, now: number): "active" | "pending" | "expired" {
  if (now >= s.endsAt) return "expired";
  return now < s.startsAt ? "pending" : "active";
}

export function silenceJson(s: Silence, now: number) {
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
export async function listSilences(silences: SilenceStore, at: number, all = false) {
  const list = (await silences.list()).filter((s) => all || silenceLive(s, at));
  return {
    generated_at: new Date(at).toISOString(),
    silences: list.map((s) => silenceJson(s, at)),
  };
}

export function registerSilenceRoutes(app: Hono, deps: SilenceRoutesDeps): void {
  const { silences, now } = deps;

  app.post("/api/system/silences", deps.limit, async (c) => {
    const body = await deps.readJson(c);
    return c.json(await createSilence(silences, body, now()), 201);
  });

  app.get("/api/system/silences", async (c) => {
    return c.json(await listSilences(silences, now(), c.req.query("all") === "true"));
  });

  app.delete("/api/system/silences/:id", async (c) => {
    const id = c.req.param("id");
    const at = now();
    const s = await silences.expire(id, at);
    if (s === null) throw new ApiError(404, "not_found", `no silence with id ${JSON.stringify(id)}`);
    return c.json(silenceJson(s, at), 200);
  });
}
