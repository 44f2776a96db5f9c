/**
 * The collector registry (`GET /api/system/collectors`, `PUT|DELETE /api/system/collectors/{name}`)
 * and `GET /api/system/freshness` (collectors over their freshness threshold). docs/monitor-api.md.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  type CollectorSpec,
  CollectorSpecBodySchema,
  MAX_COLLECTOR_NAME_CHARS,
  validateCollectorSpec,
} from "@monitor/core";
import { evaluateFreshness, iso } from "@monitor/runtime";
import { ApiError, invalid } from "@shared/http";
import type { BlankEnv } from "hono/types";
import { z } from "zod";
import type { MonitorContext } from "../context.ts";
import { bodyObject, readJson, samePathParam } from "../request-body.ts";
import {
  CollectorDeletedSchema,
  CollectorSpecSchema,
  CollectorsSchema,
  FreshnessSchema,
} from "../schemas/resources.ts";
import {
  COMMON_ERRORS,
  errorAnswer,
  json,
  monitorRoutes,
  SECURED,
  STORAGE_FULL,
  WRITE_ERRORS,
} from "./openapi-parts.ts";

const nameParam = z.object({
  name: z.string().meta({ description: `1 to ${MAX_COLLECTOR_NAME_CHARS} characters.` }),
});

export const getCollectors = createRoute({
  method: "get",
  path: "/api/system/collectors",
  ...SECURED,
  summary: "The collector registry, with when and how each collector was registered.",
  responses: {
    200: { description: "Registered collectors.", content: json(CollectorsSchema) },
    ...COMMON_ERRORS,
  },
});

export const putCollector = createRoute({
  method: "put",
  path: "/api/system/collectors/{name}",
  ...SECURED,
  summary:
    "Register or adjust a collector: an expected interval and freshness threshold, or a cron schedule in a time zone with a grace.",
  request: { params: nameParam, body: { required: true, content: json(CollectorSpecBodySchema) } },
  responses: {
    200: { description: "The registry entry.", content: json(CollectorSpecSchema) },
    ...WRITE_ERRORS,
  },
});

export const deleteCollector = createRoute({
  method: "delete",
  path: "/api/system/collectors/{name}",
  ...SECURED,
  summary:
    "Remove a collector from the registry (and its registration); its runs stay. A later run registers it again (first_run) unless AUTO_REGISTER=0.",
  request: { params: nameParam },
  responses: {
    200: { description: "Deleted.", content: json(CollectorDeletedSchema) },
    404: errorAnswer("No such collector in the registry (not_found)."),
    409: errorAnswer("A configured collector; the configuration would bring it back (configured_collector)."),
    ...COMMON_ERRORS,
    507: STORAGE_FULL,
  },
});

export const getFreshness = createRoute({
  method: "get",
  path: "/api/system/freshness",
  ...SECURED,
  summary: "Collectors over their freshness threshold, oldest first.",
  responses: {
    200: { description: "The freshness list.", content: json(FreshnessSchema) },
    ...COMMON_ERRORS,
  },
});

const specJson = (s: CollectorSpec) => ({
  name: s.name,
  expected_interval_minutes: s.expected_interval_minutes,
  freshness_threshold_minutes: s.freshness_threshold_minutes,
  schedule: s.schedule ?? null,
  timezone: s.schedule ? (s.timezone ?? "UTC") : null,
  grace_minutes: s.schedule ? (s.grace_minutes ?? null) : null,
  duration_too_long_factor: s.duration_too_long_factor ?? null,
  duration_too_short_factor: s.duration_too_short_factor ?? null,
  runs_too_often_factor: s.runs_too_often_factor ?? null,
  duration_baseline_runs: s.duration_baseline_runs ?? null,
  max_duration_minutes: s.max_duration_minutes ?? null,
});

export function collectorRoutes(ctx: MonitorContext): OpenAPIHono<BlankEnv> {
  const { registry, store, log } = ctx;
  const app = monitorRoutes();

  app.openapi(getCollectors, async (c) => {
    const specs = await ctx.read("the registry read", () => registry.list());
    return c.json(
      {
        collectors: specs.map((s) => ({
          ...specJson(s),
          registered_at: iso(s.registered_at ?? null),
          registered_by: s.registered_by ?? null,
        })),
      },
      200,
    );
  });

  // The path's name is checked with the body (validateCollectorSpec): one list of problems.
  app.openAPIRegistry.registerPath(putCollector);
  app.put("/api/system/collectors/:name", ctx.limit, async (c) => {
    const name = c.req.param("name");
    const body = bodyObject(await readJson(c));
    samePathParam(body, "name", name);
    const checked = validateCollectorSpec({ ...body, name });
    if (!checked.ok) throw invalid("the collector spec is invalid", checked.errors);
    await ctx.write("the registry update", () => registry.put(checked.value));
    return c.json(specJson(checked.value), 200);
  });

  app.openapi(deleteCollector, async (c) => {
    const { name } = c.req.valid("param");
    const outcome = await ctx.write("the registry update", () => registry.delete(name));
    ctx.knownCollectors.delete(name);
    if (outcome === "not_found")
      throw new ApiError(404, "not_found", `no collector ${JSON.stringify(name)} in the registry`);
    if (outcome === "configured")
      throw new ApiError(
        409,
        "configured_collector",
        `${JSON.stringify(name)} is a configured collector and cannot be deleted; adjust it with PUT /api/system/collectors/{name}`,
      );
    log.info("collector deleted from the registry", { collector: name });
    return c.json({ name, deleted: true as const }, 200);
  });

  app.openapi(getFreshness, async (c) => {
    const now = ctx.now();
    const entries = await ctx.read("the freshness queries", async () => {
      const [specs, latest] = await Promise.all([registry.list(), store.latestRunPerCollector()]);
      return evaluateFreshness(specs, latest, now);
    });
    return c.json(
      {
        generated_at: new Date(now).toISOString(),
        collectors: entries.map((e) => ({ ...e, last_run: iso(e.last_run) })),
      },
      200,
    );
  });

  return app;
}
