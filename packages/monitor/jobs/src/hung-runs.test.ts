import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_DURATION_MS,
  formatSpan,
  learnedMaxDurationMs,
  MAX_OPEN_RUN_MS,
  maxDurationOf,
  type OpenRun,
  openRunStates,
} from "./hung-runs.ts";

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 2, 2, 0, 0);
const start = (p: Partial<OpenRun> = {}): OpenRun => ({
  run_id: "00000000-0000-4000-8000-000000000001",
  collector: "backup",
  cloud_account_id: "111111111111",
  cloud_region: "us-east-1",
  started_at: T0,
  ...p,
});
const none = new Map();

describe("maxDurationOf", () => {
  it("takes the collector's own max_duration first, whatever its baseline", () => {
    const baseline = { runs: 20, median_ms: 10 * MIN, p90_ms: 12 * MIN };
    expect(maxDurationOf({ max_duration_minutes: 45, expected_interval_minutes: 60 }, baseline)).toEqual({
      limit_ms: 45 * MIN,
      limit_source: "set",
    });
  });

  it("learns max(3 × p90, median + 30 min) when none is set", () => {
    // A long job: 3 × p90 dominates.
    expect(learnedMaxDurationMs({ runs: 20, median_ms: 60 * MIN, p90_ms: 80 * MIN })).toBe(240 * MIN);
    // A job of seconds: the half-hour slack dominates.
    expect(learnedMaxDurationMs({ runs: 20, median_ms: 2000, p90_ms: 3000 })).toBe(30 * MIN + 2000);
    expect(
      maxDurationOf({ expected_interval_minutes: 15 }, { runs: 5, median_ms: 2000, p90_ms: 3000 }),
    ).toEqual({ limit_ms: 30 * MIN + 2000, limit_source: "learned" });
  });

  it("falls back to 2 × the expected interval, or 24 h without one", () => {
    expect(maxDurationOf({ expected_interval_minutes: 15, max_duration_minutes: null }, null)).toEqual({
      limit_ms: 30 * MIN,
      limit_source: "default",
    });
    expect(maxDurationOf(undefined, undefined)).toEqual({
      limit_ms: DEFAULT_MAX_DURATION_MS,
      limit_source: "default",
    });
    expect(maxDurationOf({ expected_interval_minutes: null }, null).limit_ms).toBe(24 * 60 * MIN);
  });
});

describe("openRunStates", () => {
  const specs = new Map([["backup", { max_duration_minutes: 60, expected_interval_minutes: 1440 }]]);

  it("is running up to its max duration and hung strictly after it", () => {
    const at = (ms: number) => openRunStates([start()], specs, none, T0 + ms)[0];
    expect(at(60 * MIN)).toMatchObject({ state: "running", elapsed_ms: 60 * MIN, limit_ms: 60 * MIN });
    expect(at(60 * MIN + 1)).toMatchObject({ state: "hung", limit_source: "set" });
  });

  it("uses the baseline passed in when the collector sets no max duration", () => {
    const b = new Map([["nightly", { runs: 10, median_ms: 10 * MIN, p90_ms: 20 * MIN }]]);
    const [s] = openRunStates([start({ collector: "nightly" })], new Map(), b, T0 + 61 * MIN);
    expect(s).toMatchObject({ state: "hung", limit_ms: 60 * MIN, limit_source: "learned" });
  });

  it("forgets a start older than the expiry bound", () => {
    expect(openRunStates([start()], specs, none, T0 + MAX_OPEN_RUN_MS)).toHaveLength(1);
    expect(openRunStates([start()], specs, none, T0 + MAX_OPEN_RUN_MS + 1)).toEqual([]);
  });

  it("counts a start ahead of now as just started, and lists the oldest start first", () => {
    const runs = [
      start({ run_id: "b", started_at: T0 + 5 * MIN }),
      start({ run_id: "a", started_at: T0 - 5 * MIN }),
    ];
    const out = openRunStates(runs, specs, none, T0);
    expect(out.map((r) => [r.run_id, r.elapsed_ms])).toEqual([
      ["a", 5 * MIN],
      ["b", 0],
    ]);
  });
});

describe("formatSpan", () => {
  it("reads as people say it", () => {
    expect(formatSpan(30_000)).toBe("30 s");
    expect(formatSpan(45 * MIN)).toBe("45 min");
    expect(formatSpan(125 * MIN)).toBe("2 h 5 min");
    expect(formatSpan(50 * 60 * MIN)).toBe("2 d 2 h");
  });
});
