/**
 * Synthetic QualityInputs for the report's tests and its benchmark: a model whose click-through
 * rate rises with the score (so τ, ρ and the AUC are clearly positive), seeded and deterministic.
 */
import { mulberry32 } from "@shared/kernel";
import type { OutcomeStore, QualityInputs, QualityQuery } from "../ports.ts";

export interface SyntheticOptions {
  modelId?: string;
  /** Searches per fine score bin, over bins 0..1000. */
  searchesPerBin?: number;
  days?: number;
  /** The first UTC day of the histogram (YYYY-MM-DD). */
  firstDay?: string;
  queries?: number;
  seed?: number;
}

export function syntheticQualityInputs(options: SyntheticOptions = {}): QualityInputs {
  const {
    modelId = "demo:products:v1",
    searchesPerBin = 3,
    days = 7,
    firstDay = "2026-11-01",
    queries = 200,
    seed = 7,
  } = options;
  const random = mulberry32(seed);
  const bins: QualityInputs["bins"] = [];
  const perHistogramBin = new Array<number>(10).fill(0);
  for (let bin = 0; bin <= 1000; bin++) {
    const p = bin / 1000;
    let clicked = 0;
    let converted = 0;
    for (let s = 0; s < searchesPerBin; s++) {
      if (random() < p) {
        clicked++;
        if (random() < 0.3) converted++;
      }
    }
    bins.push({ modelId, bin, searches: searchesPerBin, clicked, converted });
    const h = Math.min(9, Math.floor(bin / 100));
    perHistogramBin[h] = (perHistogramBin[h] ?? 0) + searchesPerBin;
  }
  // Each score bin's searches spread over the days unevenly (busier mid-range), all of them kept.
  const daily: QualityInputs["daily"] = [];
  const weights = Array.from(
    { length: days },
    (_, d) => 1 + 0.5 * Math.sin((d * Math.PI) / Math.max(1, days - 1)),
  );
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const start = Date.parse(`${firstDay}T00:00:00Z`);
  for (let b = 0; b < 10; b++) {
    const total = perHistogramBin[b] ?? 0;
    let left = total;
    for (let d = 0; d < days; d++) {
      const day = new Date(start + d * 86_400_000).toISOString().slice(0, 10);
      const searches = d === days - 1 ? left : Math.floor((total * (weights[d] ?? 1)) / weightSum);
      left -= searches;
      if (searches > 0) daily.push({ modelId, day, bin: b, searches });
    }
  }
  const rows: QualityInputs["queries"] = [];
  for (let q = 0; q < queries; q++) {
    const meanScore = random() * 10;
    const impressions = 5 + Math.floor(random() * 50);
    let clicked = 0;
    for (let i = 0; i < impressions; i++) if (random() < meanScore / 10) clicked++;
    rows.push({ modelId, queryKey: `query ${q}`, impressions, clicked, converted: 0, meanScore });
  }
  return { daily, bins, queries: rows, events: { attributed: 0, unattributed: 0, duplicates: 0 } };
}

/**
 * The OutcomeStore port over fixed aggregates, for the quality route and its callers until a real
 * adapter is wired: answers `inputs` (one model's, when the query names one; at most maxQueries
 * queries) and keeps every query it was asked, so a test sees the scope that was read.
 */
export function fixedQualityStore(inputs: QualityInputs): { store: OutcomeStore; asked: QualityQuery[] } {
  const asked: QualityQuery[] = [];
  const store: OutcomeStore = {
    recordSearches: async () => {},
    recordEvents: async () => {},
    trainingRows: async () => [],
    purge: async () => {},
    shadowPairs: async () => [],
    shadowComparison: async () => ({ pairs: [], bins: [], queries: [], daily: [], samples: [] }),
    driftCounts: async () => [],
    scoredModels: async () => [],
    quality: async (query) => {
      asked.push(query);
      const keep = <T extends { modelId: string }>(rows: T[]) =>
        query.modelId === undefined ? rows : rows.filter((r) => r.modelId === query.modelId);
      return {
        daily: keep(inputs.daily),
        bins: keep(inputs.bins),
        queries: keep(inputs.queries).slice(0, query.maxQueries),
        events: inputs.events,
      };
    },
  };
  return { store, asked };
}
