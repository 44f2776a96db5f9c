// The maintenance a timeline shows: each occurrence in its span of the windows that cover its subject
// (a weekly window three times in three weeks), none of another collector's.
import { InMemoryMaintenanceStore, type MaintenanceWindow } from "@monitor/core";
import { describe, expect, it } from "vitest";
import { maintenanceOccurrences } from "./timeline-read.ts";

const DAY = 24 * 3600 * 1000;
const at = (iso: string) => Date.parse(iso);
const window = (
  id: string,
  scope: MaintenanceWindow["scope"],
  timing: MaintenanceWindow["timing"],
): MaintenanceWindow => ({
  id,
  scope,
  author: "ops",
  reason: `${id} work`,
  createdAt: at("2026-10-01T00:00:00Z"),
  timing,
  endedAt: null,
});

describe("maintenanceOccurrences", () => {
  it("lists each occurrence in the span of the windows covering the collector or the alert", async () => {
    const store = new InMemoryMaintenanceStore();
    await store.create(
      window(
        "weekly",
        { collectors: ["nightly_backup"] },
        {
          kind: "recurring",
          schedule: "0 1 * * 0",
          timezone: "Europe/Berlin",
          durationMinutes: 120,
        },
      ),
    );
    await store.create(
      window(
        "other",
        { collectors: ["config_ec2"] },
        { kind: "once", startsAt: at("2026-11-03T00:00:00Z"), endsAt: at("2026-11-03T02:00:00Z") },
      ),
    );
    await store.create(
      window(
        "all",
        { all: true },
        { kind: "once", startsAt: at("2026-11-10T00:00:00Z"), endsAt: at("2026-11-10T01:00:00Z") },
      ),
    );
    const read = maintenanceOccurrences(store);
    const since = at("2026-11-01T12:00:00Z");
    const got = await read({
      about: { collector: "nightly_backup" },
      since,
      until: since + 21 * DAY,
      limit: 200,
    });
    const byStart = [...got].sort((a, b) => a.start - b.start);
    expect(
      byStart.map((o) => [o.id, new Date(o.start).toISOString(), (o.end - o.start) / 3_600_000]),
    ).toEqual([
      ["weekly", "2026-11-08T00:00:00.000Z", 2],
      ["all", "2026-11-10T00:00:00.000Z", 1],
      ["weekly", "2026-11-15T00:00:00.000Z", 2],
      ["weekly", "2026-11-22T00:00:00.000Z", 2],
    ]);
    const alert = await read({
      about: { rule: "collector_stale", subject: "config_ec2" },
      since,
      until: since + 21 * DAY,
      limit: 200,
    });
    expect(alert.map((o) => o.id).sort()).toEqual(["all", "other"]);
  });
});
