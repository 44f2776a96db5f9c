/**
 * `POST /api/system/runs/start`: a collector says a run has begun, under the run_id its final record
 * (`POST /api/system/runs`) will carry. Until that record arrives the run is shown running, then hung
 * once its collector's max duration has passed (docs/monitor-api.md, "Run starts").
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  checkClockSkew,
  DEFAULT_AUTO_REGISTER,
  DEFAULT_MAX_CLOCK_SKEW_MS,
  RunStartSchema,
  registerFirstRuns,
  validateRunStart,
} from "@monitor/core";
import { invalid } from "@shared/http";
import type { BlankEnv } from "hono/types";
import { z } from "zod";
import type { MonitorContext } from "../context.ts";
import { readJson } from "../request-body.ts";
import { json, monitorRoutes, SECURED, WRITE_ERRORS } from "./openapi-parts.ts";

export const RunStartedSchema = z
  .object({
    run_id: z.string().meta({ format: "uuid" }),
    started_at: z.string().meta({ format: "date-time", description: "As stored (ISO 8601, UTC)." }),
    registered: z
      .array(z.string())
      .meta({ description: "The collector, when this start registered it (auto-registration)." }),
  })
  .meta({ id: "RunStarted" });

export const postRunStart = createRoute({
  method: "post",
  path: "/api/system/runs/start",
  ...SECURED,
  summary: "Record that a collector's run has started; its final run record (same run_id) ends it.",
  description:
    "started_at defaults to the server clock; more than MAX_CLOCK_SKEW_S ahead of it is refused (422). " +
    "A run_id started twice keeps its first start. A collector the registry does not know is registered as its first run would register it (AUTO_REGISTER).",
  request: { body: { required: true, content: json(RunStartSchema) } },
  responses: { 202: { description: "Stored.", content: json(RunStartedSchema) }, ...WRITE_ERRORS },
});

export function runStartRoutes(ctx: MonitorContext): OpenAPIHono<BlankEnv> {
  const { deps, store, registry, log } = ctx;
  const autoRegister = deps.autoRegister ?? DEFAULT_AUTO_REGISTER;
  const maxSkewMs = deps.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  const app = monitorRoutes();

  app.openAPIRegistry.registerPath(postRunStart);
  app.post(postRunStart.path, ctx.limit, async (c) => {
    const checked = validateRunStart(await readJson(c));
    if (!checked.ok) throw invalid("the run start is invalid; nothing was stored", checked.errors);
    const now = ctx.now();
    const startedAt = checked.value.started_at ?? now;
    const skew = checkClockSkew({ started_at: startedAt }, now, maxSkewMs);
    if (skew.length > 0) throw invalid("the run start is invalid; nothing was stored", skew);
    const start = { ...checked.value, started_at: startedAt };
    await ctx.write("the run start insert", () => store.recordStarts([start]));
    let registered: string[] = [];
    if (autoRegister.enabled && (ctx.knownCollectors.get(start.collector) ?? 0) <= now) {
      registered = await ctx.write("the registry update", () =>
        registerFirstRuns(registry, [start], autoRegister),
      );
    }
    if (registered.length > 0)
      log.info("collector registered by its first run start", { collectors: registered });
    const answer: z.input<typeof RunStartedSchema> = {
      run_id: start.run_id,
      started_at: new Date(startedAt).toISOString(),
      registered,
    };
    return c.json(answer, 202);
  });

  return app;
}
