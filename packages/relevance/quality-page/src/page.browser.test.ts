/**
 * The quality page in headless Chromium against the admin API with recorded data (the outcome store
 * behind its port answering two models: one with a week of searches, one with eight): what it shows
 * per model (tiles with n and intervals, the histogram and calibration charts, the calibration
 * table, "too little data"), that the token never reaches the URL, an error line for a wrong token,
 * and the layout at 1280 and 390 px (no horizontal scrolling on a phone).
 * The documentation's screenshots come from the same page on npm start's stack
 * (apps/local/src/quality-page.browser.test.ts).
 */
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { ADMIN_TOKEN, makeHarness } from "@relevance/admin/test-support";
import { fixedQualityStore, syntheticQualityInputs } from "@relevance/outcomes/test-support/quality-inputs";
import { launchChromium } from "@shared/test-support/chromium";
import { Hono } from "hono";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUALITY_PAGE_PATH, qualityPageApp } from "./routes.ts";

let browser: Browser;
let server: ServerType;
let base: string;
let account: string;

beforeAll(async () => {
  const inputs = syntheticQualityInputs({
    modelId: "acct:products:v3",
    queries: 180,
    searchesPerBin: 4,
    firstDay: "2026-11-15",
  });
  inputs.bins.push(
    { modelId: "acct:products:v4", bin: 610, searches: 5, clicked: 2, converted: 1 },
    { modelId: "acct:products:v4", bin: 720, searches: 3, clicked: 1, converted: 0 },
  );
  inputs.daily.push({ modelId: "acct:products:v4", day: "2026-11-20", bin: 6, searches: 5 });
  inputs.daily.push({ modelId: "acct:products:v4", day: "2026-11-20", bin: 7, searches: 3 });
  const fixed = fixedQualityStore({
    ...inputs,
    events: { attributed: 2212, unattributed: 14, duplicates: 9 },
  });
  const h = makeHarness({ outcomes: fixed.store });
  ({ systemAccountId: account } = await h.account().then(async (a) => {
    await h.index(a.apiKey, "products");
    return a;
  }));
  const app = new Hono();
  app.route("/", qualityPageApp());
  app.route("/", h.app);
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

async function open(width: number, token = ADMIN_TOKEN): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${base}${QUALITY_PAGE_PATH}?account=${account}&index=products&since=7d`);
  await page.fill("#q-token", token);
  await page.click("button[type=submit]");
  return page;
}

describe("the quality page", () => {
  it("shows each model's searches, τ, ρ and AUC with n and intervals, both charts and the calibration table", async () => {
    const page = await open(1280);
    try {
      await page.waitForSelector("section.model");
      const models = page.locator("section.model");
      expect(await models.count()).toBe(2);
      const first = models.nth(0);
      expect(await first.getAttribute("data-model")).toBe("acct:products:v3");
      const tile = (name: string) => first.locator(`.tile[data-metric="${name}"]`);
      expect(await tile("Searches served").locator(".tile-value").textContent()).toBe("4,004");
      expect(await tile("Kendall τ-b").locator(".tile-value").textContent()).toMatch(/^0\.\d{3}$/);
      expect(await tile("Kendall τ-b").locator(".tile-detail").textContent()).toMatch(
        /^n = 180 queries · 95 % \[0\.\d{3}, 0\.\d{3}\]$/,
      );
      expect(await tile("Spearman ρ").locator(".tile-detail").textContent()).toMatch(/^n = 180 queries/);
      expect(await tile("AUC (no-click searches)").locator(".tile-detail").textContent()).toMatch(
        /^n = [\d,]+ clicked, [\d,]+ not · 95 % \[0\.\d{3}, 0\.\d{3}\]$/,
      );
      // Seven days of stacked bars and ten deciles with whiskers.
      const charts = first.locator("svg.chart");
      expect(await charts.count()).toBe(2);
      expect(await charts.nth(0).locator("rect").count()).toBe(70);
      expect(await charts.nth(1).locator("g.decile").count()).toBe(10);
      expect(await first.locator("table.calibration tbody tr").count()).toBe(10);
      expect(await page.locator(".scope").nth(1).textContent()).toBe(
        "Events: 2,212 attributed, 14 unattributed, 9 duplicates.",
      );
      // The second model has eight searches: each metric says it has too little data, and why.
      const second = models.nth(1);
      expect(await second.locator(".tile.few").count()).toBe(3);
      expect(await second.locator('[data-metric="calibration"]').textContent()).toBe(
        "Too little data: 8 searches; calibration needs 100.",
      );
      expect(await second.locator(".tile.few").first().locator(".tile-value").textContent()).toBe(
        "too little data",
      );
      // The account and range are in the URL to share; the token is not.
      expect(page.url()).toContain(`account=${account}`);
      expect(page.url()).not.toContain(ADMIN_TOKEN);
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it("fits a phone: one column, no horizontal scrolling", async () => {
    const page = await open(390);
    try {
      await page.waitForSelector("section.model");
      const width = await page.evaluate<number>("document.documentElement.scrollWidth");
      expect(width).toBeLessThanOrEqual(390);
      const tiles = await page
        .locator("section.model")
        .first()
        .locator(".tile")
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().left));
      expect(new Set(tiles.map(Math.round)).size).toBeLessThanOrEqual(2);
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it("says so when the admin API refuses the token, and shows no report", async () => {
    const page = await open(1280, "wrong-token-wrong-token-0000");
    try {
      await page.waitForSelector('#status[data-kind="error"]');
      expect(await page.locator("#status").textContent()).toMatch(/^401: /);
      expect(await page.locator("section.model").count()).toBe(0);
    } finally {
      await page.context().close();
    }
  }, 60_000);
});
