import { describe, expect, it } from "vitest";
import type { QualityInputs, QualityQuery } from "../ports.ts";
import { syntheticQualityInputs } from "../test-support/quality-inputs.ts";
import { aucFromBins } from "./auc.ts";
import { kendallTauB, spearmanRho } from "./rank-correlation.ts";
import { qualityReport } from "./report.ts";
import { QualityReportSchema } from "./schema.ts";
import { MAX_QUALITY_QUERIES, MIN_CORRELATION_QUERIES } from "./thresholds.ts";

const NOW = new Date("2026-11-28T12:00:00.000Z");
const QUERY: QualityQuery = {
  account: "acct_000000000001",
  index: "products",
  since: Date.parse("2026-11-21T12:00:00.000Z"),
  until: NOW.getTime(),
  minImpressions: 5,
  maxQueries: MAX_QUALITY_QUERIES,
};
const NO_EVENTS = { attributed: 0, unattributed: 0, duplicates: 0 };

function only<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value");
  return value;
}

describe("qualityReport", () => {
  it("says too little data for each metric of a model with a handful of searches", () => {
    const inputs: QualityInputs = {
      daily: [
        { modelId: "m:small", day: "2026-11-27", bin: 7, searches: 3 },
        { modelId: "m:small", day: "2026-11-26", bin: 2, searches: 1 },
        { modelId: "m:small", day: "2026-11-27", bin: 9, searches: 1 },
      ],
      bins: [
        { modelId: "m:small", bin: 250, searches: 1, clicked: 0, converted: 0 },
        { modelId: "m:small", bin: 750, searches: 3, clicked: 2, converted: 1 },
        { modelId: "m:small", bin: 1000, searches: 1, clicked: 1, converted: 0 },
      ],
      queries: [
        {
          modelId: "m:small",
          queryKey: "red shoe",
          impressions: 5,
          clicked: 3,
          converted: 1,
          meanScore: 6.5,
        },
      ],
      events: { attributed: 4, unattributed: 2, duplicates: 1 },
    };
    const report = QualityReportSchema.parse(qualityReport(QUERY, inputs, NOW));
    expect(report).toMatchObject({
      account: QUERY.account,
      index: "products",
      since: "2026-11-21T12:00:00.000Z",
      until: "2026-11-28T12:00:00.000Z",
      modelId: null,
      generatedAt: NOW.toISOString(),
      events: { attributed: 4, unattributed: 2, duplicates: 1 },
    });
    const model = only(report.models[0]);
    expect(model).toMatchObject({
      modelId: "m:small",
      searches: 5,
      histogram: [
        { day: "2026-11-26", counts: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0] },
        { day: "2026-11-27", counts: [0, 0, 0, 0, 0, 0, 0, 3, 0, 1] },
      ],
      calibration: { status: "too_little_data", n: 5, needed: 100 },
      kendallTau: { status: "too_little_data", n: 1, needed: MIN_CORRELATION_QUERIES },
      spearmanRho: { status: "too_little_data", n: 1 },
      auc: { status: "too_little_data", n: 2, needed: 10 },
      queries: { n: 1, truncated: false },
    });
  });

  it("reports every metric with its sample size and interval once there is enough data", () => {
    const inputs = syntheticQualityInputs({ queries: 300 });
    const report = QualityReportSchema.parse(qualityReport(QUERY, inputs, NOW));
    const model = only(report.models[0]);
    expect(model.searches).toBe(3003);
    expect(model.histogram).toHaveLength(7);
    expect(model.histogram.flatMap((d) => d.counts).reduce((a, b) => a + b, 0)).toBe(3003);
    if (model.calibration.status !== "ok") throw new Error("calibration expected");
    expect(model.calibration.groups.map((g) => g.decile)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Click-through rises with the score: the top decile clicks far more than the bottom one, and
    // each interval holds its rate.
    const groups = model.calibration.groups;
    expect(groups[9]?.clickThrough.rate).toBeGreaterThan(only(groups[0]).clickThrough.rate + 0.5);
    for (const g of groups) {
      expect(g.clickThrough.interval[0]).toBeLessThanOrEqual(g.clickThrough.rate);
      expect(g.clickThrough.interval[1]).toBeGreaterThanOrEqual(g.clickThrough.rate);
    }
    const score = inputs.queries.map((q) => q.meanScore);
    const ctr = inputs.queries.map((q) => q.clicked / q.impressions);
    expect(model.kendallTau).toMatchObject({ status: "ok", n: 300, value: kendallTauB(score, ctr) });
    expect(model.spearmanRho).toMatchObject({ status: "ok", n: 300, value: spearmanRho(score, ctr) });
    const auc = aucFromBins(inputs.bins);
    expect(model.auc).toMatchObject({
      status: "ok",
      value: auc.auc,
      clicked: auc.clicked,
      notClicked: auc.notClicked,
    });
    if (model.auc.status !== "ok" || model.kendallTau.status !== "ok") throw new Error("ok expected");
    expect(model.auc.value).toBeGreaterThan(0.75);
    expect(model.kendallTau.interval[0]).toBeGreaterThan(0.3);
  });

  it("says there is nothing to rank when every query has the same click-through rate", () => {
    const queries = Array.from({ length: 12 }, (_, i) => ({
      modelId: "m",
      queryKey: `q${i}`,
      impressions: 10,
      clicked: 0,
      converted: 0,
      meanScore: i,
    }));
    const report = qualityReport(QUERY, { daily: [], bins: [], queries, events: NO_EVENTS }, NOW);
    expect(report.models[0]?.kendallTau).toMatchObject({ status: "too_little_data", n: 12 });
    expect(
      report.models[0]?.kendallTau.status === "too_little_data" && report.models[0]?.kendallTau.reason,
    ).toMatch(/nothing to rank/);
  });

  it("lists models busiest first, flags a query list cut at maxQueries, and keeps the model asked for", () => {
    const a = syntheticQualityInputs({ modelId: "a", searchesPerBin: 1, queries: 3 });
    const b = syntheticQualityInputs({ modelId: "b", searchesPerBin: 2, queries: 3 });
    const inputs: QualityInputs = {
      daily: [...a.daily, ...b.daily],
      bins: [...a.bins, ...b.bins],
      queries: [...a.queries, ...b.queries],
      events: NO_EVENTS,
    };
    const report = qualityReport({ ...QUERY, maxQueries: 6, modelId: "b" }, inputs, NOW);
    expect(report.models.map((m) => [m.modelId, m.searches])).toEqual([
      ["b", 2002],
      ["a", 1001],
    ]);
    expect(report.models[0]?.queries).toEqual({ n: 3, truncated: true });
    expect(report.modelId).toBe("b");
  });

  it("reports no model when nothing was served", () => {
    const report = qualityReport(QUERY, { daily: [], bins: [], queries: [], events: NO_EVENTS }, NOW);
    expect(QualityReportSchema.parse(report).models).toEqual([]);
  });
});
