/**
 * The search team's quality page on npm start's stack (startStack: the admin API over the stack's
 * chDB outcome store, the page beside it) with recorded data: two weeks of a shop's scored searches
 * and its shoppers' clicks and conversions written to the store, then the page in headless Chromium
 * showing what the store's aggregation and the report make of them. The in-process page test
 * (packages/relevance/quality-page/src/page.browser.test.ts) covers the page's states; this
 * one proves the whole path and writes the documentation's screenshots with UPDATE_SCREENSHOTS=1
 * (docs/quality-desktop.png at 1280 px, docs/quality-phone.png at 390 px).
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FEATURE_SET_V1 } from "@relevance/core";
import { newQueryUid, type OutcomeEvent, type ServedSearch } from "@relevance/outcomes";
import type { Logger } from "@relevance/settings";
import { mulberry32 as prng } from "@shared/kernel";
import { launchChromium } from "@shared/test-support/chromium";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN } from "./test-support.ts";

const UPDATE = process.env.UPDATE_SCREENSHOTS === "1";
const DOCS = fileURLToPath(new URL("../../../docs/", import.meta.url));
const quiet: Logger = { info() {}, warn() {}, error() {} };
const DAY = 86_400_000;

let stack: Stack;
let browser: Browser;
let account: string;

/**
 * A shop's two weeks: 60 queries of model v3, each with its own quality (the score tracks it with
 * noise; shoppers click with probability 0.1 + 0.7 × quality and buy a tenth of what they click);
 * model v4 was rolled out for a day and served 6 searches.
 */
function shopWeeks(now: number): { searches: ServedSearch[]; events: OutcomeEvent[] } {
  const random = prng(26);
  const searches: ServedSearch[] = [];
  const events: OutcomeEvent[] = [];
  const served = (modelId: string, query: string, score: number, at: number): ServedSearch => ({
    queryUid: newQueryUid(at),
    account,
    index: "products",
    indexUid: "products",
    modelId,
    score,
    features: FEATURE_SET_V1.map(() => 0),
    query,
    queryKey: query,
    hitIds: ["1", "2", "3"],
    estimatedTotalHits: 3,
    latencyMs: 4,
    servedAt: at,
    userHash: null,
  });
  const event = (s: ServedSearch, eventType: "click" | "conversion", user: string): OutcomeEvent => ({
    account,
    index: "products",
    queryUid: s.queryUid,
    eventType,
    eventName: eventType === "click" ? "Product clicked" : "Product purchased",
    objectId: "1",
    objectName: null,
    position: 0,
    userHash: user,
    receivedAt: s.servedAt + 5_000,
  });
  for (let q = 0; q < 60; q++) {
    const quality = random();
    const searchesOfQuery = 8 + Math.floor(random() * 40);
    for (let i = 0; i < searchesOfQuery; i++) {
      const score = Math.min(10, Math.max(0, quality * 10 + (random() - 0.5) * 3));
      const s = served(`${account}:products:v3`, `query ${q}`, score, now - 1 * DAY - random() * 13 * DAY);
      searches.push(s);
      if (random() < 0.1 + 0.7 * quality) {
        events.push(event(s, "click", `shopper-${q}-${i}`));
        if (random() < 0.1) events.push(event(s, "conversion", `shopper-${q}-${i}`));
      }
    }
  }
  for (let i = 0; i < 6; i++) {
    searches.push(served(`${account}:products:v4`, `query ${i}`, 6 + i / 2, now - random() * DAY));
  }
  return { searches, events };
}

beforeAll(async () => {
  stack = await startStack(
    configFrom({
      PORT: "0",
      DATA_DIR: mkdtempSync(join(tmpdir(), "quality-page-")),
      ADMIN_TOKEN,
      MONITOR_TOKEN,
      DEMO: "0",
    }),
    quiet,
  );
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
  const created = (await fetch(`${stack.url}/api/v1/admin/accounts`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ name: "Shop" }),
  }).then((r) => r.json())) as { systemAccountId: string; apiKey: string };
  account = created.systemAccountId;
  await fetch(`${stack.url}/api/v1/indexes`, {
    method: "POST",
    headers: { "x-api-key": created.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ name: "products" }),
  });
  const { searches, events } = shopWeeks(Date.now());
  await stack.outcomes.recordSearches(searches);
  await stack.outcomes.recordEvents(events);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function open(width: number): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${stack.url}/relevance/quality?account=${account}&index=products&since=14d`);
  await page.fill("#q-token", ADMIN_TOKEN);
  await page.click("button[type=submit]");
  await page.waitForSelector("section.model");
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  if (!UPDATE) return;
  mkdirSync(DOCS, { recursive: true });
  await page.screenshot({ path: join(DOCS, name), fullPage: true });
}

describe("the quality page on npm start's stack with recorded searches and events", () => {
  it("shows the busy model's numbers with n and intervals, and too little data for the new one", async () => {
    const page = await open(1280);
    try {
      const models = page.locator("section.model");
      expect(await models.count()).toBe(2);
      const v3 = models.nth(0);
      expect(await v3.getAttribute("data-model")).toBe(`${account}:products:v3`);
      const detail = (name: string) => v3.locator(`.tile[data-metric="${name}"] .tile-detail`).textContent();
      // Every query has at least 8 searches (minImpressions 5): all 60 count for τ and ρ.
      expect(await detail("Kendall τ-b")).toMatch(/^n = 60 queries · 95 % \[0\.\d{3}, 0\.\d{3}\]$/);
      expect(await detail("Spearman ρ")).toMatch(/^n = 60 queries · 95 % \[/);
      expect(await detail("AUC (no-click searches)")).toMatch(/^n = [\d,]+ clicked, [\d,]+ not · 95 % \[/);
      // Shoppers click more on better results and the score tracks them: a clearly positive τ.
      const tau = Number(await v3.locator('.tile[data-metric="Kendall τ-b"] .tile-value').textContent());
      expect(tau).toBeGreaterThan(0.3);
      expect(await v3.locator("table.calibration tbody tr").count()).toBe(10);
      expect(await v3.locator("svg.chart").nth(0).locator("rect").count()).toBeGreaterThan(50);
      const v4 = models.nth(1);
      expect(await v4.locator(".tile.few").count()).toBe(3);
      expect(await v4.locator('[data-metric="calibration"]').textContent()).toBe(
        "Too little data: 6 searches; calibration needs 100.",
      );
      await shot(page, "quality-desktop.png");
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it("fits a phone without horizontal scrolling", async () => {
    const page = await open(390);
    try {
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
      await shot(page, "quality-phone.png");
    } finally {
      await page.context().close();
    }
  }, 60_000);
});
