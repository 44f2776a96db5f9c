import { describe, expect, it } from "vitest";
import type { ShadowComparisonInputs } from "../ports.ts";
import { shadowComparisons } from "./comparison.ts";
import { ShadowComparisonSchema } from "./comparison-schema.ts";

const ids = { servingModelId: "v1", shadowModelId: "v2" };

/**
 * 40 paired searches: the serving model scores the 20 clicked ones 8 and the others 2 (a perfect
 * ranking); the shadow scores all of them 5 except one clicked search at 6 (nearly no ranking).
 */
function inputs(): ShadowComparisonInputs {
  return {
    pairs: [
      { ...ids, pairs: 40, withClick: 20, absDiffSum: 20 * 3 + 19 * 3 + 2, diffSum: -19 * 3 - 2 + 20 * 3 },
    ],
    bins: [
      { ...ids, side: "serving", bin: 200, searches: 20, clicked: 0, converted: 0 },
      { ...ids, side: "serving", bin: 800, searches: 20, clicked: 20, converted: 5 },
      { ...ids, side: "shadow", bin: 500, searches: 39, clicked: 19, converted: 5 },
      { ...ids, side: "shadow", bin: 600, searches: 1, clicked: 1, converted: 0 },
    ],
    queries: [],
    daily: [
      { ...ids, day: "2026-11-20", bin: 5, searches: 39 },
      { ...ids, day: "2026-11-21", bin: 6, searches: 1 },
    ],
    samples: [
      ...Array.from({ length: 20 }, (_, i) => ({ ...ids, score: 8, shadowScore: i === 0 ? 6 : 5 })),
      ...Array.from({ length: 20 }, () => ({ ...ids, score: 2, shadowScore: 5 })),
    ],
  };
}

describe("shadowComparisons", () => {
  it("judges both models on the same paired searches: agreement, and each model's AUC and calibration", () => {
    const [c] = shadowComparisons(inputs());
    expect(ShadowComparisonSchema.parse(c)).toEqual(c);
    expect(c).toMatchObject({ servingModelId: "v1", shadowModelId: "v2", pairs: 40, withClick: 20 });
    if (c?.agreement.status !== "ok") throw new Error("agreement expected");
    expect(c.agreement.meanAbsoluteDifference).toBeCloseTo(119 / 40, 12);
    expect(c.agreement.meanDifference).toBeCloseTo(1 / 40, 12);
    expect(c.agreement.spearmanRho).toBeGreaterThan(0);
    expect(c.agreement.spearmanRho).toBeLessThan(1);
    // Serving separates clicked from unclicked perfectly: AUC 1. The shadow ties 39 of 40 searches:
    // the one clicked search it scores higher beats the 20 unclicked ones, the rest are ties (half).
    expect(c.serving.auc).toMatchObject({ status: "ok", value: 1, clicked: 20, notClicked: 20 });
    expect(c.shadow.auc).toMatchObject({ status: "ok", clicked: 20, notClicked: 20 });
    if (c.shadow.auc.status !== "ok") throw new Error("auc expected");
    expect(c.shadow.auc.value).toBeCloseTo((20 + 19 * 20 * 0.5) / 400, 12);
    expect(c.serving.calibration.status).toBe("too_little_data");
    expect(c.serving.kendallTau.status).toBe("too_little_data");
    expect(c.shadowHistogram).toEqual([
      { day: "2026-11-20", counts: [0, 0, 0, 0, 0, 39, 0, 0, 0, 0] },
      { day: "2026-11-21", counts: [0, 0, 0, 0, 0, 0, 1, 0, 0, 0] },
    ]);
  });

  it("says too little data for agreement below the paired-search threshold, and orders pairs by count", () => {
    const few: ShadowComparisonInputs = {
      pairs: [
        { servingModelId: "v1", shadowModelId: "a", pairs: 3, withClick: 1, absDiffSum: 1, diffSum: 1 },
        { servingModelId: "v1", shadowModelId: "b", pairs: 5, withClick: 0, absDiffSum: 1, diffSum: 1 },
      ],
      bins: [],
      queries: [],
      daily: [],
      samples: [],
    };
    const out = shadowComparisons(few);
    expect(out.map((c) => c.shadowModelId)).toEqual(["b", "a"]);
    expect(out[0]?.agreement).toMatchObject({ status: "too_little_data", n: 5, needed: 30 });
    expect(out[0]?.shadow.auc.status).toBe("too_little_data");
  });

  it("says too little data when one model scores every paired search the same", () => {
    const flat = inputs();
    flat.samples = flat.samples.map((s) => ({ ...s, shadowScore: 5 }));
    expect(shadowComparisons(flat)[0]?.agreement).toMatchObject({ status: "too_little_data" });
  });
});
