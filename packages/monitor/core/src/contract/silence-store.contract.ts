/**
 * One behaviour suite for every `SilenceStore` adapter: in memory and SQLite (the embedded stack).
 * Each adapter's test file calls `silenceStoreContract`.
 */
import { describe, expect, it } from "vitest";
import type { Silence } from "../alerts/index.ts";
import type { SilenceStore } from "../ports.ts";

export interface SilenceStoreAdapter {
  name: string;
  /** A store with no silence. */
  open(): Promise<SilenceStore>;
}

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const H = 3600_000;

function silence(id: string, over: Partial<Silence> = {}): Silence {
  return {
    id,
    matchers: { rule: "collector_failure", subject: { op: "prefix", value: "ec2/größe" } },
    author: "ann",
    reason: "maintenance ✓",
    startsAt: T0,
    endsAt: T0 + H,
    createdAt: T0,
    ...over,
  };
}

export function silenceStoreContract(adapter: SilenceStoreAdapter): void {
  describe(`SilenceStore contract: ${adapter.name}`, () => {
    it("creates once and lists as created, by createdAt then id", async () => {
      const store = await adapter.open();
      expect(await store.list()).toEqual([]);
      const b = silence("b", { matchers: { rule: null, subject: { op: "regex", value: "a.*" } } });
      expect(await store.create(b)).toBe(true);
      expect(await store.create(silence("a", { createdAt: T0 + 1 }))).toBe(true);
      expect(await store.create(silence("c"))).toBe(true);
      expect(await store.create(silence("b", { reason: "again" }))).toBe(false);
      const listed = await store.list();
      expect(listed.map((s) => s.id)).toEqual(["b", "c", "a"]);
      expect(listed[0]).toEqual(b);
    });

    it("expires: the end moves to `at`, a later expire or an ended one changes nothing", async () => {
      const store = await adapter.open();
      await store.create(silence("s"));
      await store.create(silence("p", { startsAt: T0 + 10 * 60_000 }));
      expect(await store.expire("missing", T0)).toBeNull();
      const e = await store.expire("s", T0 + 60_000);
      expect(e).toEqual(silence("s", { endsAt: T0 + 60_000 }));
      expect((await store.expire("s", T0 + 120_000))?.endsAt).toBe(T0 + 60_000);
      const p = await store.expire("p", T0 + 60_000);
      expect(p).toMatchObject({ startsAt: T0 + 60_000, endsAt: T0 + 60_000 });
      expect((await store.list()).find((x) => x.id === "s")?.endsAt).toBe(T0 + 60_000);
    });

    it("prunes silences ended before a time", async () => {
      const store = await adapter.open();
      await store.create(silence("old", { endsAt: T0 + 1 }));
      await store.create(silence("new", { endsAt: T0 + H }));
      expect(await store.prune(T0 + 2)).toBe(1);
      expect((await store.list()).map((s) => s.id)).toEqual(["new"]);
    });
  });
}
