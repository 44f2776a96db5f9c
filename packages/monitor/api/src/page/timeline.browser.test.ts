/**
 * `/system/timeline` in headless Chromium: a collector's story (runs, the stale alert firing and
 * resolving, the notifications with a failed then a delivered attempt, a silence) drawn as a strip and
 * listed in time order, at desktop and phone widths; the collector card links to it. The screenshots
 * are docs/monitor-timeline-{desktop,phone}.png.
 */
import { fileURLToPath } from "node:url";
import {
  type Flip,
  InMemoryCollectorRegistry,
  type InMemoryRunStore,
  InMemorySilenceStore,
  InMemoryTransitionStore,
  type NotificationIntent,
} from "@monitor/core";
import { InMemoryDeliveryLog } from "@shared/notify";
import { launchChromium } from "@shared/test-support/chromium";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInToSystem } from "../test-support/system-sign-in.ts";
import { MIN, makeApp, openMemoryStore, serveOnLoopback, TOKEN } from "../test-support.ts";

const DOCS = fileURLToPath(new URL("../../../../../docs/", import.meta.url));
const HOUR = 60 * MIN;
const NOW = Math.floor(Date.now() / MIN) * MIN;
let store: InMemoryRunStore;
let server: Awaited<ReturnType<typeof serveOnLoopback>> | undefined;
let browser: Browser;

const flip = (at: number, to: Flip["to"]): Flip => ({
  key: "collector_stale|nightly_backup",
  rule: "collector_stale",
  subject: "nightly_backup",
  severity: "critical",
  from: to === "firing" ? null : "firing",
  to,
  at,
  muted: false,
});
const intent = (id: string, kind: "start" | "resolve"): NotificationIntent =>
  ({
    id,
    rule: "collector_stale",
    severity: "critical",
    createdAt: NOW,
    items: [
      {
        key: "collector_stale|nightly_backup",
        subject: "nightly_backup",
        kind,
        episode: 1,
        detail: "",
        fingerprint: "f",
      },
    ],
  }) as unknown as NotificationIntent;

beforeAll(async () => {
  browser = await launchChromium();
  store = (await openMemoryStore()).store;
  const day = (d: number, ok = true) => ({
    collector: "nightly_backup",
    cloud_account_id: "111111111111",
    cloud_region: "eu-central-1",
    started_at: NOW - d * 24 * HOUR - 9 * MIN,
    completed_at: NOW - d * 24 * HOUR,
    status: ok ? ("succeeded" as const) : ("failed" as const),
    events_produced: 1,
    rows_inserted: 1,
    error: ok ? "" : "pg_dump: connection refused",
    duration_ms: 9 * MIN,
  });
  await store.insertRuns([day(6), day(5), day(4), day(3, false), day(1)]);
  const transitions = new InMemoryTransitionStore();
  const log = new InMemoryDeliveryLog();
  const record = async (kind: "flip" | "notification", at: number, id: string, data: unknown) =>
    transitions.record({ id, kind, rule: "collector_stale", subject: "nightly_backup", at, data });
  const fired = NOW - 2 * 24 * HOUR;
  await record("flip", fired, "flip|fired", flip(fired, "firing"));
  await record("notification", fired, "collector_stale:start", intent("collector_stale:start", "start"));
  for (const [attempt, ok] of [
    [1, false],
    [2, true],
  ] as const)
    await log.record({
      notificationId: "collector_stale:start",
      channel: "ops-webhook",
      attempt,
      at: new Date(fired + (attempt - 1) * MIN).toISOString(),
      ok,
      ...(ok ? {} : { error: "HTTP 502 from the receiver" }),
      durationMs: 40,
    });
  const resolved = NOW - 24 * HOUR;
  await record("flip", resolved, "flip|resolved", flip(resolved, "resolved"));
  await record(
    "notification",
    resolved,
    "collector_stale:resolve",
    intent("collector_stale:resolve", "resolve"),
  );
  await log.record({
    notificationId: "collector_stale:resolve",
    channel: "ops-webhook",
    attempt: 1,
    at: new Date(resolved).toISOString(),
    ok: true,
    durationMs: 30,
  });
  const silences = new InMemorySilenceStore();
  await silences.create({
    id: "9c0e3f2a-silence",
    matchers: { rule: "collector_stale", subject: { op: "eq", value: "nightly_backup" } },
    author: "ann",
    reason: "database migration",
    startsAt: NOW - 2 * 24 * HOUR + 2 * HOUR,
    endsAt: NOW - 2 * 24 * HOUR + 6 * HOUR,
    createdAt: NOW - 3 * 24 * HOUR,
  });
  const app = makeApp({
    store,
    registry: new InMemoryCollectorRegistry([
      { name: "nightly_backup", expected_interval_minutes: 1440, freshness_threshold_minutes: 2880 },
    ]),
    silences,
    history: { transitions, deliveryLog: log },
  });
  server = await serveOnLoopback(app);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("/system/timeline", () => {
  for (const [name, width] of [
    ["desktop", 1280],
    ["phone", 390],
  ] as const) {
    it(`draws a collector's story and lists it in time order (${name}, ${width} px)`, async () => {
      const ctx = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await ctx.newPage();
      await signInToSystem(page, server?.base ?? "", TOKEN);
      const link = page.locator('a[href="/system/timeline?collector=nightly_backup"]');
      await expect.poll(() => link.count()).toBe(1);
      await link.click();
      await page.waitForURL(/\/system\/timeline/);
      expect(await page.locator("h1").textContent()).toBe("Timeline of nightly_backup");
      const items = await page.locator("ol.events > li").allTextContents();
      expect(items.map((t) => t.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/, ""))).toEqual([
        "run succeeded on 111111111111/eu-central-1 in 9 min",
        "run succeeded on 111111111111/eu-central-1 in 9 min",
        "run succeeded on 111111111111/eu-central-1 in 9 min",
        "run failed on 111111111111/eu-central-1 in 9 min: pg_dump: connection refused",
        "collector_stale nightly_backup: new → firing",
        expect.stringMatching(
          /^collector_stale start notification: delivered to ops-webhook \(1 failed attempt\)ops-webhook, attempt 1: failed \(HTTP 502 from the receiver\) at .*ops-webhook, attempt 2: delivered at /,
        ),
        "silence starts (ann: database migration)",
        "silence ends (ann: database migration)",
        // The run that resolved it, at the same instant, comes first.
        "run succeeded on 111111111111/eu-central-1 in 9 min",
        "collector_stale nightly_backup: firing → resolved",
        expect.stringMatching(/^collector_stale resolve notification: delivered to ops-webhook/),
      ]);
      const strip = page.locator("svg.strip");
      expect(await strip.getAttribute("aria-label")).toContain("1 firing span(s)");
      // The strip fits the width: no sideways scrolling on a phone.
      const overflow = Number(await page.evaluate("document.documentElement.scrollWidth")) - width;
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${DOCS}monitor-timeline-${name}.png`, fullPage: true });
      await ctx.close();
    });
  }
});
