/**
 * The /system page's maintenance section over `app.request`: the windows not over are listed (the
 * one in effect as "In maintenance", with the collector's alerts shown so), and the End button ends
 * one through `POST /system/maintenance/{id}/end` under the session, its CSRF token and this origin.
 */
import {
  InMemoryCollectorRegistry,
  InMemoryMaintenanceStore,
  InMemoryRunStore,
  InMemorySilenceStore,
  type MaintenanceWindow,
} from "@monitor/core";
import { describe, expect, it } from "vitest";
import { makeApp, TOKEN } from "../test-support.ts";

const ORIGIN = "http://monitor.internal";
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const H = 3_600_000;

function world() {
  const clock = { now: NOW };
  const maintenance = new InMemoryMaintenanceStore();
  const app = makeApp({
    store: new InMemoryRunStore(),
    registry: new InMemoryCollectorRegistry([
      { name: "config_ec2", expected_interval_minutes: 15, freshness_threshold_minutes: 30 },
    ]),
    silences: new InMemorySilenceStore(),
    maintenance,
    sessionKeys: ["k".repeat(40)],
    now: () => clock.now,
  });
  return { clock, maintenance, app };
}

const window = (id: string, over: Partial<MaintenanceWindow> = {}): MaintenanceWindow => ({
  id,
  scope: { collectors: ["config_ec2"] },
  author: "ann",
  reason: "database upgrade",
  createdAt: NOW - H,
  timing: { kind: "once", startsAt: NOW - H, endsAt: NOW + H },
  endedAt: null,
  ...over,
});

async function session(app: ReturnType<typeof world>["app"]) {
  const login = await app.request(`${ORIGIN}/system/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: TOKEN }).toString(),
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await app.request(`${ORIGIN}/system`, { headers: { cookie } });
  const html = await page.text();
  const state = JSON.parse(
    /<script type="application\/json" id="page-state">(.*?)<\/script>/s.exec(html)?.[1] ?? "{}",
  );
  return { cookie, csrf: state.csrf as string, html };
}

describe("/system maintenance section", () => {
  it("lists the active window (In maintenance) and the next one of a recurring window, each with an End button", async () => {
    const w = world();
    await w.maintenance.create(window("mw-active"));
    await w.maintenance.create(
      window("mw-weekly", {
        scope: { all: true },
        timing: { kind: "recurring", schedule: "0 2 * * 0", timezone: "Europe/Berlin", durationMinutes: 120 },
      }),
    );
    const { html } = await session(w.app);
    expect(html).toContain('id="h-maintenance"');
    const active = /<li id="maintenance-mw-active"[^>]*>(.*?)<\/li>/s.exec(html)?.[1] ?? "";
    expect(active).toContain("In maintenance");
    expect(active).toContain("collectors config_ec2");
    expect(active).toContain('action="/system/maintenance/mw-active/end"');
    // The card of the collector in scope says so too.
    const card =
      /<article class="card [a-z]+"[^>]*id="collector-config_ec2">(.*?)<\/article>/s.exec(html)?.[1] ?? "";
    expect(card).toContain("In maintenance");
    const weekly = /<li id="maintenance-mw-weekly"[^>]*>(.*?)<\/li>/s.exec(html)?.[1] ?? "";
    expect(weekly).toContain("Next");
    expect(weekly).toContain("0 2 * * 0 Europe/Berlin");
  });

  it("End: with the session, its CSRF token and this origin the window ends now (303 back); without the token nothing changes", async () => {
    const w = world();
    await w.maintenance.create(window("mw-1"));
    const { cookie, csrf } = await session(w.app);
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      w.app.request(`${ORIGIN}/system/maintenance/mw-1/end`, {
        method: "POST",
        headers: { cookie, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(body).toString(),
      });
    expect((await post({ csrf: `${csrf}x` })).status).toBe(403);
    expect((await post({ csrf }, { origin: "http://evil.example" })).status).toBe(403);
    expect((await w.maintenance.list())[0]?.endedAt).toBeNull();
    w.clock.now = NOW + 10 * 60_000;
    const ended = await post({ csrf });
    expect(ended.status).toBe(303);
    expect(ended.headers.get("location")).toBe("/system#h-maintenance");
    expect((await w.maintenance.list())[0]?.endedAt).toBe(NOW + 10 * 60_000);
    const missing = await w.app.request(`${ORIGIN}/system/maintenance/nope/end`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(missing.status).toBe(404);
  });
});
