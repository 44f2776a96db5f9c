/**
 * Live quality of an index's scored searches, per model: `GET
 * /api/v1/admin/accounts/{id}/indexes/{index}/quality`. The store aggregates (QualityInputs), the
 * pure report (@relevance/outcomes) computes; at MAX_QUALITY_QUERIES queries the computation is a
 * few ms (`npm run bench -- quality`).
 */
import { createRoute } from "@hono/zod-openapi";
import { modelKey } from "@relevance/core";
import {
  driftSection,
  MAX_AGREEMENT_SAMPLES,
  MAX_QUALITY_QUERIES,
  modelsBySearches,
  type OutcomeStore,
  parseQualityQuery,
  QualityQueryParams,
  QualityReportSchema,
  qualityReport,
  shadowComparisons,
} from "@relevance/outcomes";
import type { Kv, SettingsTable } from "@relevance/settings";
import { ApiError, invalid, notFound } from "@shared/http";
import { Hono } from "hono";
import { requireAccount } from "./key-store.ts";
import { ADMIN, AUTHENTICATED, errorAnswer, IndexRouteParams, json } from "./openapi-parts.ts";
import { findRecord } from "./records.ts";

export const RECORDING_NOT_CONFIGURED = "recording_not_configured";

const notConfigured = () =>
  new ApiError(
    503,
    RECORDING_NOT_CONFIGURED,
    "no outcome store is configured in this deployment: searches and events are not recorded, so there is no quality to report",
  );

export function adminQualityRoutes(deps: {
  table: SettingsTable;
  /** Where the models' artifacts are (their training profiles: the report's drift). */
  kv: Kv;
  now: () => Date;
  outcomes: OutcomeStore | undefined;
}): Hono {
  const { table, kv, now, outcomes } = deps;
  const app = new Hono();
  app.get("/api/v1/admin/accounts/:account/indexes/:index/quality", async (c) => {
    const at = now();
    // The bounds first: a bad parameter is named whether or not this deployment records.
    const parsed = parseQualityQuery(c.req.query(), at.getTime());
    if (!parsed.ok) throw invalid("the quality query is invalid", parsed.issues);
    if (outcomes === undefined) throw notConfigured();
    const account = c.req.param("account");
    const index = c.req.param("index");
    await requireAccount(table, account);
    if ((await findRecord(table, account, index)) === null) throw notFound("index not found");
    const query = { account, index, ...parsed.value, maxQueries: MAX_QUALITY_QUERIES };
    const [inputs, paired] = await Promise.all([
      outcomes.quality(query),
      outcomes.shadowComparison({ ...query, maxSamples: MAX_AGREEMENT_SAMPLES }),
    ]);
    const drift = await driftSection(
      { store: outcomes, artifactText: (id) => kv.get(modelKey(id)) },
      query,
      modelsBySearches(inputs.daily),
    );
    return c.json(qualityReport(query, inputs, at, { comparisons: shadowComparisons(paired), drift }));
  });
  return app;
}

/** The route above as the OpenAPI document lists it. */
export const adminQualityRouteDocs = () => [
  createRoute({
    method: "get",
    path: "/api/v1/admin/accounts/{id}/indexes/{index}/quality",
    ...ADMIN,
    summary:
      "Live quality of an index's scored searches per model: searches, score histogram per day, calibration by score decile, Kendall τ and Spearman ρ between score and click-through over queries, AUC for searches with no click; serving against shadow on the same searches (comparisons) and drift against the training profile; each with its sample size and 95 % interval, or too_little_data (docs/quality.md).",
    request: {
      params: IndexRouteParams,
      query: QualityQueryParams,
    },
    responses: {
      200: { description: "The report.", content: json(QualityReportSchema) },
      ...AUTHENTICATED,
      404: errorAnswer("No such account or index."),
      422: errorAnswer("A query parameter is invalid or beyond its bound (details name it)."),
      503: errorAnswer(
        "No outcome store is configured (recording_not_configured): nothing is recorded in this deployment.",
      ),
    },
  }),
];
