import type { QualityReport, ShadowComparison } from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import { qualityText } from "./quality-text.ts";

const few = { status: "too_little_data" as const, n: 4, needed: 10, reason: "4 queries; needs 10" };

function report(comparisons: ShadowComparison[]): QualityReport {
  return {
    account: "acct",
    index: "products",
    since: "2026-11-20T00:00:00.000Z",
    until: "2026-11-21T00:00:00.000Z",
    modelId: null,
    minImpressions: 5,
    generatedAt: "2026-11-21T00:00:00.000Z",
    events: { attributed: 0, unattributed: 0, duplicates: 0 },
    models: [],
    comparisons,
    drift: [],
  };
}

describe("relevance quality's serving-vs-shadow block", () => {
  it("prints the paired searches, the agreement and both models' AUC and τ with intervals", () => {
    const text = qualityText(
      report([
        {
          servingModelId: "acct:products:v1",
          shadowModelId: "acct:products:v2",
          pairs: 812,
          withClick: 401,
          agreement: {
            status: "ok",
            n: 812,
            meanAbsoluteDifference: 0.4321,
            meanDifference: -0.125,
            spearmanRho: 0.87,
            interval: [0.85, 0.89],
          },
          serving: {
            modelId: "acct:products:v1",
            calibration: few,
            kendallTau: { status: "ok", value: 0.41, n: 60, interval: [0.3, 0.5] },
            auc: { status: "ok", value: 0.8, clicked: 401, notClicked: 411, interval: [0.77, 0.83] },
          },
          shadow: {
            modelId: "acct:products:v2",
            calibration: few,
            kendallTau: few,
            auc: { status: "ok", value: 0.84, clicked: 401, notClicked: 411, interval: [0.81, 0.87] },
          },
          shadowHistogram: [],
        },
      ]),
    );
    expect(text).toContain("serving vs shadow on the same searches: 812 paired searches, 401 with a click");
    expect(text).toContain(
      "mean |shadow − serving| 0.432, mean shadow − serving -0.125, Spearman ρ 0.870 [0.850, 0.890]",
    );
    expect(text).toMatch(
      /serving +acct:products:v1\n {4}AUC 0\.800 \[0\.770, 0\.830\] \(401 clicked, 411 not\)\n {4}τ-b 0\.410/,
    );
    expect(text).toMatch(/shadow +acct:products:v2\n {4}AUC 0\.840 \[0\.810, 0\.870\]/);
    expect(text).toContain("τ-b: too little data (4 queries; needs 10)");
  });

  it("prints nothing about a shadow when no search was paired", () => {
    expect(qualityText(report([]))).not.toContain("shadow");
  });
});
