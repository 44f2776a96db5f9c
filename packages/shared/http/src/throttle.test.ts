import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ApiError, onError } from "./errors.ts";
import { AuthThrottle, forwardedClientAddress, headerClientAddress } from "./throttle.ts";

const quiet = { info() {}, warn() {}, error() {} };

describe("AuthThrottle", () => {
  it("refuses an address after its failure budget, until the window ends", () => {
    let now = 1_000_000;
    const t = new AuthThrottle({ maxFailuresPerAddress: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) {
      expect(t.retryAfterSeconds("10.0.0.1", `guess-${i}-xxxxxxxx`)).toBe(0);
      t.failed("10.0.0.1", `guess-${i}-xxxxxxxx`);
    }
    expect(t.retryAfterSeconds("10.0.0.1", "another-guess")).toBe(60);
    now += 45_000;
    expect(t.retryAfterSeconds("10.0.0.1", "another-guess")).toBe(15);
    now += 15_000;
    expect(t.retryAfterSeconds("10.0.0.1", "another-guess")).toBe(0);
  });

  it("does not slow another address that presents its own credential", () => {
    const t = new AuthThrottle({ maxFailuresPerAddress: 2, now: () => 0 });
    t.failed("10.0.0.1", "aaaaaaaa-1");
    t.failed("10.0.0.1", "bbbbbbbb-2");
    expect(t.retryAfterSeconds("10.0.0.1", "cccccccc")).toBeGreaterThan(0);
    expect(t.retryAfterSeconds("10.0.0.2", "the-right-token")).toBe(0);
  });

  it("refuses a credential prefix guessed from many addresses", () => {
    const t = new AuthThrottle({ maxFailuresPerPrefix: 5, prefixLength: 8, now: () => 0 });
    for (let i = 0; i < 5; i++) t.failed(`10.0.1.${i}`, `rk_AbCdE${i}zzzz`);
    expect(t.retryAfterSeconds("10.0.2.1", "rk_AbCdEqqqq")).toBeGreaterThan(0);
    expect(t.retryAfterSeconds("10.0.2.1", "rk_ZyXwVqqqq")).toBe(0);
  });

  it("verdict: wrong keys sharing a real key's prefix never lock the real key out, from any new address", () => {
    const t = new AuthThrottle({ now: () => 0 });
    const real = "rk_rW9XabcdefghijklmnopqrstuvwxyzABCDEF";
    // 54 wrong keys with the real key's first 8 characters, from 54 addresses (under each one's budget).
    for (let i = 0; i < 54; i++) {
      try {
        t.verdict(`198.51.100.${i}`, `${real.slice(0, 8)}-guess-${i}`, false);
      } catch {
        // the guesses past the prefix budget are answered 429
      }
    }
    expect(() => t.verdict("198.51.100.200", `${real.slice(0, 8)}-guess-x`, false)).toThrow(
      /too many failed/,
    );
    // The owner, from an address it never used, still gets in.
    expect(() => t.verdict("203.0.113.7", real, true)).not.toThrow();
    expect(() => t.verdict("203.0.113.8", real, true)).not.toThrow();
  });

  it("verdict: a credential that worked before the block keeps working from that address", () => {
    const t = new AuthThrottle({ maxFailuresPerAddress: 3, now: () => 0 });
    t.verdict("10.0.0.1", "the-right-token", true);
    for (let i = 0; i < 3; i++) {
      expect(() => t.verdict("10.0.0.1", `wrong-${i}-xxxxxxxx`, false)).not.toThrow();
    }
    expect(() => t.verdict("10.0.0.1", "wrong-3-xxxxxxxx", false)).toThrow(/too many failed/);
    // The attacker's correct guess during the block is refused like a wrong one ...
    expect(() => t.verdict("10.0.0.1", "a-guess-that-is-right", true)).toThrow(/too many failed/);
    // ... while the client that had already authenticated from there is not slowed.
    expect(() => t.verdict("10.0.0.1", "the-right-token", true)).not.toThrow();
    expect(() => t.verdict("10.0.0.9", "another-right-token", true)).not.toThrow();
  });

  it("remembers at most maxKeys keys", () => {
    const t = new AuthThrottle({ maxKeys: 100, now: () => 0 });
    for (let i = 0; i < 10_000; i++) {
      t.failed(`addr-${i}`, `cred-${i}-xxxxxxxx`);
      t.verdict(`good-${i}`, `cred-${i}`, true);
    }
    expect(t.size).toBeLessThanOrEqual(200);
  });

  it("answers 429 with Retry-After through the error handler", async () => {
    const t = new AuthThrottle({ maxFailuresPerAddress: 1, now: () => 0 });
    t.failed("1.2.3.4", undefined);
    const app = new Hono();
    app.onError(onError(quiet));
    app.get("/", (c) => {
      // A wrong credential from a blocked address is answered 429; from another, it only counts.
      t.verdict(headerClientAddress(c), "a-wrong-token", false);
      return c.text("ok");
    });
    const res = await app.request("/", { headers: { "cf-connecting-ip": "1.2.3.4" } });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("too_many_requests");
    expect((await app.request("/", { headers: { "cf-connecting-ip": "1.2.3.5" } })).status).toBe(200);
  });
});

describe("client addresses", () => {
  const direct = () => "192.0.2.7";
  const address = async (trust: boolean, headers: Record<string, string>) => {
    const app = new Hono();
    app.get("/", (c) => c.text(forwardedClientAddress(direct, trust)(c)));
    return (await app.request("/", { headers })).text();
  };

  it("ignores X-Forwarded-For unless the proxy is trusted, and then takes the entry the proxy appended", async () => {
    expect(await address(false, { "x-forwarded-for": "203.0.113.9" })).toBe("192.0.2.7");
    // The client sent "203.0.113.9"; the trusted proxy appended the peer it saw.
    expect(await address(true, { "x-forwarded-for": "203.0.113.9, 198.51.100.4" })).toBe("198.51.100.4");
    expect(await address(true, {})).toBe("192.0.2.7");
  });
});

describe("ApiError headers", () => {
  it("are sent with the JSON body", async () => {
    const app = new Hono();
    app.onError(onError(quiet));
    app.get("/", () => {
      throw new ApiError(429, "too_many_requests", "slow down", undefined, { "Retry-After": "7" });
    });
    const res = await app.request("/");
    expect(res.headers.get("retry-after")).toBe("7");
  });
});
