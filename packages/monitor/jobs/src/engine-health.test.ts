import { describe, expect, it } from "vitest";
import { engineHealth, engineNeedsAttention, LATE_INTERVALS } from "./engine-health.ts";

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 28, 9, 0, 0);
const round = (over: Partial<Parameters<typeof engineHealth>[0] & object> = {}) => ({
  tick_at: T0,
  completed_at: T0 + 2000,
  ok: true,
  error: null,
  interval_ms: MIN,
  ...over,
});

describe("engineHealth: the alert engine's state from its last round and now", () => {
  it("never_ran without a recorded round", () => {
    expect(engineHealth(null, T0)).toEqual({
      last_tick_at: null,
      last_completed_at: null,
      lag_s: null,
      interval_s: null,
      state: "never_ran",
      last_error: null,
    });
  });

  it("ok while the last round completed within 3 intervals; the lag grows with the clock", () => {
    expect(engineHealth(round(), T0 + 2000 + 30_000)).toMatchObject({
      state: "ok",
      lag_s: 30,
      interval_s: 60,
      last_tick_at: T0,
      last_completed_at: T0 + 2000,
      last_error: null,
    });
    expect(engineHealth(round(), T0 + 2000 + LATE_INTERVALS * MIN)).toMatchObject({
      state: "ok",
      lag_s: 180,
    });
  });

  it("late once the last round is more than 3 intervals old, even when that round failed", () => {
    expect(engineHealth(round(), T0 + 2000 + LATE_INTERVALS * MIN + 1)).toMatchObject({ state: "late" });
    const failed = round({ ok: false, error: "store unreachable" });
    expect(engineHealth(failed, T0 + 2000 + 10 * MIN)).toMatchObject({
      state: "late",
      lag_s: 600,
      last_error: "store unreachable",
    });
  });

  it("failing when the last round, in time, threw; its error is shown", () => {
    expect(engineHealth(round({ ok: false, error: "state not saved" }), T0 + 5000)).toMatchObject({
      state: "failing",
      last_error: "state not saved",
    });
  });

  it("never a negative lag when the reader's clock is behind the engine's", () => {
    expect(engineHealth(round(), T0)).toMatchObject({ lag_s: 0, state: "ok" });
  });

  it("late and failing need attention; ok and never_ran do not", () => {
    expect(["ok", "late", "failing", "never_ran"].map((s) => engineNeedsAttention(s as never))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });
});
