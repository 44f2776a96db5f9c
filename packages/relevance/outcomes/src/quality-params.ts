/**
 * The query of `GET /api/v1/admin/accounts/{id}/indexes/{index}/quality`, checked before the
 * store is asked anything: each parameter bounded, a bad one answers 422 naming it.
 */
import type { Issue, LimitRow } from "@shared/kernel";
import * as z from "zod";
import { DEFAULT_MIN_IMPRESSIONS, MAX_MIN_IMPRESSIONS } from "./limits.ts";
import { MAX_QUALITY_QUERIES } from "./quality/thresholds.ts";
import { MAX_TIME_CHARS, parseTimeRange } from "./time-range.ts";

/** The widest range a report covers: the default retention, and what one report reads at most. */
export const MAX_QUALITY_RANGE_DAYS = 90;
/** `since` when absent. */
export const DEFAULT_QUALITY_SINCE = "7d";
/** Characters of `model` (a model id, as served-search records bound it). */
export const MAX_QUALITY_MODEL_CHARS = 256;
/** Characters of `since` and `until`. */
export const MAX_QUALITY_TIME_CHARS = MAX_TIME_CHARS;

export const QualityQueryParams = z.object({
  since: z
    .string()
    .max(MAX_QUALITY_TIME_CHARS)
    .optional()
    .describe(
      `How far back: a duration before \`until\` (7d, 24h, 90m) or an ISO time; default ${DEFAULT_QUALITY_SINCE}, at most ${MAX_QUALITY_RANGE_DAYS} days before \`until\`.`,
    ),
  until: z
    .string()
    .max(MAX_QUALITY_TIME_CHARS)
    .optional()
    .describe("End of the range (exclusive): a duration before now or an ISO time; default now."),
  model: z
    .string()
    .min(1)
    .max(MAX_QUALITY_MODEL_CHARS)
    .optional()
    .describe("Only this model id's searches; every model's when absent."),
  minImpressions: z
    .string()
    .optional()
    .describe(
      `Searches a query needs before it counts for τ and ρ (1..${MAX_MIN_IMPRESSIONS}); default ${DEFAULT_MIN_IMPRESSIONS}.`,
    ),
});

export interface QualityRange {
  since: number;
  until: number;
  modelId?: string;
  minImpressions: number;
}

/** The range and filters of a quality request, or the issues naming each bad parameter. */
export function parseQualityQuery(
  query: Record<string, string | undefined>,
  now: number,
): { ok: true; value: QualityRange } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  const tooLong = (field: string, raw: string | undefined, max: number) => {
    if (raw !== undefined && raw.length > max) {
      issues.push({ path: field, message: `must be at most ${max} characters` });
      return true;
    }
    return false;
  };
  const range = parseTimeRange(query, now, {
    defaultSince: DEFAULT_QUALITY_SINCE,
    maxDays: MAX_QUALITY_RANGE_DAYS,
  });
  if (!range.ok) issues.push(...range.issues);
  const model = query.model;
  if (model !== undefined && !tooLong("model", model, MAX_QUALITY_MODEL_CHARS) && model.length === 0) {
    issues.push({ path: "model", message: "must not be empty" });
  }
  let minImpressions = DEFAULT_MIN_IMPRESSIONS;
  const rawMin = query.minImpressions;
  if (rawMin !== undefined) {
    const n = /^[0-9]{1,7}$/.test(rawMin) ? Number(rawMin) : Number.NaN;
    if (!(n >= 1 && n <= MAX_MIN_IMPRESSIONS)) {
      issues.push({
        path: "minImpressions",
        message: `must be a whole number from 1 to ${MAX_MIN_IMPRESSIONS}`,
      });
    } else minImpressions = n;
  }
  if (issues.length > 0 || !range.ok) return { ok: false, issues };
  const { since, until } = range.value;
  return {
    ok: true,
    value: { since, until, minImpressions, ...(model === undefined ? {} : { modelId: model }) },
  };
}

const QUALITY = "GET /api/v1/admin/accounts/{id}/indexes/{index}/quality";
/** The rows of docs/limits.md for the quality route. */
export const QUALITY_LIMIT_ROWS: LimitRow[] = [
  {
    area: "admin",
    field: "since",
    limit: MAX_QUALITY_RANGE_DAYS,
    unit: "days",
    status: 422,
    note: `${QUALITY}: the range from since to until (a duration such as 7d or an ISO time); ${MAX_QUALITY_TIME_CHARS} characters at most, as is until`,
  },
  {
    area: "admin",
    field: "model",
    limit: MAX_QUALITY_MODEL_CHARS,
    unit: "characters",
    status: 422,
    note: QUALITY,
  },
  {
    area: "admin",
    field: "minImpressions",
    limit: MAX_MIN_IMPRESSIONS,
    unit: "items",
    status: 422,
    note: `${QUALITY}: searches a query needs before it counts for τ and ρ (default ${DEFAULT_MIN_IMPRESSIONS}); a report reads at most the ${MAX_QUALITY_QUERIES} queries with the most searches`,
  },
];
