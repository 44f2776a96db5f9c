import { describe, expect, it } from "vitest";
import {
  checkClockSkew,
  checkRunsClockSkew,
  DEFAULT_MAX_CLOCK_SKEW_MS,
  formatSkew,
  maxClockSkewFromEnv,
} from "./clock-skew.ts";

const NOW = Date.UTC(2025, 0, 31, 12, 0, 0);
const MIN = 60_000;

describe("checkClockSkew (a time ahead of the server clock)", () => {
  it("accepts up to exactly the allowance ahead and refuses one millisecond more, naming the field and the skew", () => {
    expect(checkClockSkew({ started_at: NOW + 15 * MIN }, NOW)).toEqual([]);
    expect(checkClockSkew({ started_at: NOW - 365 * 24 * 60 * MIN }, NOW)).toEqual([]);
    expect(checkClockSkew({ started_at: NOW + 15 * MIN + 1, completed_at: NOW }, NOW)).toEqual([
      {
        path: "started_at",
        message: "is 15 min ahead of the server clock; at most 15 min (900 s) ahead is accepted",
      },
    ]);
  });

  it("a record dated 200 years ahead is refused on both fields, with the index of an array's record", () => {
    const far = Date.UTC(2225, 0, 31);
    expect(
      checkRunsClockSkew(
        [
          { started_at: NOW, completed_at: NOW },
          { started_at: far, completed_at: far },
        ],
        NOW,
      ).map((e) => e.path),
    ).toEqual(["[1].started_at", "[1].completed_at"]);
    expect(
      checkRunsClockSkew([{ started_at: NOW, completed_at: far }], NOW, DEFAULT_MAX_CLOCK_SKEW_MS, false),
    ).toEqual([
      { path: "completed_at", message: expect.stringMatching(/^is 730\d\d d ahead of the server clock/) },
    ]);
  });

  it("the allowance is a parameter", () => {
    expect(checkClockSkew({ completed_at: NOW + 2 * MIN }, NOW, MIN)).toEqual([
      {
        path: "completed_at",
        message: "is 2 min ahead of the server clock; at most 1 min (60 s) ahead is accepted",
      },
    ]);
    expect(checkClockSkew({ completed_at: NOW + 1 }, NOW, 0)).toHaveLength(1);
  });

  it("formats skews for people", () => {
    expect([45_000, 15 * MIN, 125 * MIN, 120 * MIN, 3 * 24 * 60 * MIN].map(formatSkew)).toEqual([
      "45 s",
      "15 min",
      "2 h 5 min",
      "2 h",
      "3 d",
    ]);
  });

  it("MAX_CLOCK_SKEW_S: whole seconds, default 15 min, anything else names the variable", () => {
    expect(maxClockSkewFromEnv({})).toEqual({ ok: true, value: DEFAULT_MAX_CLOCK_SKEW_MS });
    expect(maxClockSkewFromEnv({ MAX_CLOCK_SKEW_S: "60" })).toEqual({ ok: true, value: 60_000 });
    expect(maxClockSkewFromEnv({ MAX_CLOCK_SKEW_S: "1.5" })).toEqual({
      ok: false,
      error: 'MAX_CLOCK_SKEW_S must be whole seconds ≥ 0 (got "1.5")',
    });
  });
});
