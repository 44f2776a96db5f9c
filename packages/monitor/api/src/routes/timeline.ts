/**
 * `GET /api/system/timeline`: one collector's or one alert's story in time order (runs with durations,
 * flips, notifications with each channel's result, silences, maintenance). docs/monitor-api.md.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  ALERT_RULES,
  type AlertRule,
  COLLECTOR_NAME_RE,
  issuesOf,
  MAX_COLLECTOR_NAME_CHARS,
  parseTimestamp,
} from "@monitor/core";
import {
  DEFAULT_TIMELINE_DAYS,
  DEFAULT_TIMELINE_EVENTS,
  MAX_TIMELINE_DAYS,
  MAX_TIMELINE_EVENTS,
  readTimeline,
  type TimelineQuery,
  type TimelineReadDeps,
} from "@monitor/runtime";
import { invalid } from "@shared/http";
import type { BlankEnv } from "hono/types";
import { z } from "zod";
import type { MonitorContext } from "../context.ts";
import { TimelineSchema } from "../schemas/timeline.ts";
import { COMMON_ERRORS, errorAnswer, json, monitorRoutes, refuseWith, SECURED } from "./openapi-parts.ts";

const DAY_MS = 24 * 3600 * 1000;
/** Characters of an alert subject in the query (a `collector/account/region` fits). */
export const MAX_TIMELINE_SUBJECT_CHARS = 300;
const LIMIT_RULE = `must be an integer from 1 to ${MAX_TIMELINE_EVENTS}`;
const TIME_RULE = "must be an ISO 8601 time or epoch milliseconds";

const time = () =>
  z
    .string({ error: TIME_RULE })
    .max(40, { error: TIME_RULE })
    .refine((v) => parseTimestamp(/^[0-9]+$/.test(v) ? Number(v) : v).ok, { error: TIME_RULE })
    .optional();
const ms = (v: string) => {
  const p = parseTimestamp(/^[0-9]+$/.test(v) ? Number(v) : v);
  return p.ok ? p.ms : Number.NaN;
};

export const TimelineQuerySchema = z
  .object({
    collector: z
      .string()
      .max(MAX_COLLECTOR_NAME_CHARS, { error: `must be at most ${MAX_COLLECTOR_NAME_CHARS} characters` })
      .regex(COLLECTOR_NAME_RE, { error: "must be a collector name" })
      .optional()
      .meta({ description: "A collector: its runs and every alert about it." }),
    rule: z
      .enum(ALERT_RULES, { error: `must be one of ${ALERT_RULES.join(", ")}` })
      .optional()
      .meta({ description: "With `subject`: one alert." }),
    subject: z
      .string()
      .min(1, { error: "must not be empty" })
      .max(MAX_TIMELINE_SUBJECT_CHARS, { error: `must be at most ${MAX_TIMELINE_SUBJECT_CHARS} characters` })
      .optional(),
    since: time().meta({ description: `Default: ${DEFAULT_TIMELINE_DAYS} days before \`until\`.` }),
    until: time().meta({ description: "Default: now." }),
    limit: z
      .string({ error: LIMIT_RULE })
      .regex(/^[0-9]+$/, { error: LIMIT_RULE })
      .refine((v) => Number(v) >= 1 && Number(v) <= MAX_TIMELINE_EVENTS, { error: LIMIT_RULE })
      .optional()
      .meta({
        description: `Events kept, the newest: 1 to ${MAX_TIMELINE_EVENTS} (default ${DEFAULT_TIMELINE_EVENTS}).`,
      }),
  })
  // Runs when a field failed too, so a bad rule and a missing subject are named together.
  .superRefine(
    (q, ctx) => {
      const alert = q.rule !== undefined || q.subject !== undefined;
      if (q.collector === undefined && !alert)
        ctx.addIssue({ code: "custom", path: ["collector"], message: "is required (or rule and subject)" });
      if (q.collector !== undefined && alert)
        ctx.addIssue({
          code: "custom",
          path: ["collector"],
          message: "must not be given with rule and subject",
        });
      if (q.collector === undefined && alert) {
        if (q.rule === undefined)
          ctx.addIssue({ code: "custom", path: ["rule"], message: "is required with subject" });
        if (q.subject === undefined)
          ctx.addIssue({ code: "custom", path: ["subject"], message: "is required with rule" });
      }
    },
    { when: () => true },
  );

export const getTimeline = createRoute({
  method: "get",
  path: "/api/system/timeline",
  ...SECURED,
  summary:
    "One collector's or one alert's story in time order: runs with durations, status changes, notifications with each channel's delivery result, silences and maintenance.",
  request: { query: TimelineQuerySchema },
  responses: {
    200: { description: "The timeline, oldest first.", content: json(TimelineSchema) },
    422: errorAnswer("A query field is missing or out of bounds; details name it."),
    ...COMMON_ERRORS,
  },
});

const iso = (at: number) => new Date(at).toISOString();

/** The timeline body for a query already checked by `TimelineQuerySchema` (throws 422 on a bad span). */
export async function timelineBody(
  ctx: MonitorContext,
  sources: Omit<TimelineReadDeps, "store">,
  q: z.output<typeof TimelineQuerySchema>,
) {
  const now = ctx.now();
  const until = q.until === undefined ? now : ms(q.until);
  const since = q.since === undefined ? until - DEFAULT_TIMELINE_DAYS * DAY_MS : ms(q.since);
  if (since > until)
    throw invalid("the timeline query is invalid", [{ path: "since", message: "must not be after until" }]);
  if (until - since > MAX_TIMELINE_DAYS * DAY_MS)
    throw invalid("the timeline query is invalid", [
      { path: "since", message: `must be at most ${MAX_TIMELINE_DAYS} days before until` },
    ]);
  const about =
    q.collector !== undefined
      ? { collector: q.collector }
      : { rule: q.rule as AlertRule, subject: q.subject as string };
  const query: TimelineQuery = {
    about,
    since,
    until,
    limit: q.limit === undefined ? DEFAULT_TIMELINE_EVENTS : Number(q.limit),
  };
  const t = await ctx.read("the timeline reads", () => readTimeline({ store: ctx.store, ...sources }, query));
  return {
    generated_at: iso(now),
    about,
    since: iso(since),
    until: iso(until),
    events: t.events.map((e) => {
      switch (e.kind) {
        case "run":
          return { ...e, at: iso(e.at), run: { ...e.run, started_at: iso(e.run.started_at) } };
        case "notification":
          return { ...e, at: iso(e.at), deliveries: e.deliveries.map((d) => ({ ...d, at: iso(d.at) })) };
        default:
          return { ...e, at: iso(e.at) };
      }
    }),
    truncated: t.truncated,
    sources: t.sources,
  };
}

/** A raw query string's fields checked as the API checks them: the page's timeline reads it too. */
export function parseTimelineQuery(raw: Record<string, string>) {
  const r = TimelineQuerySchema.safeParse(raw);
  if (!r.success) throw invalid("the timeline query is invalid", issuesOf(r.error));
  return r.data;
}

export function timelineRoutes(
  ctx: MonitorContext,
  sources: Omit<TimelineReadDeps, "store">,
): OpenAPIHono<BlankEnv> {
  const app = monitorRoutes();
  app.openapi(
    getTimeline,
    async (c) => c.json(await timelineBody(ctx, sources, c.req.valid("query")), 200),
    refuseWith("the timeline query is invalid"),
  );
  return app;
}
