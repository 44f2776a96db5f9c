import { describe, expect, it } from "vitest";
import { DAY_MS, MAX_TIME_CHARS, parseInstant, parseTimeRange } from "./time-range.ts";

const NOW = Date.parse("2026-11-28T12:00:00Z");
const bounds = { defaultSince: "7d", maxDays: 90 };

describe("parseInstant", () => {
  it("reads durations back from the reference and ISO times", () => {
    expect(parseInstant("30d", NOW)).toBe(NOW - 30 * DAY_MS);
    expect(parseInstant("2h", NOW)).toBe(NOW - 7_200_000);
    expect(parseInstant("90m", NOW)).toBe(NOW - 5_400_000);
    expect(parseInstant("2026-11-20", NOW)).toBe(Date.parse("2026-11-20"));
    expect(parseInstant("2026-11-20T10:00:00+01:00", NOW)).toBe(Date.parse("2026-11-20T09:00:00Z"));
  });

  it("reads nothing else", () => {
    for (const bad of [
      "",
      "0d",
      "7",
      "7w",
      "-1d",
      "1e3d",
      "yesterday",
      "2026-13-45",
      "2026-11-20T10",
      "2026-11-20T10:00",
      "now",
      "d",
    ])
      expect(parseInstant(bad, NOW), bad).toBeNull();
  });
});

describe("parseTimeRange", () => {
  it("counts since back from until, until back from now, with the default since", () => {
    expect(parseTimeRange({}, NOW, bounds)).toEqual({
      ok: true,
      value: { since: NOW - 7 * DAY_MS, until: NOW },
    });
    expect(parseTimeRange({ since: "1d", until: "1d" }, NOW, bounds)).toEqual({
      ok: true,
      value: { since: NOW - 2 * DAY_MS, until: NOW - DAY_MS },
    });
  });

  it("names every bad parameter at once", () => {
    const r = parseTimeRange({ since: "soon", until: "x".repeat(MAX_TIME_CHARS + 1) }, NOW, bounds);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toEqual(["until", "since"]);
  });

  it("refuses an empty, reversed or too long range", () => {
    const issue = (raw: { since?: string; until?: string }) => {
      const r = parseTimeRange(raw, NOW, bounds);
      return r.ok ? null : r.issues[0]?.message;
    };
    expect(issue({ since: "2026-11-28T12:00:00Z" })).toBe("must be before until");
    expect(issue({ since: "91d" })).toBe("must be at most 90 days before until");
    expect(issue({ since: "90d" })).toBeNull();
  });
});
