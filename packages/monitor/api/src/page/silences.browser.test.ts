import type { InMemoryRunStore } from "@monitor/core";
/**
 * `/system` in headless Chromium (as muted-alerts.browser.test.ts): a silence created through the API
 * is listed in the Silences section, and the alert it silences is marked Muted, naming the silence.
 */

import {
  applySilences,
  emptyState,
  evaluateConditions,
  InMemoryCollectorRegistry,
  InMemorySilenceStore,
  step,
} from "@monitor/core";
import { firingAlerts } from "@monitor/runtime";
import { launchChromium } from "@shared/test-support/chromium";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInToSystem } from "../test-support/system-sign-in.ts";
import { call, MIN, makeApp, openMemoryStore, serveOnLoopback, TOKEN } from "../test-support.ts";

const NOW = Date.now();
let store: InMemoryRunStore;
let cleanup: () => Promise<void>;
let server: Awaited<ReturnType<typeof serveOnLoopback>> | undefined;
let base: string;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  const t = await openMemoryStore("svcmon-page-silences-");
  store = t.store;
  cleanup = t.cleanup;
  const silences = new InMemorySilenceStore();
  const input = {
    collectors: [],
    streaks: [],
    accounts: [],
    unscanned: [],
    dead_letter_queues: [{ queue: "ingest-dlq", depth: 4 }],
    disk_used_ratio: null,
  };
  const app = makeApp({
    store,
    registry: new InMemoryCollectorRegistry([]),
    silences,
    now: () => Date.now(),
    // What the engine stores: conditions with the silences applied.
    alerts: async () =>
      firingAlerts(
        step(
          emptyState(),
          applySilences(evaluateConditions(input, NOW), await silences.list(), Date.now()),
          NOW,
        ).state,
      ),
  });
  const created = await call(app, "POST", "/api/system/silences", {
    body: {
      matchers: { rule: "dead_letter_queue", subject: { op: "prefix", value: "ingest" } },
      author: "ann",
      reason: "replaying the dead letters",
      ends_at: new Date(NOW + 60 * MIN).toISOString(),
    },
  });
  expect(created.status).toBe(201);
  server = await serveOnLoopback(app);
  base = server.base;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await cleanup?.();
});

describe("/system: silences", () => {
  it("lists the active silence and shows the alert it silences as muted by it", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 600 } });
    const page = await ctx.newPage();
    await signInToSystem(page, base, TOKEN);
    await expect.poll(() => page.locator("#silences li").count()).toBe(1);
    const li = (await page.locator("#silences li").textContent()) ?? "";
    expect(li).toContain("Silenced");
    expect(li).toContain("rule dead_letter_queue, subject starts with ingest");
    expect(li).toContain("by ann: replaying the dead letters");
    expect(await page.locator("#silences-section").isHidden()).toBe(false);
    await expect.poll(() => page.locator('#alerts li[data-muted="true"]').count()).toBe(1);
    const muted = (await page.locator('#alerts li[data-muted="true"]').textContent()) ?? "";
    expect(muted).toMatch(/muted by silence [0-9a-f-]+ by ann until/);
    await ctx.close();
  });
});
