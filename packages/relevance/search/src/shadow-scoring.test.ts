// Shadow scoring in the search app: a second model predicts on the served feature vector after the
// answer has left, and the recorded row carries both scores; the answer never changes.
import { clampScore, loadArtifact, modelKey } from "@relevance/core";
import { Recorder, type ServedSearch, ServedSearchSchema } from "@relevance/outcomes";
import { beforeEach, describe, expect, it } from "vitest";
import { createSearchApp, type SearchAppDeps } from "./app.ts";
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
const SHADOW = `${ACCOUNT}:products:v2`;
const MISSING = `${ACCOUNT}:products:v9`;
const TRIGGER = { model_id: SERVING, title_field: "title", tags_field: "tags" };
const HITS = [
  { sku: "1", title: "Red running shoes", tags: ["shoes"] },
  { sku: "2", title: "Blue running shorts", tags: ["apparel"] },
];

let kv: ReturnType<typeof newKv>;
let clock: ReturnType<typeof manualClock>;
let log: ReturnType<typeof recordingLogger>;
let stored: ServedSearch[];
let recorder: Recorder;
let draw: number;

function app(overrides: Partial<SearchAppDeps> = {}) {
  return createSearchApp({
    kv,
    retrieval: new FixedHitsBackend(HITS, 2),
    log,
    now: clock.now,
    recorder,
    random: () => draw,
    ...overrides,
  });
}

async function settings(index: string, shadow: unknown): Promise<void> {
  await putSettings(kv, ACCOUNT, index, {
    primary_key: "sku",
    relevance_trigger_config: TRIGGER,
    ...(shadow === undefined ? {} : { relevance_shadow_config: shadow }),
  });
}

beforeEach(async () => {
  kv = newKv();
  await putApiKey(kv, KEY, ACCOUNT);
  // Two models in KV: the serving one and a shadow whose predictions are 2 lower.
  await kv.put(modelKey(SERVING), artifactText(SERVING));
  await kv.put(modelKey(SHADOW), artifactText(SHADOW, -2));
  await settings("products", { model_id: SHADOW, sample_rate: 0.5 });
  clock = manualClock();
  log = recordingLogger();
  stored = [];
  draw = 0.25;
  recorder = new Recorder({
    sink: async (rows) => {
      stored.push(...rows);
    },
    now: clock.now,
    random: () => 0,
    log,
    schedule: () => () => {},
  });
});

async function search(a: ReturnType<typeof app>, index = "products", q = "red shoes") {
  const res = await a.request(`/api/v1/indexes/${index}/search`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY },
    body: JSON.stringify({ q, relevanceScore: true }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
  await recorder.flush();
};

function shadowPrediction(features: readonly number[]): number {
  const loaded = loadArtifact(artifactText(SHADOW, -2), { checkGolden: true });
  if (!loaded.ok) throw new Error("shadow artifact does not load");
  return clampScore(loaded.value.model.predictV1(Float64Array.from(features))) as number;
}

describe("shadow scoring", () => {
  it("records the shadow model's score on the served feature vector, never in the answer", async () => {
    const a = app();
    const withShadow = await search(a);
    // Off the response path: nothing scored or recorded before the answer has left.
    expect(stored).toEqual([]);
    await settle();
    const row = stored[0] as ServedSearch;
    expect(ServedSearchSchema.parse(row)).toEqual(row);
    expect(row.modelId).toBe(SERVING);
    expect(row.shadowModelId).toBe(SHADOW);
    expect(row.shadowScore).toBe(shadowPrediction(row.features));
    expect(row.shadowScore).not.toBe(row.score);

    // The same search without a shadow config answers the same (but the queryUid and timing).
    await settings("products", undefined);
    const without = await search(app());
    const strip = (t: string) => t.replace(/"queryUid":"[^"]+"/, "").replace(/"processingTimeMs":\d+/, "");
    expect(strip(withShadow.text)).toBe(strip(without.text));
    expect(withShadow.text).not.toContain(SHADOW);
    expect(withShadow.text).not.toContain("shadow");
    expect(withShadow.headers.get("x-relevance-model")).toBe(SERVING);
    await settle();
    expect(stored[1]).not.toHaveProperty("shadowModelId");
    expect(stored[1]).not.toHaveProperty("shadowScore");
  });

  it("scores only the sampled share: a draw at or above the sample rate records no shadow fields", async () => {
    draw = 0.5;
    await search(app());
    // The draw is taken after the answer has left: settle before changing it.
    await settle();
    await settings("products", { model_id: SHADOW, sample_rate: 0 });
    draw = 0;
    await search(app());
    await settle();
    expect(stored).toHaveLength(2);
    for (const row of stored) expect(row).not.toHaveProperty("shadowScore");
  });

  it("does no shadow work for a search the recording samples out: no row, no shadow model loaded", async () => {
    await putSettings(kv, ACCOUNT, "products", {
      primary_key: "sku",
      relevance_trigger_config: TRIGGER,
      relevance_recording_config: { sample_rate: 0 },
      // A shadow that would warn the moment anything tried to load it.
      relevance_shadow_config: { model_id: MISSING, sample_rate: 1 },
    });
    const a = app();
    for (let i = 0; i < 3; i++) expect((await search(a)).status).toBe(200);
    await settle();
    expect(stored).toHaveLength(0);
    expect(recorder.stats()).toMatchObject({ offered: 3, sampledOut: 3 });
    expect(
      log.at("warn").filter((l) => l.message === "relevance shadow model artifact missing"),
    ).toHaveLength(0);
  });

  it("records the row without shadow fields when the shadow artifact is missing, warning once per model and window", async () => {
    await settings("products", { model_id: MISSING, sample_rate: 1 });
    const a = app();
    for (let i = 0; i < 3; i++) expect((await search(a)).status).toBe(200);
    await settle();
    expect(stored).toHaveLength(3);
    for (const row of stored) {
      expect(row.modelId).toBe(SERVING);
      expect(row).not.toHaveProperty("shadowModelId");
    }
    const warned = () =>
      log.at("warn").filter((l) => l.message === "relevance shadow model artifact missing");
    expect(warned()).toHaveLength(1);
    expect(warned()[0]?.fields).toMatchObject({ account: ACCOUNT, index: "products", modelId: MISSING });
    clock.advance(60_001);
    await search(a);
    await settle();
    expect(warned()).toHaveLength(2);
    expect(warned()[1]?.fields).toMatchObject({ repeats: 2 });
  });

  it("records the row without shadow fields for a malformed artifact, logging it once per window", async () => {
    await kv.put(modelKey(SHADOW), "{not an artifact");
    const a = app();
    await search(a);
    await search(a);
    await settle();
    expect(stored).toHaveLength(2);
    for (const row of stored) expect(row).not.toHaveProperty("shadowScore");
    expect(log.at("error").filter((l) => l.message === "relevance shadow model does not load")).toHaveLength(
      1,
    );
  });

  it("ignores a malformed config or another account's model, logging once per index and window", async () => {
    await settings("products", { model_id: SHADOW, sample_rate: 2 });
    await settings("other", { model_id: "acct_bbbbbbbbbbbb:products:v1", sample_rate: 1 });
    await kv.put(modelKey("acct_bbbbbbbbbbbb:products:v1"), artifactText("acct_bbbbbbbbbbbb:products:v1", 1));
    const a = app();
    await search(a);
    await search(a);
    await search(a, "other");
    await settle();
    expect(stored).toHaveLength(3);
    for (const row of stored) expect(row).not.toHaveProperty("shadowModelId");
    const lines = log.at("error").filter((l) => l.message === "relevance shadow config is not used");
    expect(lines.map((l) => l.fields.index)).toEqual(["products", "other"]);
  });

  it("does not shadow-score a search that is not scored", async () => {
    const a = app();
    await a.request("/api/v1/indexes/products/search", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": KEY },
      body: JSON.stringify({ q: "red" }),
    });
    await settle();
    expect(stored).toEqual([]);
  });
});
