// A shop's storefront on its own origin (InstantSearch with instant-meilisearch, as the front-end
// developer's guide in the README writes it) runs against `npm start` in headless Chromium with a
// search-only key: search, facet refinement, facet search, paging and sort work; the same key
// cannot write (403, readable by the page); a revoked key fails with 401.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "@shared/test-support/chromium";
import { type ServedStorefront, serveStorefront, storefrontPage } from "@testing/storefront";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type RunningStack, spawnStack } from "./test-support.ts";

let stack: RunningStack;
let store: ServedStorefront;
let browser: Browser;
let adminKey: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "storefront-"));
  stack = await spawnStack({ DATA_DIR: dataDir, DEMO: "1" });
  const ready = await stack.waitFor((l) => l.message === "demo data ready", 60_000);
  adminKey = ready.apiKey as string;
  store = await serveStorefront();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await store?.close();
  await stack?.kill("SIGTERM");
});

const admin = () => ({ "x-api-key": adminKey });

async function newSearchKey(): Promise<{ key: string; uid: string }> {
  const res = await call(
    stack.url,
    "POST",
    "/api/v1/keys",
    { name: "storefront", actions: ["search"], indexes: ["products"], expiresAt: null },
    admin(),
  );
  expect(res.status).toBe(201);
  return { key: res.body.key as string, uid: res.body.uid as string };
}

describe("an InstantSearch storefront on another origin against npm start", () => {
  it("searches, refines, searches facets, pages and sorts with the demo's search key", async () => {
    // The key the README's front-end path takes: `searchApiKey` in demo.json.
    const key = JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8")).searchApiKey as string;
    expect(key).toMatch(/^rk_/);
    const page = await browser.newPage();
    const shop = storefrontPage(page);
    const host = `${stack.url}/api/v1`;
    expect(new URL(store.origin).origin).not.toBe(new URL(stack.url).origin);
    await shop.open(store.pageUrl({ host, apiKey: key, index: "products" }));
    expect(await shop.errors()).toEqual([]);
    expect(await shop.titles()).toHaveLength(5);

    expect(await shop.type("chair")).not.toContain(401);
    const titles = await shop.titles();
    expect(titles.length).toBeGreaterThan(0);

    const [category] = await shop.listedCategories();
    expect(category).toBeDefined();
    const statuses = await shop.refine(category as string);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await shop.refined()).toEqual([category]);
    expect(new Set(await shop.categories())).toEqual(new Set([category]));

    // The refinement list's own search box: a facet search.
    const facets = await shop.searchCategories((category as string).slice(0, 3));
    expect(facets.statuses.every((s) => s === 200)).toBe(true);
    expect(facets.values).toContain(category);

    // Pages and sort of the refined results.
    const first = await shop.titles();
    expect((await shop.goToPage(2)).every((s) => s === 200)).toBe(true);
    const second = await shop.titles();
    expect(second).toHaveLength(5);
    expect(second).not.toEqual(first);

    expect((await shop.sortBy("products:price:asc")).every((s) => s === 200)).toBe(true);
    const prices = await shop.prices();
    expect(prices.length).toBeGreaterThan(1);
    expect(new Set(await shop.categories())).toEqual(new Set([category]));
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(await shop.errors()).toEqual([]);
    await page.close();
  }, 120_000);

  it("answers a write with the search key 403, which the page can read, and writes nothing", async () => {
    const { key } = await newSearchKey();
    const page = await browser.newPage();
    const shop = storefrontPage(page);
    const host = `${stack.url}/api/v1`;
    await shop.open(store.pageUrl({ host, apiKey: key, index: "products" }));
    const before = await call(stack.url, "GET", "/api/v1/indexes/products/stats", undefined, admin());
    const status = await shop.fetchStatus(`${host}/indexes/products/documents`, {
      method: "POST",
      apiKey: key,
      body: [{ id: "written-from-the-page", title: "should not exist" }],
    });
    expect(status).toBe(403);
    const after = await call(stack.url, "GET", "/api/v1/indexes/products/stats", undefined, admin());
    expect(after.body.numberOfDocuments).toBe(before.body.numberOfDocuments);
    await page.close();
  }, 60_000);

  it("fails with 401 once the key is revoked", async () => {
    const { key, uid } = await newSearchKey();
    const page = await browser.newPage();
    const shop = storefrontPage(page);
    await shop.open(store.pageUrl({ host: `${stack.url}/api/v1`, apiKey: key, index: "products" }));
    expect(await shop.errors()).toEqual([]);
    const revoked = await call(stack.url, "DELETE", `/api/v1/keys/${uid}`, undefined, admin());
    expect(revoked.status).toBe(204);
    // The edge reads the key's KV copy; the exporter removes it within moments.
    let statuses: number[] = [];
    for (let i = 0; i < 50 && !statuses.includes(401); i++) statuses = await shop.type(`sofa ${i}`);
    expect(statuses).toContain(401);
    expect((await shop.errors()).length).toBeGreaterThan(0);
    await page.close();
  }, 60_000);
});
