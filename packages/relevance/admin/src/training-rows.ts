/**
 * The training export's read side: `GET /api/v1/admin/accounts/{id}/indexes/{index}/training-rows`
 * answers, per query a shopper searched, its outcome counts over a time range and the feature vector
 * of its most recent served search, from the outcome store (AdminDeps.outcomes). Paged by queryKey:
 * `relevance features export --from-events` follows `next` until it is null.
 */
import { createRoute } from "@hono/zod-openapi";
import { FEATURE_SET_V1 } from "@relevance/core";
import {
  DEFAULT_MIN_IMPRESSIONS,
  DEFAULT_TRAINING_ROWS_PAGE,
  DEFAULT_TRAINING_SINCE,
  MAX_MIN_IMPRESSIONS,
  MAX_MODEL_ID_CHARS,
  MAX_RECORDED_QUERY_CHARS,
  MAX_TIME_CHARS,
  MAX_TRAINING_RANGE_DAYS,
  MAX_TRAINING_ROWS_PAGE,
  type OutcomeStore,
  parseTimeRange,
} from "@relevance/outcomes";
import { INDEX_NAME, type SettingsTable } from "@relevance/settings";
import { ApiError, invalid } from "@shared/http";
import type { Issue } from "@shared/kernel";
import { Hono } from "hono";
import { z } from "zod";
import { parseWith } from "./body.ts";
import { requireAccount } from "./key-store.ts";
import { ADMIN, AUTHENTICATED, errorAnswer, json, pathParam } from "./openapi-parts.ts";
export const TrainingRowsParams = z.object({
  id: pathParam("System account ID."),
  index: pathParam("Index or alias name, as the searches named it."),
});

export const TrainingRowsQuerySchema = z.strictObject({
  since: z.string().max(MAX_TIME_CHARS).default(DEFAULT_TRAINING_SINCE).meta({
    description:
      "Start of the range: a duration back from until (30d, 12h, 90m) or an ISO time. Default 30d.",
  }),
  until: z.string().max(MAX_TIME_CHARS).optional().meta({
    description: "End of the range (exclusive): a duration back from now or an ISO time. Default now.",
  }),
  model: z
    .string()
    .min(1)
    .max(MAX_MODEL_ID_CHARS)
    .optional()
    .meta({ description: "Only searches this model scored; every model's when absent." }),
  minImpressions: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_MIN_IMPRESSIONS)
    .default(DEFAULT_MIN_IMPRESSIONS)
    .meta({
      description: `Searches a query needs in the range to be a row. Default ${DEFAULT_MIN_IMPRESSIONS}.`,
    }),
  after: z
    .string()
    .max(MAX_RECORDED_QUERY_CHARS)
    .optional()
    .meta({ description: "Rows after this queryKey: the previous page's `next`." }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_TRAINING_ROWS_PAGE, `must be at most ${MAX_TRAINING_ROWS_PAGE}`)
    .default(DEFAULT_TRAINING_ROWS_PAGE)
    .meta({
      description: `Rows per page, at most ${MAX_TRAINING_ROWS_PAGE}. Default ${DEFAULT_TRAINING_ROWS_PAGE}.`,
    }),
});

const TrainingRowSchema = z.object({
  queryKey: z
    .string()
    .meta({ description: "The query's words as the feature set sees them: what searches group by." }),
  query: z.string().meta({ description: "The query text of the most recent search of the query." }),
  modelId: z.string(),
  features: z
    .array(z.number())
    .meta({ description: "Feature set v1 exactly as served on that search, in `featureSet` order." }),
  impressions: z.number().int().meta({ description: "Searches of the query in the range." }),
  clicked: z.number().int().meta({ description: "Of those, searches with at least one click." }),
  converted: z.number().int().meta({ description: "Of those, searches with at least one conversion." }),
  lastServedAt: z.number().int().meta({ description: "When that most recent search was served, epoch ms." }),
});

export const TrainingRowsPageSchema = z.object({
  featureSet: z
    .array(z.string())
    .meta({ description: "The names of `features`, in order (feature set v1)." }),
  since: z.number().int().meta({ description: "The range's start, epoch ms (inclusive)." }),
  until: z.number().int().meta({ description: "The range's end, epoch ms (exclusive)." }),
  minImpressions: z.number().int(),
  rows: z.array(TrainingRowSchema),
  next: z
    .string()
    .nullable()
    .meta({ description: "Pass as `after` for the next page; null on the last page." }),
});

const PATH = "/api/v1/admin/accounts/:account/indexes/:index/training-rows";

export const recordingNotConfigured = () =>
  new ApiError(
    503,
    "recording_not_configured",
    "this deployment keeps no served searches or outcome events (no outcome store is configured)",
  );

export function trainingRowRoutes(deps: {
  table: SettingsTable;
  outcomes: OutcomeStore | undefined;
  now: () => Date;
}): Hono {
  const app = new Hono();
  app.get(PATH, async (c) => {
    const index = c.req.param("index");
    const query = parseWith(TrainingRowsQuerySchema, c.req.query(), "the training-rows query is invalid");
    const issues: Issue[] = [];
    if (!INDEX_NAME.test(index)) issues.push({ path: "index", message: "must match [A-Za-z0-9_-]{1,64}" });
    const range = parseTimeRange(query, deps.now().getTime(), {
      defaultSince: DEFAULT_TRAINING_SINCE,
      maxDays: MAX_TRAINING_RANGE_DAYS,
    });
    if (!range.ok) issues.push(...range.issues);
    if (issues.length > 0 || !range.ok) throw invalid("the training-rows query is invalid", issues);
    const { since, until } = range.value;
    if (deps.outcomes === undefined) throw recordingNotConfigured();
    const account = c.req.param("account");
    await requireAccount(deps.table, account);
    const rows = await deps.outcomes.trainingRows({
      account,
      index,
      since,
      until,
      ...(query.model === undefined ? {} : { modelId: query.model }),
      minImpressions: query.minImpressions,
      limit: query.limit,
      ...(query.after === undefined ? {} : { after: query.after }),
    });
    // A full page may have more behind it; a short one is the last.
    const last = rows.length === query.limit ? rows[rows.length - 1] : undefined;
    return c.json({
      featureSet: [...FEATURE_SET_V1],
      since,
      until,
      minImpressions: query.minImpressions,
      rows: rows.slice(0, query.limit),
      next: last === undefined ? null : last.queryKey,
    });
  });
  return app;
}

/** The route as the OpenAPI document lists it. */
export const trainingRowRouteDocs = () => [
  createRoute({
    method: "get",
    path: "/api/v1/admin/accounts/{id}/indexes/{index}/training-rows",
    ...ADMIN,
    summary:
      "Training rows from shoppers' outcomes: per query with enough searches in the range, its searches, " +
      "searches with a click and with a conversion, and the feature vector of its most recent served search.",
    request: { params: TrainingRowsParams, query: TrainingRowsQuerySchema },
    responses: {
      200: { description: "One page of rows, in queryKey order.", content: json(TrainingRowsPageSchema) },
      ...AUTHENTICATED,
      404: errorAnswer("No such account."),
      422: errorAnswer("A query parameter out of its bounds or of the wrong form (the detail names it)."),
      503: errorAnswer("No outcome store is configured (recording_not_configured)."),
    },
  }),
];
