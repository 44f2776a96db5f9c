// A collector on a cron schedule in a time zone: fresh until the first expected run after its last
// success, late (amber) after it, stale (red) once the grace has passed too. A weekday 02:00 Berlin job
// stays green over the weekend and across both 2026 DST changes; a missed weekday run is red 1 h later.
import { describe, expect, it } from "vitest";
import { freshnessList } from "./freshness.ts";
import { collectorHealth } from "./health.ts";
import type { CollectorSpec } from "./records.ts";
import { run } from "./test-support.ts";

const NIGHTLY: CollectorSpec = {
  name: "nightly_backup",
  expected_interval_minutes: null,
  freshness_threshold_minutes: 60,
  schedule: "0 2 * * 1-5",
  timezone: "Europe/Berlin",
  grace_minutes: 60,
  registered_at: Date.parse("2026-01-01T00:00:00Z"),
};
const success = (iso: string) => run({ collector: "nightly_backup", at: Date.parse(iso) });
const at = (iso: string) => Date.parse(iso);

describe("a weekday 02:00 Europe/Berlin collector", () => {
  // Friday 27 March 2026, 02:05 CET (01:05Z); the clocks go forward on Sunday 29 March at 02:00.
  const friday = [success("2026-03-27T01:05:00Z")];

  it("is green all weekend after Friday's run, across the spring DST change", () => {
    for (const now of [
      "2026-03-27T12:00:00Z",
      "2026-03-28T01:30:00Z",
      "2026-03-29T00:59:00Z",
      "2026-03-29T01:30:00Z",
      "2026-03-29T23:59:59Z",
    ]) {
      expect(collectorHealth(NIGHTLY, friday, at(now)), now).toMatchObject({ health: "green", reasons: [] });
    }
  });

  it("expects Monday's run at 02:00 CEST (00:00Z after the change), late until 03:00 CEST, then red", () => {
    const late = collectorHealth(NIGHTLY, friday, at("2026-03-30T00:30:00Z"));
    expect(late.health).toBe("amber");
    expect(late.reasons[0]).toContain(
      "late: the run expected at 2026-03-30T00:00:00.000Z (0 2 * * 1-5 Europe/Berlin)",
    );
    expect(collectorHealth(NIGHTLY, friday, at("2026-03-30T01:00:00Z")).health).toBe("amber");
    const red = collectorHealth(NIGHTLY, friday, at("2026-03-30T01:00:00Z") + 1);
    expect(red.health).toBe("red");
    expect(red.reasons[0]).toMatch(
      /^stale: no succeeded run since the one expected at 2026-03-30T00:00:00.000Z/,
    );
  });

  it("is green again once Monday's run succeeds, and shows its next expected run", () => {
    const h = collectorHealth(
      NIGHTLY,
      [...friday, success("2026-03-30T00:06:00Z")],
      at("2026-03-30T09:00:00Z"),
    );
    expect(h).toMatchObject({
      health: "green",
      schedule: "0 2 * * 1-5 Europe/Berlin",
      next_expected_run: at("2026-03-31T00:00:00Z"),
    });
  });

  it("across the autumn change expects Monday's run at 02:00 CET (01:00Z), not an hour early", () => {
    // Friday 23 October 2026, 02:05 CEST (00:05Z); the clocks go back on Sunday 25 October at 03:00.
    const runs = [success("2026-10-23T00:05:00Z")];
    expect(collectorHealth(NIGHTLY, runs, at("2026-10-25T12:00:00Z")).health).toBe("green");
    expect(collectorHealth(NIGHTLY, runs, at("2026-10-26T00:30:00Z")).health).toBe("green");
    expect(collectorHealth(NIGHTLY, runs, at("2026-10-26T01:30:00Z")).health).toBe("amber");
    expect(collectorHealth(NIGHTLY, runs, at("2026-10-26T02:00:00Z")).health).toBe("amber");
    expect(collectorHealth(NIGHTLY, runs, at("2026-10-26T02:00:00Z") + 1).health).toBe("red");
  });

  it("would be red over the weekend as a 24 h interval collector: the schedule is what keeps it green", () => {
    const asInterval: CollectorSpec = { ...NIGHTLY, expected_interval_minutes: 1440, schedule: null };
    expect(collectorHealth(asInterval, friday, at("2026-03-29T12:00:00Z")).health).toBe("red");
    expect(collectorHealth(NIGHTLY, friday, at("2026-03-29T12:00:00Z")).health).toBe("green");
  });

  it("is new after its registration until its first expected run plus the grace, then red", () => {
    const fresh: CollectorSpec = { ...NIGHTLY, registered_at: at("2026-03-27T10:00:00Z") };
    const waiting = collectorHealth(fresh, [], at("2026-03-30T00:59:00Z"));
    expect(waiting).toMatchObject({ health: "new", new_until: at("2026-03-30T01:00:00Z") });
    const red = collectorHealth(fresh, [], at("2026-03-30T01:00:00Z") + 1);
    expect(red.health).toBe("red");
    expect(red.reasons[0]).toBe(
      "never ran: no run within its first expected run (0 2 * * 1-5 Europe/Berlin) plus 60 min of its registration",
    );
  });

  it("is listed by the freshness check only once its expected run plus the grace has passed", () => {
    expect(freshnessList([NIGHTLY], friday, at("2026-03-29T12:00:00Z"))).toEqual([]);
    expect(freshnessList([NIGHTLY], friday, at("2026-03-30T01:00:00Z") + 1)).toEqual([
      {
        name: "nightly_backup",
        threshold_minutes: (at("2026-03-30T01:00:00Z") - at("2026-03-27T01:05:00Z")) / 60_000,
        last_run: at("2026-03-27T01:05:00Z"),
        minutes: (at("2026-03-30T01:00:00Z") - at("2026-03-27T01:05:00Z")) / 60_000,
        status: "succeeded",
        error: "",
      },
    ]);
  });
});
