import { describe, expect, it } from "vitest";
import { aucFromBins, hanleyMcNeilInterval } from "./auc.ts";

describe("AUC of the score for searches with no click", () => {
  it("counts every (clicked, not clicked) pair and ties half", () => {
    // Not clicked: two at 1.00, one at 5.00; clicked: one at 5.00, one at 9.00. Pairs where the
    // clicked search scored higher: 2 (5.00 over 1.00) + 0.5 (tie at 5.00) + 3 (9.00) = 5.5 of 6.
    const counts = aucFromBins([
      { bin: 900, searches: 1, clicked: 1 },
      { bin: 100, searches: 2, clicked: 0 },
      { bin: 500, searches: 2, clicked: 1 },
    ]);
    expect(counts).toEqual({ auc: 5.5 / 6, clicked: 2, notClicked: 3 });
  });

  it("is 0.5 when every search had the same score, and undefined with one class only", () => {
    expect(aucFromBins([{ bin: 420, searches: 10, clicked: 3 }]).auc).toBe(0.5);
    expect(aucFromBins([{ bin: 420, searches: 10, clicked: 10 }]).auc).toBeNull();
    expect(aucFromBins([]).auc).toBeNull();
  });

  it("has the Hanley–McNeil interval", () => {
    // A = 0.75, 50 and 50: Q1 = 0.6, Q2 = 1.125/1.75; var = (0.1875 + 49·0.0375 + 49·(Q2 − 0.5625))/2500
    // = 0.002385, SE = 0.048836, ±1.96·SE = 0.095716.
    const [lo, hi] = hanleyMcNeilInterval(0.75, 50, 50);
    expect(lo).toBeCloseTo(0.654284, 5);
    expect(hi).toBeCloseTo(0.845716, 5);
    expect(hanleyMcNeilInterval(1, 20, 20)).toEqual([1, 1]);
  });
});
