// Drift alerts on npm start's stack (in process), with the demo shop and the seeded simulated
// shopper: the demo model gets a training profile of a normal day's searches; on a later normal day
// the drift check says nothing; the day the shopper switches to typing category names it fires a
// `relevance_drift` alert on the webhook (ALERT_WEBHOOK_URL); the day after, back to normal, it
// resolves it. The search's and the check's clock is injected and moved across UTC days; nothing
// waits for a real day (or for the hourly interval: each check is run with runOnce).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  clampScore,
  compileModel,
  computeTrainingProfile,
  FEATURE_SET_V1,
  type ModelArtifact,
  modelKey,
} from "@relevance/core";
import { DRIFT_RULE } from "@relevance/outcomes";
import type { Notification } from "@shared/notify";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoReady, seedDemo } from "./demo.ts";
import { configFrom } from "./env.ts";
import { runShopper, type ShopperBehaviour } from "./shopper.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN } from "./test-support.ts";

const DAY = 86_400_000;
/**
 * Day 0: ten days ago (UTC midnight). Recent, because the outcome tables' TTL and purge run on the
 * wall clock: searches stamped months back would be deleted as retention.
 */
const T0 = Math.floor(Date.now() / DAY) * DAY - 10 * DAY;
const dayName = (d: number) => new Date(T0 + d * DAY).toISOString().slice(0, 10);
const SEARCHES = 300;
const silent = { info() {}, warn() {}, error() {} };

let stack: Stack;
let dataDir: string;
let receiver: HttpReceiverDouble;
let demo: DemoReady;
/** The relevance clock: one in the morning of `day`, plus the real time since the day began. */
let dayBase = T0 + 3_600_000;
let dayStartedAt = Date.now();
const relevanceNow = () => dayBase + (Date.now() - dayStartedAt);
const onDay = (d: number) => {
  dayBase = T0 + d * DAY + 3_600_000;
  dayStartedAt = Date.now();
};

async function shop(seed: number, behaviour: ShopperBehaviour): Promise<void> {
  const summary = await runShopper({
    url: stack.url,
    searchApiKey: demo.searchApiKey as string,
    searches: SEARCHES,
    seed,
    behaviour,
    ratePerSecond: 200,
  });
  expect(summary.searchErrors).toBe(0);
  expect(summary.scored).toBe(SEARCHES);
  await stack.recorder?.flush();
}

const drift = () => receiver.received.map((r) => r.body as Notification).filter((n) => n.rule === DRIFT_RULE);

beforeAll(async () => {
  receiver = await startHttpReceiverDouble();
  dataDir = mkdtempSync(join(tmpdir(), "drift-e2e-"));
  const config = configFrom({
    PORT: "0",
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    MONITOR_TOKEN,
    DEMO: "0",
    ALERT_WEBHOOK_URL: receiver.url("/hook"),
  });
  stack = await startStack(config, silent, { relevanceNow });
  demo = (await seedDemo(stack, config, silent)) as DemoReady;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("drift alerts on npm start with the simulated shopper", () => {
  it("stays quiet on normal traffic, fires when the shopper types categories, resolves when it returns", async () => {
    // Day 0: normal traffic; its served feature vectors (one per query) become the model's profile.
    onDay(0);
    await shop(1, "queries");
    const rows = await stack.outcomes.trainingRows({
      account: demo.systemAccountId,
      index: "products",
      since: T0,
      until: T0 + DAY,
      minImpressions: 1,
      limit: 10_000,
    });
    expect(rows.length).toBeGreaterThan(50);
    const text = await stack.kv.get(modelKey(demo.modelId));
    if (text === null) throw new Error("the demo model is not in KV");
    const artifact = JSON.parse(text) as ModelArtifact;
    const model = compileModel(artifact);
    const records = rows.map((r) =>
      Object.fromEntries(FEATURE_SET_V1.map((f, i) => [f, r.features[i] ?? null])),
    );
    const scores = rows.map((r) => clampScore(model.predictV1(Float64Array.from(r.features))) ?? 0);
    artifact.trainingProfile = computeTrainingProfile(artifact.features, records, scores);
    await stack.kv.put(modelKey(demo.modelId), JSON.stringify(artifact));

    // Day 1: normal traffic again (another seed). Checked on day 2: no alert.
    onDay(1);
    await shop(2, "queries");
    onDay(2);
    const quiet = await stack.drift.runOnce();
    expect(quiet).toMatchObject({ day: dayName(1), checked: 1, transitions: [] });
    expect(drift()).toEqual([]);

    // Day 2: the shopper types the intended category's name instead. Checked on day 3: firing.
    await shop(3, "categories");
    onDay(3);
    const fired = await stack.drift.runOnce();
    expect(fired?.transitions.length).toBeGreaterThan(0);
    const firing = drift();
    expect(firing.length).toBe(fired?.transitions.length);
    for (const n of firing) {
      expect(n).toMatchObject({
        kind: "firing",
        status: "firing",
        subject: `${demo.systemAccountId}/products`,
      });
      expect(n.details).toMatchObject({ index: "products", modelId: demo.modelId, day: dayName(2) });
      expect(n.details?.psi as number).toBeGreaterThan(0.2);
      expect(n.alerts?.[0]?.labels.feature).toBe(n.details?.feature);
    }

    // Day 3: back to normal. Checked on day 4: each firing alert resolves, paired by fingerprint.
    await shop(4, "queries");
    onDay(4);
    const resolved = await stack.drift.runOnce();
    expect(resolved?.transitions.every((t) => t.status === "resolved")).toBe(true);
    const ends = drift().slice(firing.length);
    expect(ends.map((n) => n.alerts?.[0]?.fingerprint).sort()).toEqual(
      firing.map((n) => n.alerts?.[0]?.fingerprint).sort(),
    );
    for (const n of ends) {
      expect(n).toMatchObject({ kind: "resolved", status: "resolved" });
      expect(n.details?.psi as number).toBeLessThanOrEqual(0.2);
    }
  }, 180_000);
});
