import type { InMemoryRunStore } from "@monitor/core";
/**
 * `/system` in headless Chromium (as page.browser.test.ts): a muted alert is listed, marked "Muted"
 * and explained (what mutes it and why, its last error); a notification's link `/system#<anchor>`
 * finds its element (collector card, account, queue, analytics DB) and is scrolled to.
 */

import { alertAnchor, emptyState, evaluateConditions, InMemoryCollectorRegistry, step } from "@monitor/core";
import { firingAlerts } from "@monitor/runtime";
import { launchChromium } from "@shared/test-support/chromium";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInToSystem } from "../test-support/system-sign-in.ts";
import { call, MIN, makeApp, openMemoryStore, runAt, serveOnLoopback, TOKEN } from "../test-support.ts";

const NOW = Date.now();
const ACCOUNT = "111111111111";
let store: InMemoryRunStore;
let cleanup: () => Promise<void>;
let server: Awaited<ReturnType<typeof serveOnLoopback>> | undefined;
let base: string;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  const t = await openMemoryStore("svcmon-page-muted-");
  store = t.store;
  cleanup = t.cleanup;
  // The state the alert engine stores when an account in no_access has a failing collector.
  const conditions = evaluateConditions(
    {
      collectors: [],
      streaks: [
        {
          collector: "config_ec2",
          cloud_account_id: ACCOUNT,
          cloud_region: "us-east-1",
          consecutive_failures: 3,
          last_success_at: null,
          last_error: "AccessDenied: sts:AssumeRole",
        },
      ],
      accounts: [{ account_id: ACCOUNT, account_name: "Legacy", svc_status: "no_access", updated_at: NOW }],
      unscanned: [],
      dead_letter_queues: [],
      disk_used_ratio: null,
    },
    NOW,
  );
  const { state } = step(emptyState(), conditions, NOW);
  const app = makeApp({
    store,
    registry: new InMemoryCollectorRegistry([
      { name: "config_ec2", expected_interval_minutes: 15, freshness_threshold_minutes: 30 },
    ]),
    alerts: async () => firingAlerts(state),
  });
  const runs = [3, 2, 1].map((m, i) =>
    runAt(NOW - m * MIN, {
      collector: "config_ec2",
      cloud_account_id: ACCOUNT,
      status: "failed",
      error: "AccessDenied: sts:AssumeRole",
      run_id: `00000000-0000-4000-8000-00000000077${i}`,
    }),
  );
  expect((await call(app, "POST", "/api/system/runs", { body: runs })).status).toBe(201);
  const put = await call(app, "PUT", `/api/system/accounts/${ACCOUNT}`, {
    body: { account_name: "Legacy", svc_status: "no_access" },
  });
  expect(put.status).toBe(200);
  server = await serveOnLoopback(app);
  base = server.base;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await cleanup?.();
});

describe("/system: muted alerts and notification links", () => {
  it("lists the muted alert, marked Muted, with what mutes it, why, and its last error; a link's anchor is found and scrolled to", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 600 } });
    const page = await ctx.newPage();
    await signInToSystem(page, base, TOKEN);

    // The link of a notification about this collector's failure in the account.
    const anchor = alertAnchor("collector_failure", `config_ec2/${ACCOUNT}/us-east-1`);
    expect(anchor).toBe("collector-config_ec2");
    await page.goto(`${base}/system#${encodeURIComponent(anchor)}`);
    await expect.poll(() => page.locator("#alerts li").count()).toBe(2);

    const muted = page.locator('#alerts li[data-muted="true"]');
    expect(await muted.count()).toBe(1);
    const text = (await muted.textContent()) ?? "";
    expect(text).toContain("Muted");
    expect(text).toContain(`collector_failure — config_ec2/${ACCOUNT}/us-east-1`);
    expect(text).toContain(`muted, not notified (muted by account_no_access ${ACCOUNT})`);
    expect(text).toContain("account Legacy is no_access");
    expect(text).toContain("Last error: AccessDenied: sts:AssumeRole");
    // The cause is listed too, not muted.
    const cause = page.locator('#alerts li:not([data-muted="true"])');
    expect(await cause.textContent()).toContain(`account_no_access — ${ACCOUNT}`);

    // Anchors of the subjects a notification links to.
    await expect.poll(() => page.locator("#collector-config_ec2").getAttribute("class")).toContain("linked");
    expect(await page.locator(`#${alertAnchor("account_no_access", ACCOUNT)}`).textContent()).toContain(
      "Legacy",
    );
    expect(await page.locator(`#${alertAnchor("disk_high", "analytics_db")}`).count()).toBe(1);
    await ctx.close();
  });
});
