import { describe, expect, it } from "vitest";
import type { ModelOnPairs, ShadowComparison } from "./comparison-schema.ts";
import { promotionGate } from "./promotion-gate.ts";

const few = { status: "too_little_data" as const, n: 3, needed: 10, reason: "few" };

function model(modelId: string, auc: number | null, tau: number | null): ModelOnPairs {
  return {
    modelId,
    calibration: few,
    kendallTau: tau === null ? few : { status: "ok", value: tau, n: 40, interval: [tau - 0.1, tau + 0.1] },
    auc:
      auc === null
        ? few
        : { status: "ok", value: auc, clicked: 300, notClicked: 200, interval: [auc - 0.03, auc + 0.03] },
  };
}

function comparison(withClick: number, serving: ModelOnPairs, shadow: ModelOnPairs): ShadowComparison {
  return {
    servingModelId: serving.modelId,
    shadowModelId: shadow.modelId,
    pairs: withClick * 2,
    withClick,
    agreement: few,
    serving,
    shadow,
    shadowHistogram: [],
  };
}

const options = { minWithClick: 200, margin: 0.02 };

describe("promotionGate", () => {
  it("waits until enough paired searches carry a click, whatever the AUCs say", () => {
    const d = promotionGate(comparison(199, model("v1", 0.7, 0.3), model("v2", 0.9, 0.5)), options);
    expect(d.decision).toBe("wait");
    expect(d.reason).toContain("199");
  });

  it("waits while either model's AUC is too little data", () => {
    expect(
      promotionGate(comparison(250, model("v1", 0.7, null), model("v2", null, null)), options).decision,
    ).toBe("wait");
  });

  it("promotes a candidate whose AUC is better, or lower by no more than the margin", () => {
    expect(
      promotionGate(comparison(250, model("v1", 0.7, null), model("v2", 0.75, null)), options).decision,
    ).toBe("promote");
    expect(
      promotionGate(comparison(250, model("v1", 0.7, null), model("v2", 0.69, null)), options).decision,
    ).toBe("promote");
  });

  it("refuses a candidate whose AUC is lower by more than the margin, with the numbers", () => {
    const d = promotionGate(comparison(250, model("v1", 0.8, 0.4), model("v2", 0.7, 0.4)), options);
    expect(d.decision).toBe("refuse");
    expect(d.reason).toContain("0.700");
    expect(d.reason).toContain("0.800");
    expect(d.numbers).toMatchObject({ servingAuc: 0.8, candidateAuc: 0.7, withClick: 250 });
  });

  it("refuses a candidate that passes on AUC but orders queries worse by τ-b", () => {
    const d = promotionGate(comparison(250, model("v1", 0.8, 0.45), model("v2", 0.8, 0.2)), options);
    expect(d.decision).toBe("refuse");
    expect(d.reason).toContain("τ-b");
  });
});
