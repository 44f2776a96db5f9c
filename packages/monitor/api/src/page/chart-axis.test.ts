import { describe, expect, it } from "vitest";
import { MIN_WINDOW_S, timeAxis, timeWindow } from "./chart-axis.ts";

/** Epoch seconds of a UTC time on 2026-11-28. */
const at = (hh: number, mm = 0, day = 28) => Date.UTC(2026, 10, day, hh, mm) / 1000;
/** The labels a run-history chart of runs at `xs` shows on a plot `width` px wide. */
const labelsOf = (xs: number[], width = 240) => {
  const [min, max] = timeWindow(xs);
  return timeAxis(min, max, width).labels;
};

describe("run-history time axis", () => {
  it("one run: the 20 minutes up to it, labelled with times of day (not 01-01 01-01 01-01)", () => {
    const x = at(3, 18);
    expect(timeWindow([x])).toEqual([x + 120 - MIN_WINDOW_S, x + 120]);
    expect(labelsOf([x])).toEqual(["03:00", "03:05", "03:10", "03:15"]);
    expect(labelsOf([x], 120)).toEqual(["03:00", "03:10"]);
  });

  it("a burst of runs minutes apart: still 20 minutes, every label a distinct time, no future", () => {
    const xs = [at(3, 10), at(3, 12), at(3, 15)];
    const labels = labelsOf(xs);
    expect(labels).toEqual(["03:00", "03:05", "03:10", "03:15"]);
    expect(new Set(labels).size).toBe(labels.length);
    expect(timeWindow(xs)[1]).toBe(at(3, 17));
  });

  it("runs over most of an hour: their span with a little room", () => {
    expect(labelsOf([at(3, 0), at(3, 5), at(3, 50)])).toEqual(["03:00", "03:15", "03:30", "03:45"]);
  });

  it("ten hours of runs across midnight: times of day, and the date at midnight", () => {
    // 40 runs every 15 min, the latest at 10:00.
    const xs = Array.from({ length: 40 }, (_, i) => at(10) - i * 15 * 60);
    const { splits, labels } = timeAxis(...timeWindow(xs), 300);
    expect(labels).toEqual(["11-28", "02:00", "04:00", "06:00", "08:00"]);
    expect(splits.every((s) => s % 7200 === 0)).toBe(true);
    const across = timeAxis(at(18), at(6, 0, 29), 300).labels;
    // A tick on the right edge would have its label cut: left out.
    expect(across).toEqual(["18:00", "21:00", "11-29", "03:00"]);
  });

  it("runs days apart: one date per tick, never the same twice", () => {
    const labels = labelsOf([at(1, 23, 26), at(1, 23, 27), at(1, 23, 28)]);
    expect(labels).toEqual(["11-26", "11-27", "11-28"]);
  });

  it("fits the labels it has room for, at every width", () => {
    for (const width of [120, 200, 240, 400, 800]) {
      for (const xs of [[at(3)], [at(3), at(3, 1)], [at(0), at(23, 59)], [at(0, 0, 1), at(0, 0, 28)]]) {
        const { splits, labels } = timeAxis(...timeWindow(xs), width);
        expect(splits.length).toBeGreaterThan(0);
        expect(splits.length).toBeLessThanOrEqual(Math.max(2, Math.floor(width / 56)));
        expect(new Set(labels).size).toBe(labels.length);
      }
    }
  });
});
