/**
 * The query of `GET /api/v1/admin/accounts/{id}/indexes/{index}/quality`, checked before the
 * store is asked anything: each parameter bounded, a bad one answers 422 naming it.
 */
import type { Issue } from "@relevance/core";
import { DEFAULT_MIN_IMPRESSIONS, MAX_QUALITY_QUERIES } from "@relevance/outcomes";
import type { LimitRow } from "@shared/http";
import { z } from "zod";

/** The widest range a report covers: the default retention, and what one report reads at most. */
export const MAX_QUALITY_RANGE_DAYS = 90;
/** `since` when absent. */
export const DEFAULT_QUALITY_SINCE = "7d";
/** Largest `minImpressions`. */
export const MAX_MIN_IMPRESSIONS = 1_000_000;
/** Characters of `model` (a model id, as served-search records bound it). */
export const MAX_QUALITY_MODEL_CHARS = 256;
/** Characters of `since` and `until` (an ISO time with offset and milliseconds is 29). */
export const MAX_QUALITY_TIME_CHARS = 40;

const DAY_MS = 86_400_000;
const DURATION = /^([1-9][0-9]{0,4})([dhm])$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const UNIT_MS = { d: DAY_MS, h: 3_600_000, m: 60_000 } as const;

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
    .describe("End of the range (exclusive), an ISO time; default now."),
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

function isoTime(raw: string): number | null {
  if (!ISO_TIME.test(raw)) return null;
  const t = Date.parse(raw);
  return Number.isFinite(t) ? t : null;
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
  let until = now;
  const rawUntil = query.until;
  if (rawUntil !== undefined && !tooLong("until", rawUntil, MAX_QUALITY_TIME_CHARS)) {
    const t = isoTime(rawUntil);
    if (t === null)
      issues.push({ path: "until", message: "must be an ISO time such as 2026-11-28T12:00:00Z" });
    else until = t;
  }
  let since = until - 7 * DAY_MS;
  const rawSince = query.since ?? DEFAULT_QUALITY_SINCE;
  if (!tooLong("since", rawSince, MAX_QUALITY_TIME_CHARS)) {
    const duration = DURATION.exec(rawSince);
    if (duration !== null) {
      since = until - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
    } else {
      const t = isoTime(rawSince);
      if (t === null) {
        issues.push({ path: "since", message: "must be a duration (7d, 24h, 90m) or an ISO time" });
      } else since = t;
    }
  }
  if (issues.length === 0) {
    if (since >= until) issues.push({ path: "since", message: "must be before until" });
    else if (until - since > MAX_QUALITY_RANGE_DAYS * DAY_MS) {
      issues.push({ path: "since", message: `must be at most ${MAX_QUALITY_RANGE_DAYS} days before until` });
    }
  }
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
  if (issues.length > 0) return { ok: false, issues };
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
