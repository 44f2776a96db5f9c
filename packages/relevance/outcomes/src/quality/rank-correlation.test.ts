import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kendallInterval, kendallTauB, midRanks, spearmanInterval, spearmanRho } from "./rank-correlation.ts";

/** τ-b by its definition: every pair, O(n²). */
function bruteTauB(x: readonly number[], y: readonly number[]): number | null {
  let s = 0;
  let tx = 0;
  let ty = 0;
  let pairs = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      pairs++;
      const dx = Math.sign((x[j] as number) - (x[i] as number));
      const dy = Math.sign((y[j] as number) - (y[i] as number));
      if (dx === 0) tx++;
      if (dy === 0) ty++;
      s += dx * dy;
    }
  }
  const d = Math.sqrt((pairs - tx) * (pairs - ty));
  return d === 0 ? null : s / d;
}

describe("Kendall τ-b", () => {
  it("gives scipy's documented value with ties in both x and y", () => {
    // scipy.stats.kendalltau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]) = −0.47140452079103173. By hand:
    // of the 10 pairs 2 are concordant, 6 discordant, (0,3) tied in both, (1,4) tied in x;
    // x ties 2 pairs, y ties 1: (2 − 6)/√((10 − 2)(10 − 1)) = −4/√72.
    expect(kendallTauB([12, 2, 1, 12, 2], [1, 4, 7, 1, 0])).toBeCloseTo(-0.47140452079103173, 14);
  });

  it("is ±1 for a strictly monotone relation and undefined when a side is constant", () => {
    expect(kendallTauB([1, 2, 3, 4], [10, 20, 30, 40])).toBe(1);
    expect(kendallTauB([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
    expect(kendallTauB([1, 2, 3], [5, 5, 5])).toBeNull();
    expect(kendallTauB([7, 7], [1, 2])).toBeNull();
    expect(kendallTauB([1], [1])).toBeNull();
  });

  it("equals the all-pairs definition on tie-heavy samples", () => {
    const value = fc.integer({ min: 0, max: 4 });
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value), { minLength: 0, maxLength: 60 }), (pairs) => {
        const x = pairs.map((p) => p[0]);
        const y = pairs.map((p) => p[1]);
        const fast = kendallTauB(x, y);
        const brute = bruteTauB(x, y);
        if (brute === null || x.length < 2) expect(fast).toBeNull();
        else expect(fast).toBeCloseTo(brute, 12);
      }),
      { numRuns: 300 },
    );
  });

  it("has the Fieller–Hartley–Pearson interval through Fisher's z", () => {
    // atanh(−0.4714) ± 1.96·√(0.437/(5 − 4)), back through tanh.
    const [lo, hi] = kendallInterval(-4 / Math.sqrt(72), 5);
    expect(lo).toBeCloseTo(-0.94758006, 7);
    expect(hi).toBeCloseTo(0.65487023, 7);
    expect(kendallInterval(0.3, 4)).toEqual([-1, 1]);
    expect(kendallInterval(1, 50)).toEqual([1, 1]);
  });
});

describe("Spearman ρ", () => {
  it("gives scipy's documented value with a tie (mid-ranks)", () => {
    // scipy.stats.spearmanr([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) = 0.8207826816681233. By hand: ranks
    // of y are 1, 2, 3.5, 5, 3.5; deviations from 3 give Σdxdy = 8, Σdx² = 10, Σdy² = 9.5: 8/√95.
    expect(spearmanRho([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(0.8207826816681233, 14);
    expect(midRanks([5, 6, 7, 8, 7])).toEqual([1, 2, 3.5, 5, 3.5]);
  });

  it("equals 1 − 6Σd²/(n(n² − 1)) without ties", () => {
    // ranks x 1..5, y 2 1 4 3 5: d² = 1 1 1 1 0 → 1 − 24/120 = 0.8.
    expect(spearmanRho([1, 2, 3, 4, 5], [20, 10, 40, 30, 50])).toBeCloseTo(0.8, 14);
  });

  it("is undefined when a side is constant or for a single pair", () => {
    expect(spearmanRho([1, 2, 3], [0, 0, 0])).toBeNull();
    expect(spearmanRho([1], [2])).toBeNull();
  });

  it("has the Fieller–Hartley–Pearson interval through Fisher's z", () => {
    const [lo, hi] = spearmanInterval(8 / Math.sqrt(95), 5);
    expect(lo).toBeCloseTo(-0.26144987, 7);
    expect(hi).toBeCloseTo(0.98871953, 7);
    expect(spearmanInterval(0.5, 3)).toEqual([-1, 1]);
  });
});
