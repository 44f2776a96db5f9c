/**
 * Serving against shadow on the same searches, pure: per model pair, how far apart the two scores
 * are (MAD, mean difference, ρ between them) and how well each predicts the same outcomes
 * (calibration, τ-b, AUC), each with its sample and interval or too little data. The inputs are
 * what the store aggregated over the paired searches (ShadowComparisonInputs).
 */
import type { ShadowComparisonInputs } from "../ports.ts";
import type { ModelOnPairs, ShadowComparison } from "./comparison-schema.ts";
import { spearmanInterval, spearmanRho } from "./rank-correlation.ts";
import { aucMetric, calibrationMetric, correlations, histogram, type QueryOutcome } from "./report.ts";
import { MIN_AGREEMENT_PAIRS } from "./thresholds.ts";

type Inputs = ShadowComparisonInputs;
const keyOf = (r: { servingModelId: string; shadowModelId: string }) =>
  `${r.servingModelId}\u0000${r.shadowModelId}`;

function grouped<T extends { servingModelId: string; shadowModelId: string }>(
  rows: readonly T[],
): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const r of rows) {
    const list = map.get(keyOf(r));
    if (list === undefined) map.set(keyOf(r), [r]);
    else list.push(r);
  }
  return map;
}

export function shadowComparisons(inputs: Inputs): ShadowComparison[] {
  const bins = grouped(inputs.bins);
  const queries = grouped(inputs.queries);
  const samples = grouped(inputs.samples);
  const daily = grouped(inputs.daily);
  const out = inputs.pairs.map((p): ShadowComparison => {
    const key = keyOf(p);
    const pairBins = bins.get(key) ?? [];
    const pairQueries = queries.get(key) ?? [];
    const side = (which: "serving" | "shadow", modelId: string): ModelOnPairs => {
      const sideBins = pairBins.filter((b) => b.side === which);
      const sideQueries: QueryOutcome[] = pairQueries.map((q) => ({
        meanScore: which === "serving" ? q.servingMeanScore : q.shadowMeanScore,
        impressions: q.impressions,
        clicked: q.clicked,
      }));
      return {
        modelId,
        calibration: calibrationMetric(sideBins),
        kendallTau: correlations(sideQueries).kendallTau,
        auc: aucMetric(sideBins),
      };
    };
    return {
      servingModelId: p.servingModelId,
      shadowModelId: p.shadowModelId,
      pairs: p.pairs,
      withClick: p.withClick,
      agreement: agreement(p, samples.get(key) ?? []),
      serving: side("serving", p.servingModelId),
      shadow: side("shadow", p.shadowModelId),
      shadowHistogram: histogram(daily.get(key) ?? []),
    };
  });
  return out.sort(
    (a, b) =>
      b.pairs - a.pairs ||
      (a.servingModelId < b.servingModelId ? -1 : a.servingModelId > b.servingModelId ? 1 : 0) ||
      (a.shadowModelId < b.shadowModelId ? -1 : a.shadowModelId > b.shadowModelId ? 1 : 0),
  );
}

function agreement(p: Inputs["pairs"][number], samples: Inputs["samples"]): ShadowComparison["agreement"] {
  if (p.pairs < MIN_AGREEMENT_PAIRS)
    return {
      status: "too_little_data",
      n: p.pairs,
      needed: MIN_AGREEMENT_PAIRS,
      reason: `${p.pairs} paired searches; comparing the two scores needs ${MIN_AGREEMENT_PAIRS}`,
    };
  const rho = spearmanRho(
    samples.map((s) => s.score),
    samples.map((s) => s.shadowScore),
  );
  if (rho === null || samples.length < MIN_AGREEMENT_PAIRS)
    return {
      status: "too_little_data",
      n: samples.length,
      needed: MIN_AGREEMENT_PAIRS,
      reason: "one of the two models gave every paired search the same score: nothing to rank",
    };
  return {
    status: "ok",
    n: p.pairs,
    meanAbsoluteDifference: p.absDiffSum / p.pairs,
    meanDifference: p.diffSum / p.pairs,
    spearmanRho: rho,
    interval: spearmanInterval(rho, samples.length),
  };
}
