/**
 * `POST /api/system/runs` (collectors report their runs; the first run of an unknown collector
 * registers it) and `GET /api/system/runs` (one collector's recent runs: the page's triage link).
 * docs/monitor-api.md.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  COLLECTOR_NAME_RE,
  checkRunsClockSkew,
  DEFAULT_AUTO_REGISTER,
  DEFAULT_MAX_CLOCK_SKEW_MS,
  MAX_ACCOUNT_ID_CHARS,
  MAX_COLLECTOR_NAME_CHARS,
  MAX_REGION_CHARS,
  MAX_RUN_BATCH,
  RunBatchSchema,
  registerFirstRuns,
  unfailed,
  validateRunBatch,
} from "@monitor/core";
import { invalid } from "@shared/http";
import type { BlankEnv } from "hono/types";
import { z } from "zod";
import type { MonitorContext } from "../context.ts";
import { readJson } from "../request-body.ts";
import { RecentRunsSchema, RunsStoredSchema } from "../schemas/resources.ts";
import {
  COMMON_ERRORS,
  errorAnswer,
  json,
  monitorRoutes,
  refuseWith,
  SECURED,
  WRITE_ERRORS,
} from "./openapi-parts.ts";

/** `GET /api/system/runs`: runs returned by default, and at most. */
export const DEFAULT_RECENT_RUNS = 20;
export const MAX_RECENT_RUNS_READ = 200;

/**
 * How long a collector seen registered is not looked up again by `POST /api/system/runs`. A collector
 * deleted through another instance is registered again by its next run at most this much later.
 */
const KNOWN_COLLECTOR_TTL_MS = 60_000;

export const postRuns = createRoute({
  method: "post",
  path: "/api/system/runs",
  ...SECURED,
  summary: "Store collector run records (one or an array); a run_id sent twice is stored once.",
  description:
    "A started_at or completed_at more than MAX_CLOCK_SKEW_S (default 900 s) ahead of the server clock is refused (422 naming the field and the skew; nothing stored). " +
    `At most ${MAX_RUN_BATCH} records per request. ` +
    "The first run of a collector the registry does not know registers it (registered_by first_run), unless AUTO_REGISTER=0.",
  request: { body: { required: true, content: json(RunBatchSchema) } },
  responses: { 201: { description: "Stored.", content: json(RunsStoredSchema) }, ...WRITE_ERRORS },
});

const COLLECTOR_REQUIRED = `required: a collector name (1-${MAX_COLLECTOR_NAME_CHARS} characters)`;
const LIMIT_RULE = `must be an integer from 1 to ${MAX_RECENT_RUNS_READ}`;
const withinChars = (max: number) =>
  z
    .string()
    .max(max, { error: `must be at most ${max} characters` })
    .optional();

export const RecentRunsQuerySchema = z.object({
  collector: z
    .string({ error: COLLECTOR_REQUIRED })
    .min(1, { error: COLLECTOR_REQUIRED })
    .refine((v) => v.length <= MAX_COLLECTOR_NAME_CHARS && COLLECTOR_NAME_RE.test(v), {
      error: COLLECTOR_REQUIRED,
      when: unfailed,
    })
    .meta({ maxLength: MAX_COLLECTOR_NAME_CHARS, pattern: COLLECTOR_NAME_RE.source }),
  limit: z
    .string({ error: LIMIT_RULE })
    .regex(/^[0-9]+$/, { error: LIMIT_RULE })
    .refine((v) => Number(v) >= 1 && Number(v) <= MAX_RECENT_RUNS_READ, { error: LIMIT_RULE, when: unfailed })
    .optional()
    .meta({ description: `How many runs: 1 to ${MAX_RECENT_RUNS_READ} (default ${DEFAULT_RECENT_RUNS}).` }),
  account: withinChars(MAX_ACCOUNT_ID_CHARS),
  region: withinChars(MAX_REGION_CHARS),
});

export const getRuns = createRoute({
  method: "get",
  path: "/api/system/runs",
  ...SECURED,
  summary:
    "The recent runs of one collector, newest first (optionally of one account and region): the triage link of the /system page.",
  request: { query: RecentRunsQuerySchema },
  responses: {
    200: { description: "Its runs, with ISO 8601 times.", content: json(RecentRunsSchema) },
    422: errorAnswer("collector missing or invalid, or limit out of range; details name it."),
    ...COMMON_ERRORS,
  },
});

const isoAt = (ms: number) => new Date(ms).toISOString();

export function runRoutes(ctx: MonitorContext): OpenAPIHono<BlankEnv> {
  const { deps, store, registry, log, knownCollectors } = ctx;
  const autoRegister = deps.autoRegister ?? DEFAULT_AUTO_REGISTER;
  const maxSkewMs = deps.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  const app = monitorRoutes();

  // The body is read whatever its Content-Type and checked by validateRunBatch (RunRecordSchema):
  // records are numbered in the problems, and a batch over the bound is refused before any is read.
  app.openAPIRegistry.registerPath(postRuns);
  app.post(postRuns.path, ctx.limit, async (c) => {
    const body = await readJson(c);
    const checked = validateRunBatch(body);
    if (!checked.ok) {
      throw invalid(
        `${checked.errors.length} problem(s) in the run records; nothing was stored`,
        checked.errors,
      );
    }
    // Time sanity: a record from a clock far ahead would look fresh until the server catches up.
    const skew = checkRunsClockSkew(checked.value, ctx.now(), maxSkewMs, Array.isArray(body));
    if (skew.length > 0) {
      throw invalid(`${skew.length} problem(s) in the run records; nothing was stored`, skew);
    }
    const res = await ctx.write("the run insert", () => store.insertRuns(checked.value));
    // After the runs are stored: a resend (same run_id) registers what a failed attempt did not.
    // Collectors seen registered within the last minute are not looked up again (ingest throughput).
    const at = ctx.now();
    const fresh = (name: string) => (knownCollectors.get(name) ?? 0) > at;
    let registered: string[] = [];
    if (autoRegister.enabled && !checked.value.every((r) => fresh(r.collector))) {
      registered = await ctx.write("the registry update", () =>
        registerFirstRuns(registry, checked.value, autoRegister),
      );
      for (const r of checked.value) knownCollectors.set(r.collector, at + KNOWN_COLLECTOR_TTL_MS);
      if (knownCollectors.size > 10_000) knownCollectors.clear();
    }
    if (registered.length > 0)
      log.info("collectors registered by their first run", { collectors: registered });
    const answer: z.input<typeof RunsStoredSchema> = {
      received: checked.value.length,
      stored: res.inserted,
      duplicates: res.duplicates,
      registered,
    };
    return c.json(answer, 201);
  });

  app.openapi(
    getRuns,
    async (c) => {
      const q = c.req.valid("query");
      const runs = await ctx.read("the runs query", () =>
        store.recentRuns(q.collector, {
          limit: q.limit === undefined ? DEFAULT_RECENT_RUNS : Number(q.limit),
          ...(q.account === undefined || q.account === "" ? {} : { cloud_account_id: q.account }),
          ...(q.region === undefined || q.region === "" ? {} : { cloud_region: q.region }),
        }),
      );
      return c.json(
        {
          collector: q.collector,
          runs: runs.map((r) => ({
            ...r,
            started_at: isoAt(r.started_at),
            completed_at: isoAt(r.completed_at),
          })),
        },
        200,
      );
    },
    refuseWith("the runs query is invalid"),
  );

  return app;
}
