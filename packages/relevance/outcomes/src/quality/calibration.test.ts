import { describe, expect, it } from "vitest";
import { calibrationGroups } from "./calibration.ts";

describe("calibration deciles", () => {
  it("cuts 100 distinct scores into ten groups of ten with Wilson intervals", () => {
    const bins = Array.from({ length: 100 }, (_, i) => ({
      bin: i * 10,
      searches: 1,
      clicked: i % 10 < i / 10 ? 1 : 0,
      converted: i === 99 ? 1 : 0,
    }));
    const groups = calibrationGroups(bins);
    expect(groups.map((g) => g.decile)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(groups.every((g) => g.n === 10)).toBe(true);
    expect(groups[0]).toMatchObject({ minScore: 0, maxScore: 0.9, meanScore: 0.45 });
    // Decile 6 holds i = 50..59: i % 10 < i / 10 for i % 10 ≤ 5, six clicks.
    expect(groups[5]?.clickThrough.rate).toBe(0.6);
    expect(groups[9]?.conversion.rate).toBe(0.1);
    expect(groups[9]?.conversion.interval[0]).toBeCloseTo(0.01787, 4);
    expect(groups[9]?.conversion.interval[1]).toBeCloseTo(0.40416, 4);
  });

  it("never splits a bin: a score held by 35 % of the searches is one group spanning deciles", () => {
    const bins = [
      { bin: 100, searches: 10, clicked: 0, converted: 0 },
      { bin: 500, searches: 35, clicked: 7, converted: 1 },
      ...Array.from({ length: 55 }, (_, i) => ({ bin: 600 + i, searches: 1, clicked: 1, converted: 0 })),
    ];
    const groups = calibrationGroups(bins);
    // 10 → decile 1; 45 → deciles 2..4 end in 4; then one group per further tenth.
    expect(groups.map((g) => [g.decile, g.n])).toEqual([
      [1, 10],
      [4, 35],
      [5, 5],
      [6, 10],
      [7, 10],
      [8, 10],
      [9, 10],
      [10, 10],
    ]);
    expect(groups[1]).toMatchObject({ minScore: 5, maxScore: 5, meanScore: 5 });
    expect(groups[1]?.clickThrough.rate).toBe(0.2);
    expect(groups.reduce((s, g) => s + g.n, 0)).toBe(100);
  });

  it("gives one group when every search had the same score, and none without searches", () => {
    expect(calibrationGroups([{ bin: 730, searches: 3, clicked: 1, converted: 0 }])).toHaveLength(1);
    expect(calibrationGroups([{ bin: 730, searches: 0, clicked: 0, converted: 0 }])).toEqual([]);
    expect(calibrationGroups([])).toEqual([]);
  });
});
