/**
 * The maintenance routes: create (201, the window with what it means now), list (active, next start),
 * end (DELETE), and the bounds (422 naming the field, nothing stored).
 */
import { InMemoryMaintenanceStore, InMemoryRunStore, MAINTENANCE_MAX_LIVE } from "@monitor/core";
import { describe, expect, it } from "vitest";
import { call, MIN, makeApp } from "./test-support.ts";

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0); // a Saturday
const H = 60 * MIN;

function setup() {
  const clock = { now: NOW };
  const maintenance = new InMemoryMaintenanceStore();
  const app = makeApp({ store: new InMemoryRunStore(), now: () => clock.now, maintenance });
  return { clock, maintenance, app };
}

describe("/api/system/maintenance", () => {
  it("creates a one-off window (201), lists it active, ends it (DELETE), and it is then over", async () => {
    const { clock, app } = setup();
    const created = await call(app, "POST", "/api/system/maintenance", {
      body: { scope: { collectors: ["config_ec2"] }, author: "ann", reason: "upgrade", ends_at: NOW + 2 * H },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      scope: { collectors: ["config_ec2"] },
      kind: "once",
      active: true,
      state: "active",
      starts_at: new Date(NOW).toISOString(),
      ends_at: new Date(NOW + 2 * H).toISOString(),
      next_start: null,
    });
    clock.now = NOW + H;
    const listed = await call(app, "GET", "/api/system/maintenance");
    expect(listed.body.maintenance.map((w: { id: string }) => w.id)).toEqual([created.body.id]);
    const ended = await call(app, "DELETE", `/api/system/maintenance/${created.body.id}`);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({
      active: false,
      state: "over",
      ended_at: new Date(NOW + H).toISOString(),
    });
    expect((await call(app, "GET", "/api/system/maintenance")).body.maintenance).toEqual([]);
    expect((await call(app, "GET", "/api/system/maintenance?all=true")).body.maintenance).toHaveLength(1);
    expect((await call(app, "DELETE", "/api/system/maintenance/nope")).status).toBe(404);
  });

  it("a recurring window is listed with its next occurrence, computed in its time zone", async () => {
    const { app } = setup();
    const created = await call(app, "POST", "/api/system/maintenance", {
      body: {
        scope: { all: true },
        author: "ann",
        reason: "patching",
        schedule: "0 2 * * 0",
        timezone: "Europe/Berlin",
        duration_minutes: 120,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: "recurring",
      active: false,
      state: "pending",
      starts_at: "2026-11-29T01:00:00.000Z",
      ends_at: "2026-11-29T03:00:00.000Z",
      next_start: "2026-11-29T01:00:00.000Z",
    });
  });

  it("refuses invalid windows with 422 naming the field, storing nothing, and beyond the live bound", async () => {
    const { maintenance, app } = setup();
    const bad = await call(app, "POST", "/api/system/maintenance", {
      body: {
        scope: { all: true },
        author: "ann",
        reason: "r",
        schedule: "0 2 * * 0",
        duration_minutes: 1441,
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(["duration_minutes"]);
    const far = await call(app, "POST", "/api/system/maintenance", {
      body: { scope: { accounts: ["111111111111"] }, author: "ann", reason: "r", ends_at: NOW + 31 * 24 * H },
    });
    expect(far.body.error.details.map((d: { path: string }) => d.path)).toEqual(["ends_at"]);
    expect(await maintenance.list()).toEqual([]);
    for (let i = 0; i < MAINTENANCE_MAX_LIVE; i++)
      await maintenance.create({
        id: `w${i}`,
        scope: { all: true },
        author: "a",
        reason: "r",
        createdAt: NOW,
        timing: { kind: "once", startsAt: NOW, endsAt: NOW + H },
        endedAt: null,
      });
    const full = await call(app, "POST", "/api/system/maintenance", {
      body: { scope: { all: true }, author: "ann", reason: "r", ends_at: NOW + H },
    });
    expect(full.status).toBe(422);
    expect(await maintenance.list()).toHaveLength(MAINTENANCE_MAX_LIVE);
  });
});
