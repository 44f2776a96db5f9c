// The bounds of the training export's admin route (docs/limits.md); the rows are built from the
// same constants the route's schema enforces.
import type { LimitRow } from "@shared/kernel";
import {
  DEFAULT_MIN_IMPRESSIONS,
  MAX_MIN_IMPRESSIONS,
  MAX_RECORDED_QUERY_CHARS,
  MAX_RETENTION_DAYS,
} from "./limits.ts";

/** Rows per page (`limit`). */
export const MAX_TRAINING_ROWS_PAGE = 1000;
export const DEFAULT_TRAINING_ROWS_PAGE = 500;
/** The range a page may cover (`since` to `until`), in days: no store keeps outcomes longer. */
export const MAX_TRAINING_RANGE_DAYS = MAX_RETENTION_DAYS;
/** The default range: the last 30 days. */
export const DEFAULT_TRAINING_SINCE = "30d";
/** `model`: a model id as the trigger config names it. */
export const MAX_MODEL_ID_CHARS = 256;

export const TRAINING_LIMIT_ROWS: LimitRow[] = [
  {
    area: "admin",
    field: "training-rows limit",
    limit: MAX_TRAINING_ROWS_PAGE,
    unit: "items",
    status: 422,
    note: `rows per page of GET …/training-rows (default ${DEFAULT_TRAINING_ROWS_PAGE}); follow \`next\` for more`,
  },
  {
    area: "admin",
    field: "training-rows since",
    limit: MAX_TRAINING_RANGE_DAYS,
    unit: "days",
    status: 422,
    note: `the range since..until of GET …/training-rows (default the last ${DEFAULT_TRAINING_SINCE})`,
  },
  {
    area: "admin",
    field: "training-rows minImpressions",
    limit: MAX_MIN_IMPRESSIONS,
    unit: "items",
    status: 422,
    note: `searches a query needs to be a row (default ${DEFAULT_MIN_IMPRESSIONS})`,
  },
  {
    area: "admin",
    field: "training-rows after",
    limit: MAX_RECORDED_QUERY_CHARS,
    unit: "characters",
    status: 422,
  },
  { area: "admin", field: "training-rows model", limit: MAX_MODEL_ID_CHARS, unit: "characters", status: 422 },
];
