/**
 * `/system` in a real headless Chromium (playwright-core + the launcher of `@monitor/api/test-support/chromium`:
 * the Chromium of the npm package @sparticuz/chromium unless CHROMIUM_PATH is set) against the monitor app
 * served by @hono/node-server over a real chDB store. Screenshot: packages/monitor/api/test-output/.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import {
  addDays,
  DEFAULT_COLLECTORS,
  DEFAULT_HIERARCHY_RULES,
  InMemoryCollectorRegistry,
  monthStart,
  utcDay,
} from "@monitor/core";
import { ClickHouseCostStore, type CurLine, fileSource, writeCurFile } from "@monitor/cost";
import { combineQueueHealth, queueHealthReader, SqliteQueue } from "@monitor/queues";
import { launchChromium } from "@shared/test-support/chromium";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  call,
  hangingStore,
  MIN,
  makeApp,
  openTempStore,
  putAccounts,
  runAt,
  serveOnLoopback,
  TOKEN,
  uuid,
} from "../test-support.ts";

const SHOT = fileURLToPath(new URL("../../test-output/system-page.png", import.meta.url));
const DAY = 24 * 60 * MIN;
const NOW = Date.now();

let store: ClickHouseRunStore;
let cleanup: () => Promise<void>;
let faulty: ReturnType<typeof hangingStore>;
let server: Awaited<ReturnType<typeof serveOnLoopback>> | undefined;
let base: string;
let browser: Browser;
let queueDir: string;
let queues: SqliteQueue[] = [];
let app: ReturnType<typeof makeApp>;

/** Real embedded queues: one with dead letters, one healthy, one whose file is closed (unreadable). */
async function openQueues(): Promise<SqliteQueue[]> {
  queueDir = mkdtempSync(join(tmpdir(), "svcmon-page-queues-"));
  const open = (name: string) =>
    SqliteQueue.open(join(queueDir, `${name}.sqlite`), {
      name,
      deadLetter: { name: `${name}-dlq`, maxReceives: 1 },
    });
  const [events, billing, audit] = [open("monitor-events"), open("billing"), open("audit")];
  await events.send(['{"kind":"poison"}', "not json"]);
  await events.receive({ max: 10, visibilityTimeoutMs: 0 });
  await events.receive({ max: 10, visibilityTimeoutMs: 0 });
  await billing.send(["a", "b", "c"]);
  audit.close();
  return [events, billing, audit];
}

beforeAll(async () => {
  // First: without a Chromium the launcher says how to get one, before any store is built.
  browser = await launchChromium();
  const t = await openTempStore("svcmon-page-");
  store = t.store;
  cleanup = t.cleanup;
  faulty = hangingStore(store);
  faulty.hang = false;
  queues = await openQueues();
  app = makeApp({
    store: faulty,
    // Registers each collector when first listed: hierarchy_builder, which never runs here, is new.
    registry: new InMemoryCollectorRegistry(DEFAULT_COLLECTORS, { now: Date.now }),
    statusTimeoutMs: 1500,
    queues: queueHealthReader(combineQueueHealth(queues)),
  });
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
    // hierarchy_builder never ran: new (waiting for its first run).
  ];
  expect((await call(app, "POST", "/api/system/runs", { body: runs })).status).toBe(201);
  await putAccounts(app, [
    ["acc-1", "Production", "active"],
    ["acc-2", "Staging", "pending_setup"],
    ["acc-3", "Legacy", "no_access"],
    // Active and never scanned, added just now: waiting for its first scan, not unscanned.
    ["acc-4", "Onboarding", "active"],
  ]);
  server = await serveOnLoopback(app);
  base = server.base;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await cleanup?.();
  for (const q of queues) q.close();
  if (queueDir) rmSync(queueDir, { recursive: true, force: true });
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
    // Signed and expiring: v1.<id>.<expires at>.<HMAC-SHA256> (signed-sessions.ts).
    expect(decodeURIComponent(cookie?.value ?? "")).toMatch(/^v1\.[0-9a-f]{32}\.\d{13}\.[A-Za-z0-9+/]{43}=$/);

    // Landmarks and headings.
    await expect.poll(() => page.locator("#collectors article").count()).toBe(4);
    expect(await page.getByRole("main").count()).toBe(1);
    expect(await page.getByRole("banner").count()).toBe(1);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("System status");
    const h2 = await page.getByRole("heading", { level: 2 }).allTextContents();
    // Red and amber first: in the side column alerts and queues come before coverage and the database.
    expect(h2).toEqual([
      "Needs attention",
      "Collectors",
      "Firing alerts",
      "Message queues",
      "Account coverage",
      "Analytics database",
    ]);
    expect(await page.locator("#live").getAttribute("aria-live")).toBe("polite");

    // Cards: health in words and colour.
    const card = (name: string) =>
      page.locator("article", { has: page.getByRole("heading", { name, exact: true }) });
    expect(await card("config_ec2").locator(".badge").textContent()).toBe("Healthy");
    expect(await card("config_ec2").getAttribute("class")).toContain("green");
    expect(await card("config_ec2").textContent()).toContain("Events42");
    expect(await card("config_ec2").textContent()).toContain("Duration2.0 s");
    // Every run failed since it was registered (just now): failing, not stale yet.
    expect(await card("config_ebs").locator(".badge").textContent()).toBe("Degraded");
    expect(await card("config_ebs").textContent()).toContain("AccessDenied: sts:AssumeRole");
    expect(await card("config_network").locator(".badge").textContent()).toBe("Unhealthy");
    expect(await card("hierarchy_builder").textContent()).toContain("never ran");
    // A collector that never ran, within its grace: waiting (blue, dashed), not unhealthy.
    expect(await card("hierarchy_builder").locator(".badge").textContent()).toBe("Waiting");
    expect(await card("hierarchy_builder").getAttribute("class")).toBe("card new");
    expect(await card("hierarchy_builder").textContent()).toContain("Waiting until");
    expect(await card("hierarchy_builder").textContent()).toContain("waiting for its first run");
    expect(await page.locator("#overall").textContent()).toBe("Overall: Unhealthy");
    const badge = (name: string) =>
      page.evaluate(
        `getComputedStyle(document.querySelector('[aria-labelledby="c-${name}"] .badge')).backgroundColor`,
      );
    expect(await badge("config_ec2")).toBe("rgb(26, 127, 55)");
    expect(await badge("config_network")).toBe("rgb(207, 34, 46)");
    expect(await badge("hierarchy_builder")).toBe("rgb(9, 105, 218)");

    // Sparklines: one per card, each an image with a text alternative.
    const sparks = page.locator("svg.spark");
    expect(await sparks.count()).toBe(4);
    const ebsSpark = await card("config_ebs").locator("svg.spark").getAttribute("aria-label");
    expect(ebsSpark).toMatch(/^Failures of config_ebs over the last 7 days: .*\(total 6\)$/);
    // Two images, each with its text: the run-history chart (uPlot) and the 7-day failure bars.
    expect(await card("config_ebs").getByRole("img").count()).toBe(2);
    expect(await card("config_ebs").locator(".chart").getAttribute("aria-label")).toMatch(
      /^Run history of config_ebs: the latest 6 run\(s\), .*; 6 failed or partial; duration 2\.0 to 2\.0 s$/,
    );
    // uPlot drew it: a canvas inside the box, hidden from assistive technology.
    await expect.poll(() => card("config_ebs").locator(".chart canvas").count()).toBe(1);
    expect(await card("config_ebs").locator(".chart .uplot").getAttribute("aria-hidden")).toBe("true");
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
    expect(await page.locator("#new-accounts").textContent()).toContain(
      "Waiting for their first scan (1)Onboarding (acc-4): active since",
    );

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
      "Latency measured by",
      "this monitor: the time its own recent queries took",
    ]) {
      expect(db).toContain(w);
    }
    // Queues: depth, dead-letter depth, status in words and colour; dead letters and unreadable marked.
    const queueRow = (name: string) => page.locator(`#queues tr[data-queue="${name}"]`);
    const cells = (name: string) => queueRow(name).locator("th, td").allTextContents();
    expect(await page.locator("#queues thead th").allTextContents()).toEqual([
      "Queue",
      "Messages waiting",
      "In flight",
      "Dead-letter queue",
      "Dead letters",
      "Status",
    ]);
    expect(await cells("monitor-events")).toEqual([
      "monitor-events",
      "0",
      "0",
      "monitor-events-dlq",
      "2",
      "Dead letters Needs attention: 2 message(s) in the dead-letter queue (expected 0)",
    ]);
    expect(await queueRow("monitor-events").getAttribute("class")).toBe("attention");
    expect(await cells("billing")).toEqual(["billing", "3", "0", "billing-dlq", "0", "OK"]);
    expect(await queueRow("monitor-events").locator(".badge").textContent()).toBe("Dead letters");
    expect(await queueRow("billing").getAttribute("class")).toBe("");
    const audit = await cells("audit");
    expect(audit.slice(0, 5)).toEqual(["audit", "unknown", "unknown", "unknown", "unknown"]);
    expect(audit[5]).toBe("Unreadable the queue's database is not open");
    expect(await queueRow("audit").getAttribute("class")).toBe("unreadable");
    const queueBadge = (name: string) =>
      page.evaluate(
        `getComputedStyle(document.querySelector('#queues tr[data-queue="${name}"] .badge')).backgroundColor`,
      );
    expect(await queueBadge("billing")).toBe("rgb(26, 127, 55)");
    expect(await queueBadge("monitor-events")).toBe("rgb(207, 34, 46)");
    expect(await queueBadge("audit")).toBe("rgb(154, 103, 0)");
    expect(
      await page.evaluate(
        `getComputedStyle(document.querySelector('#queues tr.attention td')).backgroundColor`,
      ),
    ).toBe("rgb(255, 235, 233)");
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

    // A status failure keeps the last data and says what failed; queue health (not in the database)
    // stays live: a message sent during the outage shows up, and the database is marked unreachable.
    faulty.hang = true;
    try {
      await (queues[1] as SqliteQueue).send(["d"]);
      await page.getByRole("button", { name: "Refresh now" }).click();
      await expect
        .poll(() => page.locator("#problems").textContent(), { timeout: 10_000 })
        .toContain("Analytics database unreachable: showing the last data");
      expect(await page.locator("#collectors article").count()).toBe(4);
      expect(await page.locator("#updated").textContent()).toContain("(stale)");
      expect(await page.locator("#db-down").textContent()).toContain("Unreachable");
      expect(await page.locator('#queues tr[data-queue="billing"] td').first().textContent()).toBe("4");
    } finally {
      faulty.hang = false;
    }
    await page.getByRole("button", { name: "Refresh now" }).click();
    await expect.poll(() => page.locator("#problems").textContent(), { timeout: 10_000 }).toBe("");

    expect(external).toEqual([]);
    expect(consoleErrors.filter((e) => !e.includes("503"))).toEqual([]);

    // The cookie reads /api/system/* but never writes; logout clears it from the browser.
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
    expect(await ctx.cookies()).toEqual([]);
    // Stateless sessions: a copy of the cookie taken before logout stays valid until it expires
    // (the documented trade-off, docs/monitor-page.md); the browser itself no longer has it.
    expect((await fetch(`${base}/api/system/status`, { headers: { cookie: cookieHeader } })).status).toBe(
      200,
    );
    await page.goto(`${base}/system`);
    expect(new URL(page.url()).pathname).toBe("/system/login");
    await ctx.close();
  });

  it("triage: a block per red or amber collector (where, since when, last error, its runs); screenshots at desktop and phone widths", async () => {
    for (const [label, viewport] of [
      ["desktop", { width: 1280, height: 900 }],
      ["phone", { width: 390, height: 844 }],
    ] as const) {
      const ctx = await browser.newContext({ viewport });
      const page = await ctx.newPage();
      await login(page, TOKEN);
      await expect.poll(() => page.locator("#triage article").count()).toBe(2);
      expect(await page.locator("#triage-section").isVisible()).toBe(true);
      // red first (config_network stale), then amber (config_ebs failing: it never succeeded)
      expect(await page.locator("#triage article h3").allTextContents()).toEqual([
        "config_network Unhealthy",
        "config_ebs Degraded",
      ]);
      const ebs = page.locator("#t-config_ebs");
      const text = (await ebs.textContent()) ?? "";
      expect(text).toContain("Unhealthy since");
      expect(text).toContain("AccessDenied: sts:AssumeRole");
      expect(await ebs.locator("tbody tr th").allTextContents()).toEqual(["acc-1"]);
      expect(await ebs.locator("code").textContent()).toContain("/api/system/runs?collector=config_ebs");
      const link = ebs.getByRole("link", { name: "Recent runs of config_ebs" });
      expect(await link.getAttribute("href")).toBe("/api/system/runs?collector=config_ebs");
      // The link works with the page's session (no token in the browser).
      const runs = await page.request.get(`${base}/api/system/runs?collector=config_ebs`);
      expect(runs.status()).toBe(200);
      const body = (await runs.json()) as { runs: { status: string; error: string }[] };
      expect(body.runs[0]).toMatchObject({ status: "failed", error: "AccessDenied: sts:AssumeRole" });
      // the triage blocks fit the viewport, also on a phone (the rest of the page is a later issue's)
      expect(
        await page.evaluate(
          "Math.max(...[...document.querySelectorAll('#triage article, #triage article *')].map((e) => e.getBoundingClientRect().right))",
        ),
      ).toBeLessThanOrEqual(viewport.width);
      const shot = fileURLToPath(new URL(`../../test-output/system-triage-${label}.png`, import.meta.url));
      mkdirSync(fileURLToPath(new URL(".", `file://${shot}`)), { recursive: true });
      await page.locator("#triage-section").screenshot({ path: shot });
      await page.screenshot({ path: shot.replace(".png", "-page.png"), fullPage: true });
      expect(existsSync(shot)).toBe(true);
      await ctx.close();
    }
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
      recent_runs: [],
    });
    // The card's run-history chart: the latest runs, oldest first, with status and duration.
    expect(ebs.recent_runs.at(-1)).toMatchObject({ status: "failed", duration_ms: 2000 });
    expect(ebs.recent_runs).toHaveLength(6);
  });
});

describe("/system: a collector registered by its first run", () => {
  it("its card says it was registered by its first run and how to adjust or delete it", async () => {
    const r = await call(app, "POST", "/api/system/runs", {
      body: runAt(NOW - 2 * MIN, {
        collector: "nightly_backup",
        cloud_account_id: "acc-1",
        run_id: uuid(70),
      }),
    });
    expect(r.body.registered).toEqual(["nightly_backup"]);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await ctx.newPage();
      await login(page, TOKEN);
      const card = page.locator("article", {
        has: page.getByRole("heading", { name: "nightly_backup", exact: true }),
      });
      await expect.poll(() => card.count()).toBe(1);
      const text = (await card.textContent()) ?? "";
      expect(text).toContain("Registered byits first run");
      expect(text).toContain("DELETE /api/system/collectors/nightly_backup");
      expect(await card.locator(".badge").textContent()).toBe("Healthy");
    } finally {
      await ctx.close();
    }
  });
});

describe("/system own cost panel in headless Chromium", () => {
  it("shows the service's own cost, a daily sparkline with its text, and the untagged-resource warning", async () => {
    const today = utcDay(Date.now());
    const dir = mkdtempSync(join(tmpdir(), "svcmon-page-cur-"));
    const cost = ClickHouseCostStore.fromStore(store, { rules: DEFAULT_HIERARCHY_RULES });
    // One cost report per billing period over the last 31 days: the service's database host at 3/day,
    // an untagged queue of the service at 1/day, tax at 0.5/day.
    const lines: CurLine[] = [];
    for (let i = 31; i >= 0; i--) {
      const d = addDays(today, -i);
      const base = {
        billing_period: monthStart(d),
        payer_account_id: "999999999999",
        usage_account_id: "333333333333",
        line_item_type: "Usage",
        usage_start: `${d}T00:00:00Z`,
        product_code: "AmazonEC2",
        currency: "USD",
      };
      lines.push(
        { ...base, resource_id: "i-db", unblended_cost: 3, tags: { "svc:purpose": "svc-infrastructure" } },
        { ...base, resource_id: "svcmon-dlq", product_code: "AWSQueueService", unblended_cost: 1 },
        { ...base, resource_id: "", line_item_type: "Tax", unblended_cost: 0.5 },
      );
    }
    for (const period of new Set(lines.map((l) => l.billing_period))) {
      const path = join(dir, `cur-${period}.csv.gz`);
      await writeCurFile(
        store.client,
        path,
        "legacy-csv",
        lines.filter((l) => l.billing_period === period),
      );
      await cost.ingest([fileSource(path)]);
    }
    const app = makeApp({ store, ownCost: (now) => cost.ownCost(now) });
    const costServer = await serveOnLoopback(app);
    const url = costServer.base;
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await ctx.newPage();
      const consoleErrors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") consoleErrors.push(m.text());
      });
      const notFound: string[] = [];
      page.on("response", (r) => {
        if (r.status() === 404) notFound.push(r.url());
      });
      await page.goto(`${url}/system`);
      await page.getByLabel("Monitor token").fill(TOKEN);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect.poll(() => page.getByRole("heading", { name: "Own cost", level: 2 }).count()).toBe(1);
      const panel = page.locator("#own-cost");
      const text = (await panel.textContent()) ?? "";
      const mtd = 3 * Number(today.slice(8, 10));
      expect(text).toContain(`Month to date$${mtd.toFixed(2)}`);
      expect(text).toContain("Last 30 days$90.00");
      expect(text).toContain("Outside any node, last 30 days$15.00 (Tax $15.00)");
      // The sparkline is an image whose text alternative lists every day.
      const spark = page.locator("#own-cost-spark");
      expect(await spark.getAttribute("role")).toBe("img");
      const label = (await spark.getAttribute("aria-label")) ?? "";
      expect(label).toMatch(/^Own cost per day over the last 30 days: /);
      expect(label).toContain(`${addDays(today, -1)}: $3.00`);
      expect(label.split(", ")).toHaveLength(30);
      expect(await spark.locator("title").textContent()).toBe(label);
      expect(await spark.locator("rect").count()).toBe(30);
      // The service's queue without the tag is a warning, in words.
      const warning = (await page.locator("#untagged-warning").textContent()) ?? "";
      expect(warning).toContain(
        "1 resource(s) belong to the service but lack the tag svc:purpose=svc-infrastructure",
      );
      expect(warning).toContain(
        "svcmon-dlq (account 333333333333): id svcmon-dlq starts with svcmon- (seen in the cost report)",
      );
      // The browser's own /favicon.ico request is a console 404 that no page response reports.
      expect({ consoleErrors: consoleErrors.filter((e) => !e.includes("404")), notFound }).toEqual({
        consoleErrors: [],
        notFound: [],
      });
    } finally {
      await ctx.close();
      await costServer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
