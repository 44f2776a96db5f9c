// The latest successful run against the baseline of the ones before it, and the cadence of a series
// against the expected gap: the classic "backup finished in 2 seconds" warns, and so does a job that
// runs every minute on an hourly schedule.
import { describe, expect, it } from "vitest";
import { judgeDurations, type TimedRun } from "./duration-rules.ts";

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const T = Date.UTC(2026, 10, 1, 2);
/** Ten nightly runs of about ten minutes, oldest first. */
const nightly: TimedRun[] = Array.from({ length: 10 }, (_, i) => ({
  series: "111/eu-central-1",
  status: "succeeded",
  completed_at: T + i * DAY,
  duration_ms: (9 + (i % 3)) * MIN,
}));
const then = (duration_ms: number, status = "succeeded"): TimedRun => ({
  series: "111/eu-central-1",
  status,
  completed_at: T + 10 * DAY,
  duration_ms,
});

describe("judgeDurations", () => {
  it("warns when a backup that takes about 10 minutes finishes in 2 seconds", () => {
    const j = judgeDurations([...nightly, then(2000)], DAY);
    expect(j.verdict).toBe("too_short");
    expect(j.baseline).toEqual({ runs: 10, median_ms: 10 * MIN, p90_ms: 11 * MIN });
    expect(j.detail).toBe(
      "too short: the latest successful run took 2.0 s, under 0.1 × its median of 10.0 min (last 10 runs)",
    );
  });

  it("is normal again with a normal run after it", () => {
    const j = judgeDurations(
      [...nightly, then(2000), { ...then(10 * MIN), completed_at: T + 11 * DAY }],
      DAY,
    );
    expect(j.verdict).toBe("normal");
    expect(j.detail).toBeNull();
  });

  it("warns when a run takes over 3 × its 90th percentile, or another factor set per collector", () => {
    expect(judgeDurations([...nightly, then(34 * MIN)], DAY).verdict).toBe("too_long");
    expect(judgeDurations([...nightly, then(32 * MIN)], DAY).verdict).toBe("normal");
    expect(judgeDurations([...nightly, then(23 * MIN)], DAY, { tooLongFactor: 2 }).verdict).toBe("too_long");
  });

  it("does not judge before it has 5 successful runs, nor a failed latest run's duration", () => {
    expect(judgeDurations([...nightly.slice(0, 4), then(2000)], DAY).verdict).toBe("no_baseline");
    expect(judgeDurations([...nightly, then(2000, "failed")], DAY).verdict).toBe("normal");
  });

  it("does not call a job of a few seconds too short when it is faster once", () => {
    const quick = nightly.map((r) => ({ ...r, duration_ms: 5000 }));
    expect(judgeDurations([...quick, then(100)], DAY).verdict).toBe("normal");
  });

  it("warns when one series runs every minute on an hourly schedule; many series at once are not too often", () => {
    const everyMinute = Array.from({ length: 8 }, (_, i) => ({
      series: "111/eu-west-1",
      status: "succeeded",
      completed_at: T + i * MIN,
      duration_ms: 1000,
    }));
    const j = judgeDurations(everyMinute, 60 * MIN);
    expect(j.verdict).toBe("too_often");
    expect(j.detail).toBe(
      "too often: 111/eu-west-1 ran every 1.0 min (median of its last 5 gaps), under 0.25 × the expected 1.0 h",
    );
    // Twenty accounts of one hourly collector finishing within a minute: each series hourly.
    const fleet = Array.from({ length: 6 }, (_, hour) =>
      Array.from({ length: 20 }, (_, a) => ({
        series: `acct-${a}/eu-west-1`,
        status: "succeeded",
        completed_at: T + hour * 60 * MIN + a * 3000,
        duration_ms: 1000,
      })),
    ).flat();
    expect(judgeDurations(fleet, 60 * MIN).verdict).toBe("normal");
  });
});
