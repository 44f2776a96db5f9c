/**
 * `/system` with demo-like data in headless Chromium: the layout (the verdict and everything red or
 * amber on the first 1400×900 screen, the whole page within 1,500 px at desktop width, one column
 * without horizontal scrolling at 390 px), the page served with its data before any script runs,
 * the run-history charts, and the silence buttons (a click mutes the alert, showing the silence's
 * reason; a cross-origin or token-less write is refused).
 *
 * Screenshots: with UPDATE_SCREENSHOTS=1 it writes docs/monitor-page-desktop.png (1400×900, full
 * page) and docs/monitor-page-phone.png (390 px wide, full page); otherwise it only checks the layout.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { InMemoryRunStore } from "@monitor/core";
import {
  applySilences,
  type CollectorHealth,
  DEFAULT_COLLECTORS,
  emptyState,
  evaluateConditions,
  InMemoryCollectorRegistry,
  InMemorySilenceStore,
  ownCostReport,
  step,
  utcDay,
} from "@monitor/core";
import { combineQueueHealth, queueHealthReader, SqliteQueue } from "@monitor/queues";
import { firingAlerts } from "@monitor/runtime";
import { launchChromium } from "@shared/test-support/chromium";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInToSystem } from "../test-support/system-sign-in.ts";
import {
  call,
  MIN,
  makeApp,
  openMemoryStore,
  putAccounts,
  runAt,
  serveOnLoopback,
  TOKEN,
  uuid,
} from "../test-support.ts";
import { CLIENT_JS } from "./client-bundle.gen.ts";

const NOW = Date.now();
const DAY = 24 * 60 * MIN;
const UPDATE = process.env.UPDATE_SCREENSHOTS === "1";
const DOCS = fileURLToPath(new URL("../../../../../docs/", import.meta.url));

let store: InMemoryRunStore;
let cleanup: () => Promise<void>;
let server: Awaited<ReturnType<typeof serveOnLoopback>> | undefined;
let base: string;
let browser: Browser;
let queueDir: string;
let queues: SqliteQueue[] = [];

async function openQueues(): Promise<SqliteQueue[]> {
  queueDir = mkdtempSync(join(tmpdir(), "svcmon-layout-queues-"));
  const open = (name: string) =>
    SqliteQueue.open(join(queueDir, `${name}.sqlite`), {
      name,
      deadLetter: { name: `${name}-dlq`, maxReceives: 1 },
    });
  const [events, billing] = [open("monitor-events"), open("cur-ingest")];
  await events.send(['{"kind":"poison"}', "not json"]);
  await events.receive({ max: 10, visibilityTimeoutMs: 0 });
  await events.receive({ max: 10, visibilityTimeoutMs: 0 });
  await billing.send(["a", "b", "c"]);
  return [events, billing];
}

/** A run completed at `at` that took `ms`. */
const run = (at: number, ms: number, p: Parameters<typeof runAt>[1]) =>
  runAt(at, { started_at: new Date(at - ms).toISOString(), ...p });

/** About a day of runs: every 15 min per collector, with durations that vary and a few failures. */
function demoRuns() {
  const runs: ReturnType<typeof runAt>[] = [];
  const wave = (i: number, base: number) => base + Math.round(900 * Math.sin(i / 3) + 400 * ((i * 7) % 5));
  for (let i = 0; i < 40; i++) {
    const at = NOW - (i * 15 + 4) * MIN;
    // config_ec2: healthy, a transient failure in the night.
    runs.push(
      run(at, wave(i, 3200), {
        collector: "config_ec2",
        cloud_account_id: "111111111111",
        events_produced: 40 + (i % 7),
        status: i === 22 ? "failed" : "succeeded",
        error: i === 22 ? "ThrottlingException: Rate exceeded" : "",
        run_id: uuid(90),
      }),
    );
    // config_ebs: degraded, its latest run failed (amber).
    runs.push(
      run(at - 2 * MIN, wave(i, 5200), {
        collector: "config_ebs",
        cloud_account_id: "111111111111",
        status: i === 0 ? "failed" : i === 9 ? "partial" : "succeeded",
        error: i === 0 ? "AccessDenied: ec2:DescribeVolumes" : "",
        run_id: uuid(90),
      }),
    );
    // config_network: stale, no run for 3 hours (red).
    if (i >= 12)
      runs.push(
        run(at - 5 * MIN, wave(i, 2400), {
          collector: "config_network",
          cloud_account_id: "111111111111",
          run_id: uuid(90),
        }),
      );
  }
  return runs;
}

beforeAll(async () => {
  browser = await launchChromium();
  const t = await openMemoryStore("svcmon-layout-");
  store = t.store;
  cleanup = t.cleanup;
  queues = await openQueues();
  const silences = new InMemorySilenceStore();
  const networkRed = {
    name: "config_network",
    last_run: NOW - 185 * MIN,
    status: "succeeded",
    minutes_ago: 185,
    health: "red",
    reasons: ["stale"],
    registered_at: NOW - 2 * DAY,
    new_until: null,
  } satisfies CollectorHealth;
  const input = {
    collectors: [networkRed],
    streaks: [],
    accounts: [
      {
        account_id: "333333333333",
        account_name: "Legacy",
        svc_status: "no_access" as const,
        updated_at: NOW,
      },
    ],
    unscanned: [],
    dead_letter_queues: [{ queue: "monitor-events-dlq", depth: 2 }],
    disk_used_ratio: null,
  };
  const today = utcDay(NOW);
  const days = Array.from({ length: 30 }, (_, i) => utcDay(NOW - (29 - i) * DAY));
  const report = ownCostReport(
    {
      svcDaily: days.map((day, i) => ({ day, currency: "USD", cost: 2.6 + ((i * 13) % 7) / 10 })),
      outsideDaily: days.map((day) => ({ day, currency: "USD", cost: 0.4, reason: "Tax" })),
      untagged: [],
      lastIngestAt: NOW - 3 * 60 * MIN,
      dataThrough: today,
    },
    NOW,
  );
  const app = makeApp({
    store,
    registry: new InMemoryCollectorRegistry(DEFAULT_COLLECTORS, { now: Date.now }),
    silences,
    queues: queueHealthReader(combineQueueHealth(queues)),
    ownCost: async () => report,
    alerts: async () =>
      firingAlerts(
        step(
          emptyState(),
          applySilences(evaluateConditions(input, NOW), await silences.list(), Date.now()),
          NOW - 30 * MIN,
        ).state,
      ),
  });
  expect((await call(app, "POST", "/api/system/runs", { body: demoRuns() })).status).toBe(201);
  await putAccounts(app, [
    ["111111111111", "Production", "active"],
    ["222222222222", "Staging", "pending_setup"],
    ["333333333333", "Legacy", "no_access"],
    ["444444444444", "Analytics", "active"],
  ]);
  server = await serveOnLoopback(app);
  base = server.base;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await cleanup?.();
  for (const q of queues) q.close();
  if (queueDir) rmSync(queueDir, { recursive: true, force: true });
});

async function signedIn(viewport: { width: number; height: number }, javaScript = true) {
  const ctx = await browser.newContext({ viewport, javaScriptEnabled: javaScript });
  const page = await ctx.newPage();
  await signInToSystem(page, base, TOKEN);
  return { ctx, page };
}

async function shot(page: Page, name: string): Promise<void> {
  if (!UPDATE) return;
  mkdirSync(DOCS, { recursive: true });
  await page.screenshot({ path: join(DOCS, name), fullPage: true });
}

const chartsDrawn = (page: Page) => page.locator(".chart canvas").count();

describe("/system layout with demo-like data", () => {
  it("is served with its data: the verdict and the cards are in the HTML, before any script runs", async () => {
    const { ctx, page } = await signedIn({ width: 1400, height: 900 }, false);
    try {
      expect(await page.locator("#overall").textContent()).toBe("Overall: Unhealthy");
      expect(await page.locator("#collectors article").count()).toBe(4);
      expect(await page.locator("body").getAttribute("data-loaded")).toMatch(/^\d{4}-\d\d-\d\dT/);
      // Without the script, a chart box says what it would draw.
      expect(await page.locator("#collector-config_ec2 .chart").textContent()).toMatch(
        /^Run history of config_ec2: the latest 40 run\(s\), .*; 1 failed or partial; duration/,
      );
    } finally {
      await ctx.close();
    }
  });

  it("desktop 1400×900: the verdict and everything red or amber on the first screen; the page within 1,500 px", async () => {
    const { ctx, page } = await signedIn({ width: 1400, height: 900 });
    try {
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await expect.poll(() => chartsDrawn(page)).toBe(3);
      await shot(page, "monitor-page-desktop.png");
      const verdict = page.locator("#verdict");
      expect(await verdict.textContent()).toContain("Overall: Unhealthy");
      expect(await verdict.textContent()).toContain("1 collector(s) unhealthy");
      expect(await verdict.textContent()).toContain("1 collector(s) degraded");
      // Everything red or amber: the triage blocks, the red and amber cards' headings, the queue with
      // dead letters, the account rows that need attention, and the alerts, all above the fold.
      const bottoms = (await page.evaluate(`[
          "#verdict",
          "#t-config_network h3",
          "#t-config_ebs h3",
          "#queues tr.attention",
          "#accounts tr.attention",
          "#alerts li.critical",
        ].map((sel) => {
          const el = document.querySelector(sel);
          return { sel, bottom: el ? el.getBoundingClientRect().bottom : -1 };
        })`)) as { sel: string; bottom: number }[];
      for (const b of bottoms) {
        expect(b.bottom, b.sel).toBeGreaterThan(0);
        expect(b.bottom, b.sel).toBeLessThanOrEqual(900);
      }
      const size = (await page.evaluate(
        "({ height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth })",
      )) as { height: number; width: number };
      expect(size.width).toBeLessThanOrEqual(1400);
      expect(size.height).toBeLessThanOrEqual(1500);
      const html = (await page.evaluate(
        '(performance.getEntriesByType("navigation")[0] || {}).decodedBodySize || 0',
      )) as number;
      console.log(
        `desktop 1400 px: page height ${size.height} px; HTML ${html} bytes (with the page state); client script ${CLIENT_JS.length} bytes`,
      );
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it("phone 390 px: one column, no horizontal scrolling", async () => {
    const { ctx, page } = await signedIn({ width: 390, height: 844 });
    try {
      await expect.poll(() => chartsDrawn(page)).toBe(3);
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
      // One column: every section starts at the same left edge.
      const lefts = (await page.evaluate(
        "[...document.querySelectorAll('section:not([hidden])')].map((s) => Math.round(s.getBoundingClientRect().left))",
      )) as number[];
      expect(new Set(lefts).size).toBe(1);
      // Nothing sticks out of the viewport (wide tables become labelled blocks).
      const right = (await page.evaluate(
        "Math.max(...[...document.querySelectorAll('main *')].map((e) => e.getBoundingClientRect().right))",
      )) as number;
      expect(right).toBeLessThanOrEqual(390);
      console.log(
        `phone 390 px: page height ${await page.evaluate("document.documentElement.scrollHeight")} px`,
      );
      await shot(page, "monitor-page-phone.png");
    } finally {
      await ctx.close();
    }
  });
});

describe("/system silence buttons", () => {
  async function sessionCookie(ctx: BrowserContext): Promise<string> {
    const [c] = await ctx.cookies();
    return `${c?.name}=${c?.value}`;
  }

  it("refuses a cross-origin write and one without the page's CSRF token", async () => {
    const { ctx, page } = await signedIn({ width: 1400, height: 900 });
    try {
      const cookie = await sessionCookie(ctx);
      const token = await page.locator('form.silence input[name="csrf"]').first().getAttribute("value");
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const body = new URLSearchParams({
        rule: "dead_letter_queue",
        subject: "monitor-events-dlq",
        minutes: "60",
        csrf: token ?? "",
      });
      const post = (headers: Record<string, string>, form = body) =>
        fetch(`${base}/system/silences`, {
          method: "POST",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
          body: form,
          redirect: "manual",
        });
      // Another site's form (Origin elsewhere), even with a stolen token: refused by the csrf middleware.
      expect((await post({ origin: "http://evil.example" })).status).toBe(403);
      // A script elsewhere sending JSON: refused too (the Origin check covers every content type).
      const json = await fetch(`${base}/system/silences`, {
        method: "POST",
        headers: { cookie, origin: "http://evil.example", "content-type": "application/json" },
        body: JSON.stringify({ rule: "dead_letter_queue" }),
      });
      expect(json.status).toBe(403);
      // Same origin without the token, or with another session's token: refused.
      const noToken = new URLSearchParams(body);
      noToken.delete("csrf");
      expect((await post({ origin: base }, noToken)).status).toBe(403);
      const wrong = new URLSearchParams(body);
      wrong.set("csrf", "A".repeat(43));
      expect((await post({ origin: base }, wrong)).status).toBe(403);
      // Without a session: 401, whatever it carries.
      const anonymous = await fetch(`${base}/system/silences`, {
        method: "POST",
        headers: {
          origin: base,
          "content-type": "application/x-www-form-urlencoded",
          "x-csrf-token": token ?? "",
        },
        body,
      });
      expect(anonymous.status).toBe(401);
      // Nothing was created.
      const list = await call({ request: (p, i) => fetch(`${base}${p}`, i) }, "GET", "/api/system/silences");
      expect(list.body.silences).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it("Silence 1 h: the alert is then shown muted, with the silence's reason, and the silence is listed", async () => {
    const { ctx, page } = await signedIn({ width: 1400, height: 900 });
    try {
      const alert = page.locator("#alerts li", { hasText: "dead_letter_queue — monitor-events-dlq" });
      expect(await alert.getAttribute("data-muted")).toBeNull();
      await alert.getByRole("textbox").fill("replaying the poison messages");
      await alert
        .getByRole("button", { name: "Silence dead_letter_queue — monitor-events-dlq for 1 h" })
        .click();
      const muted = page.locator('#alerts li[data-muted="true"]', { hasText: "monitor-events-dlq" });
      await expect.poll(() => muted.count(), { timeout: 10_000 }).toBe(1);
      const text = (await muted.textContent()) ?? "";
      expect(text).toMatch(/muted by silence [0-9a-f-]+ by the \/system page until/);
      expect(text).toContain("replaying the poison messages");
      const listed = (await page.locator("#silences li").textContent()) ?? "";
      expect(listed).toContain("rule dead_letter_queue, subject monitor-events-dlq");
      expect(listed).toContain("by the /system page: replaying the poison messages");
      // About an hour.
      const list = await call({ request: (p, i) => fetch(`${base}${p}`, i) }, "GET", "/api/system/silences");
      const ends = Date.parse(list.body.silences[0].ends_at) - Date.now();
      expect(ends).toBeGreaterThan(55 * MIN);
      expect(ends).toBeLessThanOrEqual(60 * MIN);
      expect(await page.locator("#problems").textContent()).toBe("");
    } finally {
      await ctx.close();
    }
  });
});
