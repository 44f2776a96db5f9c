import { describe, expect, it } from "vitest";
import { cronScheduleIssues, lastExpectedRun, nextExpectedRun, overdueAt } from "./cron-schedule.ts";

const weekdays = { schedule: "0 2 * * 1-5", timezone: "Europe/Berlin", graceMinutes: 60 };
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe("cron schedules in a time zone", () => {
  it("a weekday 02:00 Berlin job: Friday's run is the last expected one through the whole weekend", () => {
    // Friday 27 March 2026, 02:00 CET = 01:00 UTC; the spring change is Sunday 29 March.
    expect(iso(lastExpectedRun(weekdays, at("2026-03-28T12:00:00Z")))).toBe("2026-03-27T01:00:00.000Z");
    expect(iso(lastExpectedRun(weekdays, at("2026-03-29T23:59:00Z")))).toBe("2026-03-27T01:00:00.000Z");
    // Monday after the change: 02:00 CEST = 00:00 UTC.
    expect(iso(nextExpectedRun(weekdays, at("2026-03-28T12:00:00Z")))).toBe("2026-03-30T00:00:00.000Z");
    expect(iso(lastExpectedRun(weekdays, at("2026-03-30T00:30:00Z")))).toBe("2026-03-30T00:00:00.000Z");
  });

  it("follows the autumn change: Monday 26 October 2026 runs at 02:00 CET = 01:00 UTC", () => {
    expect(iso(lastExpectedRun(weekdays, at("2026-10-23T12:00:00Z")))).toBe("2026-10-23T00:00:00.000Z");
    expect(iso(nextExpectedRun(weekdays, at("2026-10-24T00:00:00Z")))).toBe("2026-10-26T01:00:00.000Z");
  });

  it("is overdue the grace after a missed weekday run, and not over the weekend", () => {
    expect(iso(overdueAt(weekdays, at("2026-03-28T12:00:00Z")))).toBe("2026-03-27T02:00:00.000Z");
    expect(iso(overdueAt(weekdays, at("2026-03-30T01:30:00Z")))).toBe("2026-03-30T01:00:00.000Z");
  });

  it("a run at a local time the spring change skips happens once, after it", () => {
    const daily = { schedule: "30 2 * * *", timezone: "Europe/Berlin", graceMinutes: 0 };
    // 02:30 does not exist in Berlin on 29 March 2026 (02:00 → 03:00).
    const next = nextExpectedRun(daily, at("2026-03-28T12:00:00Z"));
    expect(next).not.toBeNull();
    expect(
      at("2026-03-29T00:00:00Z") <= (next as number) && (next as number) <= at("2026-03-29T02:00:00Z"),
    ).toBe(true);
  });

  it("names every bad field at once", () => {
    expect(
      cronScheduleIssues({ schedule: "61 * * * *", timezone: "Mars/Olympus", graceMinutes: -1 }).map(
        (i) => i.path,
      ),
    ).toEqual(["timezone", "grace_minutes"]);
    expect(cronScheduleIssues({ schedule: "61 * * * *", timezone: "UTC", graceMinutes: 0 })[0]?.path).toBe(
      "schedule",
    );
    expect(cronScheduleIssues({ schedule: "0 0 31 2 *", timezone: "UTC", graceMinutes: 0 })).toEqual([
      { path: "schedule", message: "never runs (no date matches it)" },
    ]);
    expect(cronScheduleIssues(weekdays)).toEqual([]);
  });
});
