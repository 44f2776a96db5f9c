/**
 * The quality page's serving-against-shadow and drift views in headless Chromium. The report is
 * built by the real pure functions from synthetic, seeded searches (a serving model, a noisier
 * shadow beside it, a fortnight of drift that sets in on the last days) and parsed with
 * QualityReportSchema, then answered by a stand-in for the admin quality route (the route itself is
 * tested in @relevance/admin). It checks what a person reads: the pair's tiles, both calibration
 * series on one chart, the heat map with its drifted cells, the latest-day bars with the threshold
 * line, "no training profile" in words, and no horizontal scrolling on a phone. With
 * UPDATE_SCREENSHOTS=1 it writes docs/quality-shadow-desktop.png and docs/quality-shadow-phone.png.
 */
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { type ServerType, serve } from "@hono/node-server";
import { FEATURE_SET_V1 } from "@relevance/core";
import {
  type DriftDay,
  MemoryOutcomeStore,
  type ModelDrift,
  type OutcomeEvent,
  type QualityReport,
  QualityReportSchema,
  qualityReport,
  type ServedSearch,
  shadowComparisons,
  uuidV7,
} from "@relevance/outcomes";
import { mulberry32 } from "@shared/kernel";
import { launchChromium } from "@shared/test-support/chromium";
import { Hono } from "hono";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUALITY_PAGE_PATH, qualityPageApp } from "./routes.ts";

const ACCOUNT = "acct_0123456789ab";
const SERVING = `${ACCOUNT}:products:v3`;
const SHADOW = `${ACCOUNT}:products:v4`;
const NOW = Date.parse("2026-11-28T12:00:00Z");
const DAY = 86_400_000;
const DOCS = fileURLToPath(new URL("../../../../docs/", import.meta.url));

async function report(): Promise<QualityReport> {
  const random = mulberry32(11);
  const store = new MemoryOutcomeStore();
  const searches: ServedSearch[] = [];
  const events: OutcomeEvent[] = [];
  for (let i = 0; i < 3000; i++) {
    const at = NOW - Math.floor(random() * 7 * DAY);
    const quality = random();
    const q = Math.floor(random() * 60);
    const s: ServedSearch = {
      queryUid: uuidV7(
        at,
        Uint8Array.from({ length: 10 }, () => Math.floor(random() * 256)),
      ),
      account: ACCOUNT,
      index: "products",
      indexUid: "products",
      modelId: SERVING,
      score: Math.min(10, Math.max(0, quality * 10 + (random() - 0.5) * 2)),
      features: FEATURE_SET_V1.map(() => random()),
      query: `query ${q}`,
      queryKey: `query ${q}`,
      hitIds: [],
      estimatedTotalHits: 10,
      latencyMs: 3,
      servedAt: at,
      userHash: null,
      shadowModelId: SHADOW,
      shadowScore: Math.min(10, Math.max(0, quality * 10 + (random() - 0.5) * 5)),
    };
    searches.push(s);
    if (random() < quality * 0.9)
      events.push({
        account: ACCOUNT,
        index: "products",
        queryUid: s.queryUid,
        eventType: "click",
        eventName: "Search Result Clicked",
        objectId: "1",
        objectName: null,
        position: 0,
        userHash: `u${i}`,
        receivedAt: at + 1000,
      });
  }
  await store.recordSearches(searches);
  await store.recordEvents(events);
  const query = {
    account: ACCOUNT,
    index: "products",
    since: NOW - 14 * DAY,
    until: NOW,
    minImpressions: 5,
    maxQueries: 5000,
  };
  const paired = await store.shadowComparison({ ...query, maxSamples: 10_000 });
  const days: DriftDay[] = Array.from({ length: 14 }, (_, d) => {
    const day = new Date(NOW - (13 - d) * DAY).toISOString().slice(0, 10);
    const late = d >= 11;
    const cell = (base: number, n = 420) =>
      base > 0.2
        ? { status: "ok" as const, psi: base, n, drifted: true }
        : { status: "ok" as const, psi: base, n, drifted: false };
    return {
      day,
      score:
        d === 4
          ? { status: "too_little_data" as const, n: 61, needed: 100 }
          : cell(late ? 0.34 : 0.02 + d * 0.002),
      features: FEATURE_SET_V1.map((feature, f) => ({
        feature,
        result:
          feature === "avg_tag_count"
            ? { status: "not_profiled" as const, reason: "the profile has no distribution for avg_tag_count" }
            : d === 4
              ? { status: "too_little_data" as const, n: 61, needed: 100 }
              : cell(late && f < 3 ? 0.45 + f * 0.3 : 0.01 + ((d * 7 + f * 3) % 10) / 100),
      })),
    };
  });
  const drift: ModelDrift[] = [
    { modelId: SERVING, status: "ok", threshold: 0.2, profileRows: 2000, days },
    {
      modelId: `${ACCOUNT}:products:v2`,
      status: "no_profile",
      reason: "its artifact carries no training profile (export it with --profile-rows)",
    },
  ];
  return QualityReportSchema.parse(
    qualityReport(query, await store.quality(query), new Date(NOW), {
      comparisons: shadowComparisons(paired),
      drift,
    }),
  );
}

let browser: Browser;
let server: ServerType;
let base: string;

beforeAll(async () => {
  const body = await report();
  const app = new Hono();
  app.route("/", qualityPageApp());
  app.get("/api/v1/admin/accounts/:account/indexes/:index/quality", (c) => c.json(body));
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

async function open(width: number): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${base}${QUALITY_PAGE_PATH}?account=${ACCOUNT}&index=products&since=14d`);
  await page.fill("#q-token", "any-token-the-stand-in-route-takes");
  await page.click("button[type=submit]");
  await page.waitForSelector("section.drift");
  return page;
}

describe("the quality page's shadow and drift views", () => {
  it("shows serving against shadow: paired searches, agreement, both AUCs and both calibration series", async () => {
    const page = await open(1280);
    try {
      const section = page.locator("section.comparison");
      expect(await section.count()).toBe(1);
      expect(await section.locator("h2").textContent()).toBe(`Serving ${SERVING} against shadow ${SHADOW}`);
      const tile = (name: string) => section.locator(`.tile[data-metric="${name}"]`);
      expect(await tile("Paired searches").locator(".tile-value").textContent()).toBe("3,000");
      expect(await tile("Paired searches").locator(".tile-detail").textContent()).toMatch(
        /^[\d,]+ with a click$/,
      );
      expect(await tile("Score agreement ρ").locator(".tile-value").textContent()).toMatch(/^0\.\d{3}$/);
      expect(await tile("AUC, serving").locator(".tile-value").textContent()).toMatch(/^0\.\d{3}$/);
      expect(await tile("AUC, shadow").locator(".tile-detail").textContent()).toContain(SHADOW);
      const chart = section.locator("svg.overlay");
      expect(await chart.getAttribute("aria-label")).toContain("on the same searches");
      expect(await chart.locator("g.decile.serving").count()).toBe(10);
      expect(await chart.locator("g.decile.shadow").count()).toBe(10);
      // The shadow's own score distribution per day over the paired searches: 8 days of bars.
      const shadowDays = section.locator("svg.chart").nth(1);
      expect(await shadowDays.getAttribute("aria-label")).toBe(`Searches per day by score, model ${SHADOW}`);
      expect(await shadowDays.locator("rect").count()).toBeGreaterThanOrEqual(8);
      // The comparison comes before the per-model sections, drift after them.
      const order = await page
        .locator("main#report > section")
        .evaluateAll((els) => els.map((e) => e.className));
      expect(order[0]).toBe("comparison");
      expect(order.at(-1)).toBe("drift");
      if (process.env.UPDATE_SCREENSHOTS === "1")
        await page.screenshot({ path: `${DOCS}quality-shadow-desktop.png`, fullPage: true });
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it("shows drift per feature and day with the drifted cells, the threshold line, and a model without a profile", async () => {
    const page = await open(1280);
    try {
      const [profiled, unprofiled] = [
        page.locator("section.drift").nth(0),
        page.locator("section.drift").nth(1),
      ];
      expect(await profiled.locator("p.alert").textContent()).toMatch(
        /^4 of the distributions drifted on 2026-11-28 \(PSI above 0\.2\)\.$/,
      );
      const heat = profiled.locator("svg.heat");
      // score + nine features, fourteen days.
      expect(await heat.locator("rect.cell").count()).toBe(10 * 14);
      expect(await heat.locator("rect.cell.drifted").count()).toBe(3 * 4);
      expect(await heat.locator("rect.cell.too_little_data").count()).toBe(9);
      expect(await heat.locator("rect.cell.not_profiled").count()).toBe(14);
      const bars = profiled.locator("svg.bars");
      expect(await bars.locator("line.threshold").count()).toBe(1);
      expect(await bars.locator("text.threshold-label").textContent()).toBe("threshold 0.2");
      expect(await bars.locator("rect.bar.drifted").count()).toBe(4);
      expect(await unprofiled.locator("p.no-profile").textContent()).toBe(
        "No training profile: its artifact carries no training profile (export it with --profile-rows).",
      );
    } finally {
      await page.context().close();
    }
  }, 60_000);

  it("fits a phone: no horizontal scrolling with the comparison and the heat map", async () => {
    const page = await open(390);
    try {
      const width = await page.evaluate<number>("document.documentElement.scrollWidth");
      expect(width).toBeLessThanOrEqual(390);
      if (process.env.UPDATE_SCREENSHOTS === "1")
        await page.screenshot({ path: `${DOCS}quality-shadow-phone.png`, fullPage: true });
    } finally {
      await page.context().close();
    }
  }, 60_000);
});
