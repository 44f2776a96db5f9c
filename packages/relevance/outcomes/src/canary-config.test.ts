import { describe, expect, it } from "vitest";
import { CanaryConfigSchema, canaryBucket, canaryConfigOf, canaryModelFor } from "./canary-config.ts";
import { MAX_USER_ID_CHARS } from "./user-hash.ts";

const config = (percent: number) => ({ model_id: "acct_000000000001:products:v2", percent });

describe("canaryBucket", () => {
  it("is a fixed function of account, index and user id (the same on every runtime and every call)", () => {
    // Pinned values: a change here moves shoppers between models mid-canary.
    expect(canaryBucket("acct_000000000001", "products", "shopper-1")).toBe(4.925500461831689);
    expect(canaryBucket("acct_000000000001", "products", "shopper-2")).toBe(71.127151674591);
    expect(canaryBucket("acct_000000000001", "shoes", "shopper-1")).toBe(79.29211654700339);
    expect(canaryBucket("acct_000000000002", "products", "shopper-1")).toBe(14.998875092715025);
  });

  it("separates the parts, so moving a character between index and user id moves the bucket", () => {
    expect(canaryBucket("a", "bc", "d")).not.toBe(canaryBucket("a", "b", "cd"));
  });

  it("stays in [0, 100) and gives each percentage its share of many shoppers within ±2 %", () => {
    const n = 20_000;
    const buckets = Array.from({ length: n }, (_, i) =>
      canaryBucket("acct_00000000000a", "products", `u${i}`),
    );
    expect(Math.min(...buckets)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...buckets)).toBeLessThan(100);
    for (const percent of [1, 5, 10, 25, 50, 90]) {
      const share = (buckets.filter((b) => b < percent).length / n) * 100;
      expect(Math.abs(share - percent), `${percent} %`).toBeLessThanOrEqual(2);
    }
  });
});

describe("canaryModelFor", () => {
  it("serves the candidate to shoppers below the percentage and the serving model to the rest", () => {
    const users = Array.from({ length: 400 }, (_, i) => `user-${i}`);
    const chosen = users.filter((u) => canaryModelFor(config(30), "acct_x", "products", u) !== null);
    expect(chosen.length).toBeGreaterThan(0);
    for (const u of users) {
      const inside = canaryBucket("acct_x", "products", u) < 30;
      expect(canaryModelFor(config(30), "acct_x", "products", u)).toBe(inside ? config(30).model_id : null);
    }
    // Raising the share keeps everyone already in it: a rollout only adds shoppers.
    for (const u of chosen) expect(canaryModelFor(config(60), "acct_x", "products", u)).not.toBeNull();
  });

  it("0 serves nobody, 100 every shopper with a user id; no config, no user id or an over-long one: serving", () => {
    expect(canaryModelFor(config(0), "a", "i", "u")).toBeNull();
    expect(canaryModelFor(config(100), "a", "i", "u")).toBe(config(100).model_id);
    expect(canaryModelFor(null, "a", "i", "u")).toBeNull();
    expect(canaryModelFor(config(100), "a", "i", undefined)).toBeNull();
    expect(canaryModelFor(config(100), "a", "i", "")).toBeNull();
    expect(canaryModelFor(config(100), "a", "i", "x".repeat(MAX_USER_ID_CHARS + 1))).toBeNull();
    expect(canaryModelFor(config(100), "a", "i", "x".repeat(MAX_USER_ID_CHARS))).not.toBeNull();
  });
});

describe("canaryConfigOf", () => {
  it("reads absent as no canary and a malformed value as no canary, flagged", () => {
    expect(canaryConfigOf(undefined)).toEqual({ config: null, valid: true });
    expect(canaryConfigOf(null)).toEqual({ config: null, valid: true });
    expect(canaryConfigOf(config(10))).toEqual({ config: config(10), valid: true });
    for (const bad of [
      { model_id: "m", percent: 101 },
      { model_id: "m", percent: -1 },
      { model_id: "", percent: 5 },
      { model_id: "m", percent: 5, x: 1 },
      "m",
    ]) {
      expect(canaryConfigOf(bad), JSON.stringify(bad)).toEqual({ config: null, valid: false });
    }
    expect(CanaryConfigSchema.safeParse({ model_id: "m", percent: 12.5 }).success).toBe(true);
  });
});
