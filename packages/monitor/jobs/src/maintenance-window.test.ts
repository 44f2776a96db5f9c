import { describe, expect, it } from "vitest";
import {
  freshnessAnchor,
  lastWindowEnd,
  type MaintenanceTiming,
  nextWindow,
  type WindowTimes,
  windowActiveAt,
  windowOver,
} from "./maintenance-window.ts";

const T = (iso: string) => Date.parse(iso);
const H = 3_600_000;

const once = (startsAt: number, endsAt: number, endedAt: number | null = null): WindowTimes => ({
  timing: { kind: "once", startsAt, endsAt },
  createdAt: startsAt - H,
  endedAt,
});
const weekly = (createdAt: number, endedAt: number | null = null): WindowTimes => ({
  // Sundays 02:00 Berlin, 2 hours.
  timing: { kind: "recurring", schedule: "0 2 * * 0", timezone: "Europe/Berlin", durationMinutes: 120 },
  createdAt,
  endedAt,
});

describe("one-off maintenance window", () => {
  const w = once(T("2026-03-02T10:00:00Z"), T("2026-03-02T12:00:00Z"));

  it("is in effect from its start (inclusive) to its end (exclusive)", () => {
    expect(windowActiveAt(w, T("2026-03-02T09:59:59Z"))).toBeNull();
    expect(windowActiveAt(w, T("2026-03-02T10:00:00Z"))).toEqual({
      startsAt: T("2026-03-02T10:00:00Z"),
      endsAt: T("2026-03-02T12:00:00Z"),
    });
    expect(windowActiveAt(w, T("2026-03-02T12:00:00Z"))).toBeNull();
  });

  it("is next before its start, and has ended after its end", () => {
    expect(nextWindow(w, T("2026-03-02T09:00:00Z"))?.startsAt).toBe(T("2026-03-02T10:00:00Z"));
    expect(nextWindow(w, T("2026-03-02T10:30:00Z"))).toBeNull();
    expect(lastWindowEnd(w, T("2026-03-02T11:59:00Z"))).toBeNull();
    expect(lastWindowEnd(w, T("2026-03-02T13:00:00Z"))).toBe(T("2026-03-02T12:00:00Z"));
    expect(windowOver(w, T("2026-03-02T12:00:00Z"))).toBe(true);
  });

  it("ended early stops at that instant", () => {
    const ended = once(T("2026-03-02T10:00:00Z"), T("2026-03-02T12:00:00Z"), T("2026-03-02T10:30:00Z"));
    expect(windowActiveAt(ended, T("2026-03-02T10:29:00Z"))).not.toBeNull();
    expect(windowActiveAt(ended, T("2026-03-02T10:30:00Z"))).toBeNull();
    expect(lastWindowEnd(ended, T("2026-03-02T10:45:00Z"))).toBe(T("2026-03-02T10:30:00Z"));
    expect(windowOver(ended, T("2026-03-02T10:30:00Z"))).toBe(true);
  });
});

describe("recurring maintenance window", () => {
  const w = weekly(T("2026-03-01T00:00:00Z"));

  it("is in effect during each weekly occurrence and not between them", () => {
    // Sunday 2026-03-08 02:00 Berlin is 01:00 UTC (CET).
    expect(windowActiveAt(w, T("2026-03-08T01:30:00Z"))).toEqual({
      startsAt: T("2026-03-08T01:00:00Z"),
      endsAt: T("2026-03-08T03:00:00Z"),
    });
    expect(windowActiveAt(w, T("2026-03-08T03:00:00Z"))).toBeNull();
    expect(windowActiveAt(w, T("2026-03-11T01:30:00Z"))).toBeNull();
    expect(windowActiveAt(w, T("2026-03-15T02:59:00Z"))?.startsAt).toBe(T("2026-03-15T01:00:00Z"));
  });

  it("follows the time zone across the spring DST change (02:00 Berlin then is 00:00 UTC)", () => {
    // 2026-03-29: 02:00 CET does not exist; croner starts the occurrence at the first valid time (03:00 CEST = 01:00 UTC).
    const active = windowActiveAt(w, T("2026-03-29T02:00:00Z"));
    expect(active).not.toBeNull();
    expect((active as { endsAt: number }).endsAt - (active as { startsAt: number }).startsAt).toBe(2 * H);
    // The week after: 02:00 CEST = 00:00 UTC, two elapsed hours.
    expect(windowActiveAt(w, T("2026-04-05T00:00:00Z"))).toEqual({
      startsAt: T("2026-04-05T00:00:00Z"),
      endsAt: T("2026-04-05T02:00:00Z"),
    });
    expect(windowActiveAt(w, T("2026-04-05T02:00:00Z"))).toBeNull();
  });

  it("names its next occurrence and the end of the last one", () => {
    expect(nextWindow(w, T("2026-03-09T00:00:00Z"))).toEqual({
      startsAt: T("2026-03-15T01:00:00Z"),
      endsAt: T("2026-03-15T03:00:00Z"),
    });
    expect(lastWindowEnd(w, T("2026-03-09T00:00:00Z"))).toBe(T("2026-03-08T03:00:00Z"));
    // During an occurrence, the last one that ended is the week before.
    expect(lastWindowEnd(w, T("2026-03-15T02:00:00Z"))).toBe(T("2026-03-08T03:00:00Z"));
  });

  it("has no occurrence before it was created, and one in progress at creation counts from then", () => {
    const created = weekly(T("2026-03-08T02:00:00Z"));
    expect(lastWindowEnd(created, T("2026-03-07T00:00:00Z"))).toBeNull();
    expect(windowActiveAt(created, T("2026-03-08T02:30:00Z"))).toEqual({
      startsAt: T("2026-03-08T02:00:00Z"),
      endsAt: T("2026-03-08T03:00:00Z"),
    });
  });

  it("ended early: the occurrence in progress stops then and none follows", () => {
    const ended = weekly(T("2026-03-01T00:00:00Z"), T("2026-03-08T02:00:00Z"));
    expect(windowActiveAt(ended, T("2026-03-08T02:00:00Z"))).toBeNull();
    expect(lastWindowEnd(ended, T("2026-03-08T02:30:00Z"))).toBe(T("2026-03-08T02:00:00Z"));
    expect(windowActiveAt(ended, T("2026-03-15T01:30:00Z"))).toBeNull();
    expect(nextWindow(ended, T("2026-03-09T00:00:00Z"))).toBeNull();
    expect(windowOver(ended, T("2026-03-08T02:00:00Z"))).toBe(true);
  });

  it("occurrences may overlap: the latest start is in effect", () => {
    const timing: MaintenanceTiming = {
      kind: "recurring",
      schedule: "0 * * * *",
      timezone: "UTC",
      durationMinutes: 90,
    };
    const hourly: WindowTimes = { timing, createdAt: 0, endedAt: null };
    expect(windowActiveAt(hourly, T("2026-03-02T10:10:00Z"))).toEqual({
      startsAt: T("2026-03-02T10:00:00Z"),
      endsAt: T("2026-03-02T11:30:00Z"),
    });
  });
});

describe("freshnessAnchor", () => {
  const now = T("2026-03-02T15:00:00Z");
  it("is the last success when no window ended after it", () => {
    expect(freshnessAnchor(T("2026-03-02T14:00:00Z"), [T("2026-03-02T12:00:00Z"), null], now)).toBe(
      T("2026-03-02T14:00:00Z"),
    );
  });
  it("is the latest window end after the last success", () => {
    expect(
      freshnessAnchor(T("2026-03-02T09:00:00Z"), [T("2026-03-02T11:00:00Z"), T("2026-03-02T12:00:00Z")], now),
    ).toBe(T("2026-03-02T12:00:00Z"));
  });
  it("ignores an end later than now", () => {
    expect(freshnessAnchor(T("2026-03-02T09:00:00Z"), [T("2026-03-02T16:00:00Z")], now)).toBe(
      T("2026-03-02T09:00:00Z"),
    );
  });
});
