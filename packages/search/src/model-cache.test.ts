import { modelKey } from "@relevance/core";
import { describe, expect, it } from "vitest";
import { ModelCache } from "./model-cache.ts";
import { artifactText, FaultyKv, manualClock, newKv } from "./test-support/harness.ts";

const A = "acct_a:products:v1";
const B = "acct_a:products:v2";
const C = "acct_a:products:v3";
const TEXT = artifactText(A);
const BYTES = new TextEncoder().encode(TEXT).byteLength;

async function setup(options: { maxBytes?: number; negativeTtlMs?: number; kvTimeoutMs?: number } = {}) {
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

  it("is bounded by artifact bytes and evicts the least recently used model", async () => {
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

  it("serves an artifact larger than the bound without keeping it", async () => {
    const { kv, cache } = await setup({ maxBytes: BYTES - 1 });
    expect((await cache.get(A)).status).toBe("loaded");
    expect((await cache.get(A)).status).toBe("loaded");
    expect(kv.reads).toHaveLength(2);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
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
    const started = performance.now();
    const failed = await cache.get(A);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(failed.status === "kv_error" && failed.problem).toMatch(/timed out after 20 ms/);
    expect(cache.stats().loading).toBe(0);
    kv.mode = "ok";
    expect((await cache.get(A)).status).toBe("loaded");
  });
});
