import { describe, expect, it } from "vitest";
import { durationBaseline, MIN_BASELINE_RUNS } from "./duration-baseline.ts";

describe("durationBaseline", () => {
  it("takes the median and the 90th percentile by nearest rank, in any order", () => {
    const d = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5].map((s) => s * 1000);
    expect(durationBaseline(d)).toEqual({ runs: 10, median_ms: 5000, p90_ms: 9000 });
  });

  it("has no baseline below the minimum number of runs, and ignores values that are not durations", () => {
    expect(durationBaseline([1, 2, 3, 4])).toBeNull();
    expect(durationBaseline([1, 2, 3, 4, Number.NaN, -1])).toBeNull();
    expect(durationBaseline(Array(MIN_BASELINE_RUNS).fill(60_000))).toEqual({
      runs: MIN_BASELINE_RUNS,
      median_ms: 60_000,
      p90_ms: 60_000,
    });
  });
});
