import {
  buildArtifact,
  DEFAULT_ARTIFACT_MAX_BYTES,
  loadArtifact,
  MAX_ARTIFACT_BYTES,
  modelKey,
} from "@relevance/core";
import { describe, expect, it, vi } from "vitest";
import { estimateModelBytes, MODEL_OVERHEAD_BYTES, ModelCache } from "./model-cache.ts";
import { artifactText, FaultyKv, manualClock, newKv } from "./test-support/harness.ts";

const A = "acct_a:products:v1";
const B = "acct_a:products:v2";
const C = "acct_a:products:v3";
const TEXT = artifactText(A);
const LOADED = loadArtifact(TEXT);
if (!LOADED.ok) throw new Error("the fixture artifact does not load");
/** What one cached fixture model is estimated to cost. */
const BYTES = estimateModelBytes(LOADED.value.model);

async function setup(
  options: {
    maxBytes?: number;
    maxArtifactBytes?: number;
    negativeTtlMs?: number;
    kvTimeoutMs?: number;
  } = {},
) {
  const inner = newKv();
  for (const id of [A, B, C]) await inner.put(modelKey(id), artifactText(id));
  const kv = new FaultyKv(inner, (key) => key.startsWith("relevance_model:"));
  const clock = manualClock();
  const cache = new ModelCache({ kv, now: clock.now, ...options });
  return { inner, kv, clock, cache };
}

describe("ModelCache", () => {
  it("loads an artifact once and serves it from memory afterwards", async () => {
    const { kv, cache } = await setup();
    const first = await cache.get(A);
    const second = await cache.get(A);
    expect(first.status).toBe("loaded");
    expect(second).toEqual(first);
    expect(kv.reads).toEqual([modelKey(A)]);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: BYTES, loads: 1, hits: 1, loading: 0 });
  });

  it("shares one KV read among concurrent first lookups of a modelId (single-flight)", async () => {
    const { kv, cache } = await setup();
    const release = kv.hold();
    const lookups = Array.from({ length: 20 }, () => cache.get(A));
    expect(cache.stats().loading).toBe(1);
    release();
    const results = await Promise.all(lookups);
    expect(results.every((r) => r.status === "loaded")).toBe(true);
    expect(new Set(results.map((r) => (r.status === "loaded" ? r.model : null))).size).toBe(1);
    expect(kv.reads).toEqual([modelKey(A)]);
    expect(cache.stats()).toMatchObject({ loads: 1, loading: 0, entries: 1 });
  });

  it("estimates a model's cost from its compiled arrays plus a per-model overhead", () => {
    const model = LOADED.value.model;
    expect(BYTES).toBe(model.memoryBytes + MODEL_OVERHEAD_BYTES);
    // The node arrays alone: 4 + 4 + 1 + 1 + 4 bytes per node (XGBoost values are float32).
    expect(model.memoryBytes).toBeGreaterThanOrEqual(14 * model.numNodes);
  });

  it("is bounded by the estimated cost of the models and evicts the least recently used one", async () => {
    const { kv, cache } = await setup({ maxBytes: Math.floor(BYTES * 2.5) });
    await cache.get(A);
    await cache.get(B);
    await cache.get(A); // A is now more recent than B
    await cache.get(C); // over the bound: B goes
    const stats = cache.stats();
    expect(stats.entries).toBe(2);
    expect(stats.evictions).toBe(1);
    expect(stats.bytes).toBeLessThanOrEqual(stats.maxBytes);
    kv.reads.length = 0;
    await cache.get(A);
    await cache.get(C);
    expect(kv.reads).toEqual([]);
    await cache.get(B);
    expect(kv.reads).toEqual([modelKey(B)]);
    expect(cache.stats().entries).toBe(2);
  });

  it("refuses a model that alone costs more than the bound, and remembers that so it is not re-parsed", async () => {
    const { kv, cache } = await setup({ maxBytes: BYTES - 1 });
    const found = await cache.get(A);
    expect(found.status).toBe("too_large");
    expect(found.status === "too_large" && found.problem).toMatch(/MODEL_CACHE_MB/);
    expect((await cache.get(A)).status).toBe("too_large");
    expect(kv.reads).toHaveLength(1);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it("refuses an artifact above the artifact limit before parsing it, and remembers that", async () => {
    const { inner, kv, cache } = await setup({ maxArtifactBytes: 1000 });
    const id = "acct_a:products:v6";
    // Not JSON at all: a parse would report that instead of the size.
    await inner.put(modelKey(id), `{${"x".repeat(2000)}`);
    const found = await cache.get(id);
    expect(found.status === "malformed" && found.problem).toMatch(
      /2001 bytes, above the limit of 1000 bytes/,
    );
    expect(found.status === "malformed" && found.problem).not.toMatch(/JSON/);
    expect((await cache.get(id)).status).toBe("malformed");
    expect(kv.reads).toHaveLength(1);
  });

  it("keeps only the compiled model and metadata, not the parsed trees", async () => {
    const { cache } = await setup();
    const found = await cache.get(A);
    if (found.status !== "loaded") throw new Error(found.status);
    expect(Object.keys(found.model).sort()).toEqual(
      ["artifactBytes", "estimatedBytes", "index", "model", "modelId", "trainedOn"].sort(),
    );
    expect(found.model.artifactBytes).toBe(new TextEncoder().encode(TEXT).byteLength);
  });

  it("remembers a missing artifact for the negative-cache window, then picks up an upload", async () => {
    const { inner, kv, clock, cache } = await setup({ negativeTtlMs: 30_000 });
    const id = "acct_a:products:v9";
    expect(await cache.get(id)).toEqual({ status: "missing" });
    await inner.put(modelKey(id), artifactText(id));
    clock.advance(29_999);
    expect(await cache.get(id)).toEqual({ status: "missing" });
    expect(kv.reads).toHaveLength(1);
    clock.advance(1);
    expect((await cache.get(id)).status).toBe("loaded");
    expect(kv.reads).toHaveLength(2);
  });

  it("defaults the negative window to 60 s and refuses a longer one", async () => {
    const { inner, clock, cache } = await setup();
    const id = "acct_a:products:v9";
    expect((await cache.get(id)).status).toBe("missing");
    await inner.put(modelKey(id), artifactText(id));
    clock.advance(59_999);
    expect((await cache.get(id)).status).toBe("missing");
    clock.advance(1);
    expect((await cache.get(id)).status).toBe("loaded");
    expect(() => new ModelCache({ kv: inner, negativeTtlMs: 60_001 })).toThrow(RangeError);
  });

  it("remembers a malformed artifact the same way and names the problem", async () => {
    const { inner, kv, clock, cache } = await setup();
    const id = "acct_a:products:v8";
    await inner.put(modelKey(id), '{"format": "nope"');
    const first = await cache.get(id);
    expect(first.status).toBe("malformed");
    expect(first.status === "malformed" && first.problem).toMatch(/not valid JSON/);
    expect((await cache.get(id)).status).toBe("malformed");
    expect(kv.reads).toHaveLength(1);
    clock.advance(60_000);
    await cache.get(id);
    expect(kv.reads).toHaveLength(2);
  });

  it("refuses an artifact stored under another modelId's key", async () => {
    const { inner, cache } = await setup();
    const id = "acct_a:products:v7";
    await inner.put(modelKey(id), artifactText(A));
    const found = await cache.get(id);
    expect(found.status).toBe("malformed");
    expect(found.status === "malformed" && found.problem).toContain(A);
  });

  it("does not remember KV errors: the next lookup reads again", async () => {
    const { kv, cache } = await setup();
    kv.mode = "throw";
    const failed = await cache.get(A);
    expect(failed.status).toBe("kv_error");
    expect(failed.status === "kv_error" && failed.problem).toMatch(/KV read failed/);
    kv.mode = "ok";
    expect((await cache.get(A)).status).toBe("loaded");
    expect(kv.reads).toHaveLength(2);
  });

  it("gives up on a hanging KV read after kvTimeoutMs and does not remember it", async () => {
    const { kv, cache } = await setup({ kvTimeoutMs: 20 });
    kv.mode = "hang";
    // The deadline on vitest's fake timers: no answer 1 ms before kvTimeoutMs, the answer at it.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let failed: Awaited<ReturnType<typeof cache.get>> | undefined;
    try {
      const answered = cache.get(A).then((result) => {
        failed = result;
      });
      await vi.advanceTimersByTimeAsync(19);
      expect(failed).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await answered;
    } finally {
      vi.useRealTimers();
    }
    expect(failed?.status === "kv_error" && failed.problem).toMatch(/timed out after 20 ms/);
    expect(cache.stats().loading).toBe(0);
    kv.mode = "ok";
    expect((await cache.get(A)).status).toBe("loaded");
  });
});

/** A complete tree of `depth` in breadth-first order; `value` gives each threshold and leaf. */
function completeTree(depth: number, features: number, value: (i: number) => number) {
  const nodes = 2 ** (depth + 1) - 1;
  const internal = 2 ** depth - 1;
  const tree = {
    left: [] as number[],
    right: [] as number[],
    feature: [] as number[],
    value: [] as number[],
  };
  for (let i = 0; i < nodes; i++) {
    const split = i < internal;
    tree.left.push(split ? 2 * i + 1 : -1);
    tree.right.push(split ? 2 * i + 2 : -1);
    tree.feature.push(split ? i % features : -1);
    tree.value.push(value(i));
  }
  return { ...tree, defaultLeft: tree.left.map(() => 0) };
}

/** The largest artifact of such trees under `maxBytes`: trees are added until the next would not fit. */
function largestArtifact(
  modelId: string,
  maxBytes: number,
  tree: (t: number) => ReturnType<typeof completeTree>,
) {
  const draft = {
    semantics: "xgboost" as const,
    objective: "reg:squarederror",
    objectiveParams: {},
    baseScore: 0.5,
    averageOutput: false,
    features: ["hit_count", "jaccard", "title_coverage", "log_total_hits"],
    trees: [tree(0)],
    source: { library: "xgboost" as const, version: "test" },
  };
  const build = (n: number) => {
    draft.trees = Array.from({ length: n }, (_, t) => tree(t));
    const built = buildArtifact(draft, {
      modelId,
      index: "products",
      titleField: "title",
      tagsField: null,
      maxBytes: MAX_ARTIFACT_BYTES,
    });
    if (!built.ok) throw new Error(JSON.stringify(built.errors));
    return built.value;
  };
  // Size is linear in the tree count (plus the fixed golden rows and metadata).
  const ten = build(10).bytes;
  const perTree = (build(20).bytes - ten) / 10;
  let n = Math.floor(10 + (maxBytes - ten) / perTree);
  let built = build(n);
  while (built.bytes > maxBytes) built = build(--n);
  return built;
}

describe("ModelCache and the largest allowed artifact", () => {
  it.each([
    // Realistic: depth-6 trees with float32 thresholds and leaves (long numbers in JSON).
    [
      "depth-6 trees with float32 values",
      (t: number) => completeTree(6, 4, (i) => Math.fround(Math.sin(t * 131 + i))),
    ],
    // The fewest JSON bytes per node: small trees of one-digit values, so the most nodes per MiB.
    ["depth-3 trees with one-digit values", (t: number) => completeTree(3, 4, (i) => (t + i) % 10)],
  ])(
    "keeps an artifact of %s just under 8 MiB within the default 32 MB cache",
    async (_name, tree) => {
      const id = "acct_a:products:v42";
      const built = largestArtifact(id, DEFAULT_ARTIFACT_MAX_BYTES, tree);
      expect(built.bytes).toBeGreaterThan(DEFAULT_ARTIFACT_MAX_BYTES * 0.99);
      const kv = newKv();
      await kv.put(modelKey(id), built.text);
      const cache = new ModelCache({ kv, kvTimeoutMs: 60_000 });
      const found = await cache.get(id);
      expect(found.status).toBe("loaded");
      const stats = cache.stats();
      expect(stats.maxBytes).toBe(32 * 1024 * 1024);
      expect(stats.entries).toBe(1);
      expect(stats.bytes).toBeLessThanOrEqual(stats.maxBytes);
    },
    60_000,
  );
});
