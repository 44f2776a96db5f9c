/**
 * `/system` in a real headless Chromium (playwright-core + Debian's chromium) against the monitor app
 * served by @hono/node-server over a real chDB store. Screenshot: packages/monitor/test-output/.
 */
import { existsSync, mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, hangingStore, MIN, makeApp, openTempStore, runAt, TOKEN, uuid } from "../api/test-support.ts";
import type { ClickHouseRunStore } from "../clickhouse-run-store.ts";

const CHROMIUM = "/usr/lib/chromium/chromium";
const SHOT = fileURLToPath(new URL("../../test-output/system-page.png", import.meta.url));
const DAY = 24 * 60 * MIN;
const NOW = Date.now();

let store: ClickHouseRunStore;
let cleanup: () => Promise<void>;
let faulty: ReturnType<typeof hangingStore>;
let server: ReturnType<typeof serve>;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install it (apt-get install -y chromium; .ci/run does this) to run the /system browser test`,
    );
  }
  const t = await openTempStore("svcmon-page-");
  store = t.store;
  cleanup = t.cleanup;
  faulty = hangingStore(store);
  faulty.hang = false;
  const app = makeApp({ store: faulty, statusTimeoutMs: 1500 });
  const runs = [
    // config_ec2: fresh and green.
    runAt(NOW - 5 * MIN, {
      collector: "config_ec2",
      cloud_account_id: "acc-1",
      events_produced: 42,
      run_id: uuid(70),
    }),
    // config_ebs: failing now, plus failures on earlier days (sparkline).
    ...[3, 2, 1].map((m) =>
      runAt(NOW - m * MIN, {
        collector: "config_ebs",
        cloud_account_id: "acc-1",
        status: "failed",
        error: "AccessDenied: sts:AssumeRole",
        events_produced: 0,
        run_id: uuid(70),
      }),
    ),
    ...[1, 1, 3].map((d) =>
      runAt(NOW - d * DAY, { collector: "config_ebs", status: "failed", error: "timeout", run_id: uuid(70) }),
    ),
    // config_network: stale (last run 3 hours ago).
    runAt(NOW - 180 * MIN, { collector: "config_network", cloud_account_id: "acc-1", run_id: uuid(70) }),
    // hierarchy_builder never ran.
  ];
  expect((await call(app, "POST", "/api/system/runs", { body: runs })).status).toBe(201);
  for (const [id, name, svc_status] of [
    ["acc-1", "Production", "active"],
    ["acc-2", "Staging", "pending_setup"],
    ["acc-3", "Legacy", "no_access"],
  ] as const) {
    const r = await call(app, "PUT", `/api/system/accounts/${id}`, {
      body: { account_name: name, svc_status },
    });
    expect(r.status).toBe(200);
  }
  server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await cleanup?.();
});

async function login(page: Page, token: string): Promise<void> {
  await page.goto(`${base}/system`);
  expect(new URL(page.url()).pathname).toBe("/system/login");
  await page.getByLabel("Monitor token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState("domcontentloaded");
}

describe("/system in headless Chromium", () => {
  it("wrong token → the login page with an error; no session", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await login(page, "wrong-token");
    expect(new URL(page.url()).pathname).toBe("/system/login");
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("Wrong token");
    expect(await ctx.cookies()).toEqual([]);
    await ctx.close();
  });

  it("logs in, renders cards, coverage, DB, queues, alerts; keyboard focus; screenshot", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    const external: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(base)) external.push(r.url());
    });
    const consoleErrors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    await login(page, TOKEN);
    expect(new URL(page.url()).pathname).toBe("/system");

    // Session cookie: HttpOnly, SameSite=Strict, Path=/, not the token.
    const [cookie] = await ctx.cookies();
    expect(cookie).toMatchObject({ name: "svcmon_session", httpOnly: true, sameSite: "Strict", path: "/" });
    expect(cookie?.value).not.toContain(TOKEN);
    expect(cookie?.value).toMatch(/^[0-9a-f]{64}$/);

    // Landmarks and headings.
    await expect.poll(() => page.locator("#collectors article").count()).toBe(4);
    expect(await page.getByRole("main").count()).toBe(1);
    expect(await page.getByRole("banner").count()).toBe(1);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("System status");
    const h2 = await page.getByRole("heading", { level: 2 }).allTextContents();
    expect(h2).toEqual([
      "Collectors",
      "Account coverage",
      "Analytics database",
      "Message queues",
      "Firing alerts",
    ]);
    expect(await page.locator("#live").getAttribute("aria-live")).toBe("polite");

    // Cards: health in words and colour.
    const card = (name: string) =>
      page.locator("article", { has: page.getByRole("heading", { name, exact: true }) });
    expect(await card("config_ec2").locator(".badge").textContent()).toBe("Healthy");
    expect(await card("config_ec2").getAttribute("class")).toContain("green");
    expect(await card("config_ec2").textContent()).toContain("Events42");
    expect(await card("config_ec2").textContent()).toContain("Duration2.0 s");
    expect(await card("config_ebs").locator(".badge").textContent()).toMatch(/Unhealthy|Degraded/);
    expect(await card("config_ebs").textContent()).toContain("AccessDenied: sts:AssumeRole");
    expect(await card("config_network").locator(".badge").textContent()).toBe("Unhealthy");
    expect(await card("hierarchy_builder").textContent()).toContain("never ran");
    const badge = (name: string) =>
      page.evaluate(
        `getComputedStyle(document.querySelector('[aria-labelledby="c-${name}"] .badge')).backgroundColor`,
      );
    expect(await badge("config_ec2")).toBe("rgb(26, 127, 55)");
    expect(await badge("config_network")).toBe("rgb(207, 34, 46)");

    // Sparklines: one per card, each an image with a text alternative.
    const sparks = page.locator("svg.spark");
    expect(await sparks.count()).toBe(4);
    const ebsSpark = await card("config_ebs").locator("svg.spark").getAttribute("aria-label");
    expect(ebsSpark).toMatch(/^Failures of config_ebs over the last 7 days: .*\(total 6\)$/);
    expect(await card("config_ebs").getByRole("img").count()).toBe(1);
    expect(await card("config_ebs").locator("svg.spark title").textContent()).toBe(ebsSpark);

    // Coverage: no_access and pending_setup in red, with words.
    const row = (status: string) =>
      page.locator("#accounts tr", { has: page.getByRole("rowheader", { name: status }) });
    for (const s of ["no_access", "pending_setup"]) {
      expect(await row(s).getAttribute("class")).toBe("attention");
      expect(await row(s).textContent()).toContain("Needs attention");
    }
    expect(
      await page.evaluate(
        "[...document.querySelectorAll('#accounts tr.attention td')].map((td) => getComputedStyle(td).color)",
      ),
    ).toEqual(Array(4).fill("rgb(207, 34, 46)"));
    expect(await row("active").getAttribute("class")).not.toBe("attention");

    // DB, queues, alerts.
    const db = (await page.locator("#db").textContent()) ?? "";
    for (const w of [
      "Disk used",
      "Query latency p50",
      "Query latency p95",
      "Query latency p99",
      "Active queries",
      "Source",
      "client-timings",
    ]) {
      expect(db).toContain(w);
    }
    expect(await page.locator("#queues").textContent()).toBe("No queue configured");
    expect(await page.locator("#alerts").textContent()).toMatch(/^No alerts$|WARNING|CRITICAL/);

    // Keyboard: Tab reaches the skip link, then Refresh, then Log out, with a visible focus ring.
    await page.reload();
    await expect.poll(() => page.locator("#collectors article").count()).toBe(4);
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.id")).toBe("refresh");
    const ring = await page.evaluate(
      "(() => { const s = getComputedStyle(document.activeElement); return { style: s.outlineStyle, width: s.outlineWidth }; })()",
    );
    expect(ring).toEqual({ style: "solid", width: "3px" });
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.id")).toBe("logout");
    await page.keyboard.press("Shift+Tab");

    mkdirSync(fileURLToPath(new URL(".", `file://${SHOT}`)), { recursive: true });
    await page.screenshot({ path: SHOT, fullPage: true });
    expect(existsSync(SHOT)).toBe(true);

    // A status failure keeps the last data and says what failed.
    faulty.hang = true;
    try {
      await page.getByRole("button", { name: "Refresh now" }).click();
      await expect
        .poll(() => page.locator("#problems").textContent(), { timeout: 10_000 })
        .toContain("Analytics database unreachable: showing the last data");
      expect(await page.locator("#collectors article").count()).toBe(4);
      expect(await page.locator("#updated").textContent()).toContain("(stale)");
    } finally {
      faulty.hang = false;
    }
    await page.getByRole("button", { name: "Refresh now" }).click();
    await expect.poll(() => page.locator("#problems").textContent(), { timeout: 10_000 }).toBe("");

    expect(external).toEqual([]);
    expect(consoleErrors.filter((e) => !e.includes("503"))).toEqual([]);

    // The cookie reads /api/system/* but never writes; logout ends the session.
    const cookieHeader = `svcmon_session=${cookie?.value}`;
    expect((await fetch(`${base}/api/system/status`, { headers: { cookie: cookieHeader } })).status).toBe(
      200,
    );
    const put = await fetch(`${base}/api/system/collectors/x`, {
      method: "PUT",
      headers: { cookie: cookieHeader, "content-type": "application/json" },
      body: JSON.stringify({ expected_interval_minutes: 5, freshness_threshold_minutes: 10 }),
    });
    expect(put.status).toBe(401);
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(`${base}/system/login`);
    expect((await fetch(`${base}/api/system/status`, { headers: { cookie: cookieHeader } })).status).toBe(
      401,
    );
    await page.goto(`${base}/system`);
    expect(new URL(page.url()).pathname).toBe("/system/login");
    await ctx.close();
  });

  it("GET /api/system/collectors/failures: bearer-authenticated 7-day counts and latest run", async () => {
    const app = makeApp({ store });
    expect((await call(app, "GET", "/api/system/collectors/failures", { token: null })).status).toBe(401);
    const r = await call(app, "GET", "/api/system/collectors/failures");
    expect(r.status).toBe(200);
    expect(r.body.days).toHaveLength(7);
    const ebs = r.body.collectors.find((c: { name: string }) => c.name === "config_ebs");
    expect(ebs.total).toBe(6);
    expect(ebs.failures.at(-1)).toBe(3);
    expect(ebs.latest_run).toMatchObject({
      status: "failed",
      error: "AccessDenied: sts:AssumeRole",
      duration_ms: 2000,
    });
    const hb = r.body.collectors.find((c: { name: string }) => c.name === "hierarchy_builder");
    expect(hb).toEqual({
      name: "hierarchy_builder",
      failures: [0, 0, 0, 0, 0, 0, 0],
      total: 0,
      latest_run: null,
    });
  });
});
