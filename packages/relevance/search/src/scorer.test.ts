import { clampScore, computeFeaturesV1, FEATURE_SET_V1, loadArtifact, modelKey } from "@relevance/core";
import { describe, expect, it } from "vitest";
import { RelevanceScorer, type ScoreInput } from "./scorer.ts";
import { artifactText, FaultyKv, manualClock, newKv, recordingLogger } from "./test-support/harness.ts";

const MODEL = "acct_a:products:v1";
const CONFIG = { model_id: MODEL, title_field: "title", tags_field: "tags" };
const HITS = [
  { id: "1", title: "Red running shoes", tags: ["shoes", "running"] },
  { id: "2", title: "Blue running shorts", tags: ["apparel"] },
  { id: "3", title: "Red socks", tags: "socks" },
];
const INPUT: ScoreInput = {
  account: "acct_a",
  index: "products",
  config: CONFIG,
  query: "red running shoes",
  hits: HITS,
  estimatedTotalHits: 42,
};

async function setup() {
  const inner = newKv();
  await inner.put(modelKey(MODEL), artifactText(MODEL));
  const kv = new FaultyKv(inner, (key) => key.startsWith("relevance_model:"));
  const clock = manualClock();
  const log = recordingLogger();
  const scorer = new RelevanceScorer({ kv, log, now: clock.now, kvTimeoutMs: 20 });
  return { inner, kv, clock, log, scorer };
}

/** The score computed independently of the scorer: load, features v1, predict, clamp. */
function expectedScore(input: ScoreInput, titleField: string | null, tagsField: string | null): number {
  const loaded = loadArtifact(artifactText(MODEL));
  if (!loaded.ok) throw new Error("fixture does not load");
  const features = computeFeaturesV1({
    query: input.query,
    hits: input.hits,
    estimatedTotalHits: input.estimatedTotalHits,
    titleField,
    tagsField,
  });
  return clampScore(loaded.value.model.predictV1(features)) as number;
}

/** Feature set v1 computed independently, as plain numbers in FEATURE_SET_V1 order. */
function expectedFeatures(input: ScoreInput, titleField: string | null, tagsField: string | null): number[] {
  return Array.from(
    computeFeaturesV1({
      query: input.query,
      hits: input.hits,
      estimatedTotalHits: input.estimatedTotalHits,
      titleField,
      tagsField,
    }),
  );
}

describe("RelevanceScorer", () => {
  it("returns the feature vector the model predicted from, as numbers in FEATURE_SET_V1 order", async () => {
    const { scorer } = await setup();
    const result = await scorer.score(INPUT);
    expect(result?.features).toHaveLength(FEATURE_SET_V1.length);
    expect(Array.isArray(result?.features)).toBe(true);
    const loaded = loadArtifact(artifactText(MODEL));
    if (!loaded.ok) throw new Error("fixture does not load");
    // Predicting from the returned vector gives the served score: it is the vector the model saw.
    expect(clampScore(loaded.value.model.predictV1(Float64Array.from(result?.features ?? [])))).toBe(
      result?.score,
    );
  });

  it("scores with the configured fields: clampScore(predictV1(computeFeaturesV1(...)))", async () => {
    const { scorer, log } = await setup();
    const result = await scorer.score(INPUT);
    expect(result).toEqual({
      score: expectedScore(INPUT, "title", "tags"),
      modelId: MODEL,
      features: expectedFeatures(INPUT, "title", "tags"),
    });
    expect(result?.score).toBeGreaterThanOrEqual(0);
    expect(result?.score).toBeLessThanOrEqual(10);
    expect(log.lines).toEqual([]);
  });

  it("uses null title/tags fields as configured (those features are 0)", async () => {
    const { scorer } = await setup();
    const input = { ...INPUT, config: { model_id: MODEL, title_field: null, tags_field: null } };
    expect((await scorer.score(input))?.score).toBe(expectedScore(input, null, null));
  });

  it("skips silently without a config", async () => {
    const { scorer, log, kv } = await setup();
    expect(await scorer.score({ ...INPUT, config: undefined })).toBeNull();
    expect(await scorer.score({ ...INPUT, config: null })).toBeNull();
    expect(log.lines).toEqual([]);
    expect(kv.reads).toEqual([]);
  });

  it("logs a malformed config as an error (rate-limited) and gives no score", async () => {
    const { scorer, log, clock } = await setup();
    const bad = { ...INPUT, config: { model_id: MODEL, title_field: "title" } };
    for (let i = 0; i < 5; i++) expect(await scorer.score(bad)).toBeNull();
    expect(log.lines).toEqual([
      {
        level: "error",
        message: "relevance trigger config is malformed",
        fields: {
          account: "acct_a",
          index: "products",
          problem: "relevance_trigger_config.tags_field: is required (use null to skip these features)",
        },
      },
    ]);
    clock.advance(60_000);
    await scorer.score(bad);
    expect(log.lines).toHaveLength(2);
    expect(log.lines[1]?.fields.repeats).toBe(4);
  });

  it("does not score with another account's model (a direct table edit), and never reads it", async () => {
    const { scorer, log, kv } = await setup();
    // acct_b's index naming acct_a's model: the artifact exists, but it is not acct_b's.
    expect(await scorer.score({ ...INPUT, account: "acct_b" })).toBeNull();
    expect(kv.reads).toEqual([]);
    expect(log.lines).toEqual([
      {
        level: "error",
        message: "relevance trigger config is malformed",
        fields: {
          account: "acct_b",
          index: "products",
          problem: expect.stringContaining(
            "relevance_trigger_config.model_id: names a model of account acct_a",
          ),
        },
      },
    ]);
  });

  it("warns once per account, index and modelId per minute when the artifact is missing", async () => {
    const { scorer, log, kv, clock } = await setup();
    const missing = { ...INPUT, config: { ...CONFIG, model_id: "acct_a:products:v2" } };
    for (let i = 0; i < 50; i++) expect(await scorer.score(missing)).toBeNull();
    expect(log.lines).toEqual([
      {
        level: "warn",
        message: "relevance model artifact missing",
        fields: { account: "acct_a", index: "products", modelId: "acct_a:products:v2" },
      },
    ]);
    expect(kv.reads).toHaveLength(1); // the negative cache
    await scorer.score({ ...missing, index: "shop" }); // another record naming the same model
    expect(log.at("warn").map((l) => l.fields.index)).toEqual(["products", "shop"]);
    clock.advance(60_000);
    await scorer.score(missing);
    expect(log.at("warn")).toHaveLength(3);
    expect(kv.reads).toHaveLength(2);
  });

  it("logs a malformed artifact as an error naming the modelId and the problem", async () => {
    const { scorer, log, inner } = await setup();
    const id = "acct_a:products:v3";
    await inner.put(modelKey(id), JSON.stringify({ format: "something else" }));
    expect(await scorer.score({ ...INPUT, config: { ...CONFIG, model_id: id } })).toBeNull();
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({
      level: "error",
      message: "relevance model artifact is malformed",
      fields: { account: "acct_a", index: "products", modelId: id },
    });
    expect(String(log.lines[0]?.fields.problem)).not.toBe("");
  });

  it.each(["throw", "hang"] as const)("gives no score and logs an error when KV reads %s", async (mode) => {
    const { scorer, log, kv } = await setup();
    kv.mode = mode;
    expect(await scorer.score(INPUT)).toBeNull();
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({
      level: "error",
      message: "relevance model artifact could not be read",
      fields: { account: "acct_a", index: "products", modelId: MODEL },
    });
    kv.mode = "ok"; // not negatively cached: the next search scores
    expect(await scorer.score(INPUT)).not.toBeNull();
    expect(kv.reads).toHaveLength(2);
  });

  it("never throws, even with a failing logger", async () => {
    const { kv } = await setup();
    const explode = () => {
      throw new Error("logger down");
    };
    const scorer = new RelevanceScorer({ kv, log: { info: explode, warn: explode, error: explode } });
    await expect(scorer.score({ ...INPUT, config: "not an object" })).resolves.toBeNull();
  });

  it("exposes the cache stats", async () => {
    const { scorer } = await setup();
    await scorer.score(INPUT);
    await scorer.score(INPUT);
    expect(scorer.stats()).toMatchObject({ entries: 1, loads: 1, hits: 1 });
    expect(scorer.stats().bytes).toBeGreaterThan(0);
  });
});
