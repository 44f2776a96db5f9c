/** The rows of docs/limits.md for drift: the quality report's drift section and the drift check. */
import type { LimitRow } from "@shared/kernel";
import { DRIFT_HISTORY_DAYS } from "./drift-alert-store.ts";
import {
  MAX_DRIFT_CHECK_INTERVAL_MS,
  MAX_DRIFT_CHECK_MODELS,
  MIN_DRIFT_CHECK_INTERVAL_MS,
} from "./drift-check-config.ts";
import { MAX_DRIFT_MODELS } from "./drift-report.ts";

export const DRIFT_LIMITS: readonly LimitRow[] = [
  {
    area: "quality",
    field: "drift models",
    limit: MAX_DRIFT_MODELS,
    unit: "items",
    status: 0,
    note: "models of one report with a drift section (the most searched first; each costs an artifact read)",
  },
  {
    area: "drift check",
    field: "models per run",
    limit: MAX_DRIFT_CHECK_MODELS,
    unit: "items",
    status: 0,
    note: "(account, index, model) triples one check reads, in that order; beyond them a warning, the rest wait for a later run",
  },
  {
    area: "drift check",
    field: "interval",
    limit: MAX_DRIFT_CHECK_INTERVAL_MS / 60_000,
    unit: "minutes",
    status: 0,
    note: `npm start's check interval, in ms from ${MIN_DRIFT_CHECK_INTERVAL_MS} to ${MAX_DRIFT_CHECK_INTERVAL_MS} (default hourly), else the stack does not start`,
    env: "DRIFT_CHECK_INTERVAL_MS",
  },
  {
    area: "drift check",
    field: "alert history",
    limit: DRIFT_HISTORY_DAYS,
    unit: "days",
    status: 0,
    note: "sent drift alert rows older than this are deleted by the check (each alert's latest row is kept)",
  },
];
