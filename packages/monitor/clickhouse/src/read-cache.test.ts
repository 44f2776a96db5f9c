import { describe, expect, it } from "vitest";
import { VersionedReadCache } from "./read-cache.ts";

/** A cache over a version and a clock the test moves, counting the reads it sends. */
function cacheWith(opts: { maxAgeMs: number | null; maxEntries?: number }) {
  let version = "v1";
  let clock = 1_000;
  let reads = 0;
  const cache = new VersionedReadCache({
    version: async () => version,
    now: () => clock,
    ...opts,
  });
  const read = (key: string, value: unknown = key) =>
    cache.get(key, async () => {
      reads += 1;
      return value;
    });
  return {
    cache,
    read,
    reads: () => reads,
    setVersion: (v: string) => {
      version = v;
    },
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe("VersionedReadCache", () => {
  it("answers from memory until the write version changes", async () => {
    const c = cacheWith({ maxAgeMs: null });
    expect(await c.read("heads", 1)).toBe(1);
    expect(await c.read("heads", 2)).toBe(1);
    expect(c.reads()).toBe(1);
    c.setVersion("v2");
    expect(await c.read("heads", 3)).toBe(3);
    expect(c.reads()).toBe(2);
  });

  it("without a maximum age, time alone never expires an entry", async () => {
    const c = cacheWith({ maxAgeMs: null });
    await c.read("heads");
    c.advance(365 * 86_400_000);
    await c.read("heads");
    expect(c.reads()).toBe(1);
  });

  it("with a maximum age, an entry older than it is read again though the version is the same", async () => {
    const c = cacheWith({ maxAgeMs: 50 });
    await c.read("heads");
    c.advance(50);
    await c.read("heads");
    expect(c.reads()).toBe(1);
    c.advance(1);
    await c.read("heads");
    expect(c.reads()).toBe(2);
    // the new entry's age starts at its own read
    c.advance(50);
    await c.read("heads");
    expect(c.reads()).toBe(2);
  });

  it("calls of the same version share one read", async () => {
    const c = cacheWith({ maxAgeMs: null });
    const both = await Promise.all([c.read("accounts"), c.read("accounts")]);
    expect(both).toEqual(["accounts", "accounts"]);
    expect(c.reads()).toBe(1);
  });

  it("reuses an entry only when reuse() accepts what it was read for", async () => {
    const c = cacheWith({ maxAgeMs: null });
    let reads = 0;
    const streaks = (since: number) =>
      c.cache.get(
        "streaks",
        async () => {
          reads += 1;
          return since;
        },
        since,
        (readSince) => typeof readSince === "number" && readSince <= since,
      );
    expect(await streaks(100)).toBe(100);
    expect(await streaks(200)).toBe(100);
    expect(reads).toBe(1);
    expect(await streaks(50)).toBe(50);
    expect(reads).toBe(2);
  });

  it("does not keep a failed read", async () => {
    const c = cacheWith({ maxAgeMs: null });
    await expect(c.cache.get("heads", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await c.read("heads", "up")).toBe("up");
    expect(c.reads()).toBe(1);
  });

  it("keeps at most maxEntries, dropping the one read longest ago", async () => {
    const c = cacheWith({ maxAgeMs: null, maxEntries: 2 });
    await c.read("a");
    await c.read("b");
    await c.read("c");
    expect(c.cache.size).toBe(2);
    await c.read("b");
    await c.read("c");
    expect(c.reads()).toBe(3);
    await c.read("a");
    expect(c.reads()).toBe(4);
  });
});
