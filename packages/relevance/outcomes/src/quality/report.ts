/**
 * The live-quality report from what the store aggregated (QualityInputs): pure, no I/O, `now`
 * given. Per model: searches, the per-day histogram, calibration by decile, τ and ρ over queries
 * with enough impressions, the AUC, and the events counts of the scope.
 */
import type { ModelDrift } from "../drift/drift-schema.ts";
import type { QualityInputs, QualityQuery } from "../ports.ts";
import { type AucBin, aucFromBins, hanleyMcNeilInterval } from "./auc.ts";
import { type CalibrationBin, calibrationGroups } from "./calibration.ts";
import type { ShadowComparison } from "./comparison-schema.ts";
import { kendallInterval, kendallTauB, spearmanInterval, spearmanRho } from "./rank-correlation.ts";
import type { ModelQuality, QualityReport } from "./schema.ts";
import {
  HISTOGRAM_BINS,
  MIN_AUC_SEARCHES_PER_CLASS,
  MIN_CALIBRATION_SEARCHES,
  MIN_CORRELATION_QUERIES,
} from "./thresholds.ts";

type Bin = QualityInputs["bins"][number];
type Query = QualityInputs["queries"][number];
type Daily = QualityInputs["daily"][number];

const tooLittle = (n: number, needed: number, reason: string) => ({
  status: "too_little_data" as const,
  n,
  needed,
  reason,
});

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** The parts of the report read from other store queries: serving against shadow, and drift. */
export interface ReportSections {
  comparisons?: ShadowComparison[];
  drift?: ModelDrift[];
}

export function qualityReport(
  query: QualityQuery,
  inputs: QualityInputs,
  now: Date,
  sections: ReportSections = {},
): QualityReport {
  const bins = new Map<string, Bin[]>();
  const daily = new Map<string, Daily[]>();
  const queries = new Map<string, Query[]>();
  for (const b of inputs.bins) push(bins, b.modelId, b);
  for (const d of inputs.daily) push(daily, d.modelId, d);
  for (const q of inputs.queries) push(queries, q.modelId, q);
  const ids = new Set([...bins.keys(), ...daily.keys(), ...queries.keys()]);
  const models = [...ids].map((id) =>
    modelQuality(
      id,
      bins.get(id) ?? [],
      daily.get(id) ?? [],
      queries.get(id) ?? [],
      inputs.queries.length >= query.maxQueries,
    ),
  );
  models.sort((a, b) => b.searches - a.searches || (a.modelId < b.modelId ? -1 : 1));
  return {
    account: query.account,
    index: query.index,
    since: new Date(query.since).toISOString(),
    until: new Date(query.until).toISOString(),
    modelId: query.modelId ?? null,
    minImpressions: query.minImpressions,
    generatedAt: now.toISOString(),
    events: { ...inputs.events },
    models,
    comparisons: sections.comparisons ?? [],
    drift: sections.drift ?? [],
  };
}

function modelQuality(
  modelId: string,
  bins: readonly Bin[],
  daily: readonly Daily[],
  queries: readonly Query[],
  truncated: boolean,
): ModelQuality {
  const searchesFromBins = bins.reduce((sum, b) => sum + b.searches, 0);
  const searches = searchesFromBins > 0 ? searchesFromBins : daily.reduce((s, d) => s + d.searches, 0);
  return {
    modelId,
    searches,
    histogram: histogram(daily),
    calibration: calibrationMetric(bins),
    ...correlations(queries),
    queries: { n: queries.length, truncated },
    auc: aucMetric(bins),
  };
}

/** Searches per UTC day in the ten score bins, days ascending. */
export function histogram(
  daily: readonly Pick<Daily, "day" | "bin" | "searches">[],
): ModelQuality["histogram"] {
  const days = new Map<string, number[]>();
  for (const { day, bin, searches } of daily) {
    let counts = days.get(day);
    if (counts === undefined) {
      counts = new Array<number>(HISTOGRAM_BINS).fill(0);
      days.set(day, counts);
    }
    const b = Math.min(HISTOGRAM_BINS - 1, Math.max(0, Math.floor(bin)));
    counts[b] = (counts[b] ?? 0) + searches;
  }
  return [...days.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([day, counts]) => ({ day, counts }));
}

/** Calibration by decile of the fine bins, or too little data below MIN_CALIBRATION_SEARCHES. */
export function calibrationMetric(bins: readonly CalibrationBin[]): ModelQuality["calibration"] {
  const searches = bins.reduce((sum, b) => sum + b.searches, 0);
  return searches >= MIN_CALIBRATION_SEARCHES
    ? { status: "ok", groups: calibrationGroups(bins) }
    : tooLittle(
        searches,
        MIN_CALIBRATION_SEARCHES,
        `${searches} searches; calibration needs ${MIN_CALIBRATION_SEARCHES}`,
      );
}

/** One query's searches as the rank correlations read them: the mean score served and the clicks. */
export interface QueryOutcome {
  meanScore: number;
  impressions: number;
  clicked: number;
}

/** Kendall τ-b and Spearman ρ between queries' mean scores and click-through rates, or too little data. */
export function correlations(
  queries: readonly QueryOutcome[],
): Pick<ModelQuality, "kendallTau" | "spearmanRho"> {
  const n = queries.length;
  if (n < MIN_CORRELATION_QUERIES) {
    const few = tooLittle(
      n,
      MIN_CORRELATION_QUERIES,
      `${n} queries with enough impressions; a rank correlation needs ${MIN_CORRELATION_QUERIES}`,
    );
    return { kendallTau: few, spearmanRho: few };
  }
  const score = queries.map((q) => q.meanScore);
  const ctr = queries.map((q) => q.clicked / q.impressions);
  const tau = kendallTauB(score, ctr);
  const rho = spearmanRho(score, ctr);
  const flat = tooLittle(
    n,
    MIN_CORRELATION_QUERIES,
    "every query was served the same score or has the same click-through rate: nothing to rank",
  );
  return {
    // Undefined when one side is constant (every query served one score, or none clicked): no
    // ordering to compare, which is too little data of another kind.
    kendallTau: tau === null ? flat : { status: "ok", value: tau, n, interval: kendallInterval(tau, n) },
    spearmanRho: rho === null ? flat : { status: "ok", value: rho, n, interval: spearmanInterval(rho, n) },
  };
}

/** The AUC with its Hanley–McNeil interval, or too little data below MIN_AUC_SEARCHES_PER_CLASS of a class. */
export function aucMetric(bins: readonly AucBin[]): ModelQuality["auc"] {
  const { auc: value, clicked, notClicked } = aucFromBins(bins);
  const smaller = Math.min(clicked, notClicked);
  if (value === null || smaller < MIN_AUC_SEARCHES_PER_CLASS) {
    return tooLittle(
      smaller,
      MIN_AUC_SEARCHES_PER_CLASS,
      `${clicked} searches with a click and ${notClicked} without; the AUC needs ${MIN_AUC_SEARCHES_PER_CLASS} of each`,
    );
  }
  return {
    status: "ok",
    value,
    clicked,
    notClicked,
    interval: hanleyMcNeilInterval(value, clicked, notClicked),
  };
}
