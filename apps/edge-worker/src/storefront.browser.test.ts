// The shop's InstantSearch storefront (@testing/storefront) on its own origin against the Worker
// bundle in real workerd (Miniflare, listening on a local port), with a search-only key in KV and a
// LOCAL DOUBLE of Meilisearch holding the catalogue: search, facet refinement, facet search, paging
// and sort work; a write with the key is refused by the Worker; a revoked key fails with 401.

import { MeilisearchIndexManager } from "@relevance/search/meilisearch";
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "@relevance/search/meilisearch/test-support";
import { putApiKey, putSettings } from "@relevance/search/test-support";
import { apiKeyCopyKey, apiKeyHash } from "@relevance/settings";
import type { WorkersKv } from "@relevance/settings/workers-kv";
import { launchChromium } from "@shared/test-support/chromium";
import { type ServedStorefront, serveStorefront, storefrontPage } from "@testing/storefront";
import type { Miniflare } from "miniflare";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, startWorker } from "./test-support.ts";

const ACCOUNT = "acct_0123456789ab";
const SEARCH_KEY = "rk_storefront_search_key";
const CATEGORIES = ["Garden", "Home", "Kitchen", "Toys"];
// The Worker serves search only: a write route is not there at all (the JSON 404), for any key.
const WRITE_STATUS = 404;
const NOUNS = ["chair", "table", "lamp", "shelf", "rug"];

/** 60 products: every noun in every category, prices spread so that sorting shows. */
const PRODUCTS = Array.from({ length: 60 }, (_, i) => ({
  id: `p${String(i).padStart(3, "0")}`,
  title: `${["Oak", "Steel", "Linen"][i % 3]} ${NOUNS[i % NOUNS.length]}`,
  category: CATEGORIES[i % CATEGORIES.length],
  price: ((i * 37) % 100) + 0.99,
}));

let mf: Miniflare;
let kv: WorkersKv;
let meili: MeilisearchDouble;
let workerUrl: string;
let store: ServedStorefront;
let browser: Browser;

beforeAll(async () => {
  meili = await startMeilisearchDouble();
  const manager = new MeilisearchIndexManager({ url: meili.url, apiKey: MASTER_KEY });
  const uid = `${ACCOUNT}-shop`;
  await manager.waitForTask((await manager.createIndex(uid, { primaryKey: "id" })).taskUid, {
    timeoutMs: 5000,
  });
  const settings = { filterableAttributes: ["category"], sortableAttributes: ["price"] };
  await manager.waitForTask((await manager.updateSettings(uid, settings)).taskUid, { timeoutMs: 5000 });
  await manager.waitForTask((await manager.addDocuments(uid, PRODUCTS)).taskUid, { timeoutMs: 5000 });

  const started = await startWorker(await bundleWorker(), {
    MEILISEARCH_URL: meili.url,
    MEILISEARCH_API_KEY: MASTER_KEY,
    KV_TIMEOUT_MS: "1000",
  });
  mf = started.mf;
  kv = started.kv;
  workerUrl = (await mf.ready).origin;
  await putSettings(kv, ACCOUNT, "shop", {
    filterable_attributes: ["category"],
    sortable_attributes: ["price"],
  });
  // The exporter's copy of a search key: what the Worker knows of it.
  await putApiKey(kv, SEARCH_KEY, ACCOUNT, {
    uid: "5f0c1d2e-0000-4000-8000-000000000001",
    actions: ["search"],
    indexes: ["shop"],
  });
  store = await serveStorefront();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await store?.close();
  await mf?.dispose();
  await meili?.close();
});

describe("an InstantSearch storefront on another origin against the Worker", () => {
  it("searches, refines, searches facets, pages and sorts with a search-only key", async () => {
    const page = await browser.newPage();
    const shop = storefrontPage(page);
    const host = `${workerUrl}/api/v1`;
    expect(new URL(store.origin).origin).not.toBe(workerUrl);
    await shop.open(store.pageUrl({ host, apiKey: SEARCH_KEY, index: "shop" }));
    expect(await shop.errors()).toEqual([]);
    expect(await shop.titles()).toHaveLength(5);
    expect(await shop.listedCategories()).toEqual(CATEGORIES);

    expect((await shop.type("chair")).every((s) => s === 200)).toBe(true);
    const titles = await shop.titles();
    expect(titles.length).toBe(5);
    expect(titles.every((t) => t.toLowerCase().includes("chair"))).toBe(true);

    const refinedStatuses = await shop.refine("Home");
    expect(refinedStatuses.every((s) => s === 200)).toBe(true);
    expect(await shop.refined()).toEqual(["Home"]);
    expect(new Set(await shop.categories())).toEqual(new Set(["Home"]));

    const facets = await shop.searchCategories("kit");
    expect(facets.statuses.every((s) => s === 200)).toBe(true);
    expect(facets.values).toEqual(["Kitchen"]);

    // A wider query under the same refinement, to page through (15 Home products, 5 a page).
    await shop.type("");
    const first = await shop.titles();
    expect((await shop.goToPage(2)).every((s) => s === 200)).toBe(true);
    const second = await shop.titles();
    expect(second.length).toBeGreaterThan(0);
    expect(second).not.toEqual(first);

    expect((await shop.sortBy("shop:price:asc")).every((s) => s === 200)).toBe(true);
    const prices = await shop.prices();
    expect(prices.length).toBeGreaterThan(1);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(await shop.errors()).toEqual([]);
    await page.close();
  }, 120_000);

  it("refuses a write with the search key (the Worker serves no write route), and fails with 401 once the key is revoked", async () => {
    const page = await browser.newPage();
    const shop = storefrontPage(page);
    const host = `${workerUrl}/api/v1`;
    await shop.open(store.pageUrl({ host, apiKey: SEARCH_KEY, index: "shop" }));
    expect(await shop.errors()).toEqual([]);
    const documentWrites = () =>
      meili.indexRequests.filter((r) => r.method !== "GET" && r.path.includes("/documents")).length;
    const writesBefore = documentWrites();
    const write = await shop.fetchStatus(`${host}/indexes/shop/documents`, {
      method: "POST",
      apiKey: SEARCH_KEY,
      body: [{ id: "from-the-page" }],
    });
    expect(write).toBe(WRITE_STATUS);
    expect(documentWrites()).toBe(writesBefore);

    await kv.delete(apiKeyCopyKey(await apiKeyHash(SEARCH_KEY)));
    const statuses = await shop.type("table");
    expect(statuses).toContain(401);
    expect((await shop.errors()).length).toBeGreaterThan(0);
    await page.close();
  }, 60_000);
});
