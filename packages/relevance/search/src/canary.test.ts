// The canary in the search app: a candidate model serves the score to the shoppers (X-MS-USER-ID)
// whose stable bucket falls below the percentage; it is named in x-relevance-model and recorded as
// the search's modelId; everyone else, and every search without a user id, gets the serving model.
import { clampScore, loadArtifact, modelKey } from "@relevance/core";
import { canaryBucket, Recorder, type ServedSearch } from "@relevance/outcomes";
import { beforeEach, describe, expect, it } from "vitest";
import { createSearchApp } from "./app.ts";
import {
  artifactText,
  FixedHitsBackend,
  manualClock,
  newKv,
  putApiKey,
  putSettings,
  recordingLogger,
} from "./test-support/harness.ts";

const ACCOUNT = "acct_aaaaaaaaaaaa";
const KEY = "rk_key_of_account_a";
const SERVING = `${ACCOUNT}:products:v1`;
const CANDIDATE = `${ACCOUNT}:products:v2`;
const SHADOW = `${ACCOUNT}:products:v3`;
const TRIGGER = { model_id: SERVING, title_field: "title", tags_field: "tags" };
const HITS = [
  { sku: "1", title: "Red running shoes", tags: ["shoes"] },
  { sku: "2", title: "Blue running shorts", tags: ["apparel"] },
];

let kv: ReturnType<typeof newKv>;
let log: ReturnType<typeof recordingLogger>;
let stored: ServedSearch[];
let recorder: Recorder;

function app() {
  const clock = manualClock();
  return createSearchApp({
    kv,
    retrieval: new FixedHitsBackend(HITS, 2),
    log,
    now: clock.now,
    recorder,
    random: () => 0,
  });
}

async function settings(canary: unknown, shadow?: unknown): Promise<void> {
  await putSettings(kv, ACCOUNT, "products", {
    primary_key: "sku",
    relevance_trigger_config: TRIGGER,
    ...(canary === undefined ? {} : { relevance_canary_config: canary }),
    ...(shadow === undefined ? {} : { relevance_shadow_config: shadow }),
  });
}

beforeEach(async () => {
  kv = newKv();
  await putApiKey(kv, KEY, ACCOUNT);
  await kv.put(modelKey(SERVING), artifactText(SERVING));
  // The candidate predicts 2 lower than the serving model, so the answered score tells them apart.
  await kv.put(modelKey(CANDIDATE), artifactText(CANDIDATE, -2));
  await kv.put(modelKey(SHADOW), artifactText(SHADOW, -1));
  await settings({ model_id: CANDIDATE, percent: 30 });
  log = recordingLogger();
  stored = [];
  recorder = new Recorder({
    sink: async (rows) => {
      stored.push(...rows);
    },
    now: manualClock().now,
    random: () => 0,
    log,
    schedule: () => () => {},
  });
});

async function search(a: ReturnType<typeof app>, userId?: string) {
  const res = await a.request("/api/v1/indexes/products/search", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": KEY,
      ...(userId === undefined ? {} : { "x-ms-user-id": userId }),
    },
    body: JSON.stringify({ q: "red shoes", relevanceScore: true }),
  });
  const body = (await res.json()) as { relevanceScore?: number };
  return { status: res.status, model: res.headers.get("x-relevance-model"), score: body.relevanceScore };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
  await recorder.flush();
};

/** Shoppers in the canary's share (bucket below 30) and outside it. */
function shoppers(): { inside: string; outside: string } {
  let inside: string | undefined;
  let outside: string | undefined;
  for (let i = 0; inside === undefined || outside === undefined; i++) {
    const id = `shopper-${i}`;
    if (canaryBucket(ACCOUNT, "products", id) < 30) inside ??= id;
    else outside ??= id;
  }
  return { inside, outside };
}

function prediction(artifact: string, features: readonly number[]): number {
  const loaded = loadArtifact(artifact, { checkGolden: true });
  if (!loaded.ok) throw new Error("artifact does not load");
  return clampScore(loaded.value.model.predictV1(Float64Array.from(features))) as number;
}

describe("canary serving", () => {
  it("serves a shopper in the share with the candidate: its score, its name in x-relevance-model and the row", async () => {
    const a = app();
    const { inside, outside } = shoppers();
    const canaryAnswer = await search(a, inside);
    const servingAnswer = await search(a, outside);
    expect(canaryAnswer).toMatchObject({ status: 200, model: CANDIDATE });
    expect(servingAnswer).toMatchObject({ status: 200, model: SERVING });
    await settle();
    const [canaryRow, servingRow] = stored as [ServedSearch, ServedSearch];
    expect(canaryRow.modelId).toBe(CANDIDATE);
    expect(canaryRow.score).toBe(canaryAnswer.score);
    expect(canaryRow.score).toBe(prediction(artifactText(CANDIDATE, -2), canaryRow.features));
    expect(servingRow.modelId).toBe(SERVING);
    expect(servingRow.score).toBe(prediction(artifactText(SERVING), servingRow.features));
    // The same features: only the model differs.
    expect(canaryRow.features).toEqual(servingRow.features);
  });

  it("keeps a shopper on one model across searches and across app instances (isolates)", async () => {
    const { inside, outside } = shoppers();
    for (const a of [app(), app(), app()]) {
      for (let i = 0; i < 3; i++) {
        expect((await search(a, inside)).model).toBe(CANDIDATE);
        expect((await search(a, outside)).model).toBe(SERVING);
      }
    }
  });

  it("serves about the percentage of many shoppers with the candidate (±2 %)", async () => {
    await settings({ model_id: CANDIDATE, percent: 10 });
    const a = app();
    const n = 2000;
    let candidate = 0;
    for (let i = 0; i < n; i++) if ((await search(a, `user-${i}`)).model === CANDIDATE) candidate++;
    expect(Math.abs((candidate / n) * 100 - 10)).toBeLessThanOrEqual(2);
  });

  it("gives searches without a user id, or with an over-long one, the serving model", async () => {
    await settings({ model_id: CANDIDATE, percent: 100 });
    const a = app();
    expect((await search(a)).model).toBe(SERVING);
    expect((await search(a, "x".repeat(257))).model).toBe(SERVING);
    expect((await search(a, "anyone")).model).toBe(CANDIDATE);
  });

  it("falls back to the serving model when the candidate's artifact is missing, with one warning", async () => {
    await kv.delete(modelKey(CANDIDATE));
    await settings({ model_id: CANDIDATE, percent: 100 });
    const a = app();
    expect((await search(a, "a")).model).toBe(SERVING);
    expect((await search(a, "b")).model).toBe(SERVING);
    const warnings = log.lines.filter((l) => l.message.startsWith("relevance canary model does not load"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({ modelId: CANDIDATE });
  });

  it("ignores a malformed canary config or one of another account, with a log line, never the search", async () => {
    for (const bad of [
      { model_id: CANDIDATE, percent: 101 },
      { model_id: "acct_bbbbbbbbbbbb:products:v2", percent: 100 },
    ]) {
      await settings(bad);
      log = recordingLogger();
      const answer = await search(app(), "anyone");
      expect(answer).toMatchObject({ status: 200, model: SERVING });
      expect(log.lines.some((l) => l.message === "relevance canary config is not used")).toBe(true);
    }
  });

  it("does not shadow-score a canary-served search; the serving model's searches still are", async () => {
    await settings({ model_id: CANDIDATE, percent: 30 }, { model_id: SHADOW, sample_rate: 1 });
    const a = app();
    const { inside, outside } = shoppers();
    await search(a, inside);
    await search(a, outside);
    await settle();
    const [canaryRow, servingRow] = stored as [ServedSearch, ServedSearch];
    expect(canaryRow.modelId).toBe(CANDIDATE);
    expect(canaryRow.shadowModelId).toBeUndefined();
    expect(servingRow.modelId).toBe(SERVING);
    expect(servingRow.shadowModelId).toBe(SHADOW);
  });
});
