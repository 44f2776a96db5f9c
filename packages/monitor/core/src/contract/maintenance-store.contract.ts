/**
 * One behaviour suite for every `MaintenanceStore` adapter: in memory, SQLite (the embedded stack)
 * and DynamoDB (the Lambda stack). Each adapter's test file calls `maintenanceStoreContract`.
 */
import { describe, expect, it } from "vitest";
import type { MaintenanceWindow } from "../alerts/index.ts";
import type { MaintenanceStore } from "../ports.ts";

export interface MaintenanceStoreAdapter {
  name: string;
  /** A store with no window. */
  open(): Promise<MaintenanceStore>;
}

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const H = 3600_000;

function once(id: string, over: Partial<MaintenanceWindow> = {}): MaintenanceWindow {
  return {
    id,
    scope: { collectors: ["config_ec2", "größe"] },
    author: "ann",
    reason: "database upgrade ✓",
    createdAt: T0,
    timing: { kind: "once", startsAt: T0, endsAt: T0 + 2 * H },
    endedAt: null,
    ...over,
  };
}

function weekly(id: string, over: Partial<MaintenanceWindow> = {}): MaintenanceWindow {
  return once(id, {
    scope: { all: true },
    timing: { kind: "recurring", schedule: "0 2 * * 0", timezone: "Europe/Berlin", durationMinutes: 120 },
    ...over,
  });
}

export function maintenanceStoreContract(adapter: MaintenanceStoreAdapter): void {
  describe(`MaintenanceStore contract: ${adapter.name}`, () => {
    it("creates once and lists as created, by createdAt then id", async () => {
      const store = await adapter.open();
      expect(await store.list()).toEqual([]);
      const b = weekly("b");
      expect(await store.create(b)).toBe(true);
      expect(
        await store.create(once("a", { createdAt: T0 + 1, scope: { accounts: ["123456789012"] } })),
      ).toBe(true);
      expect(await store.create(once("c"))).toBe(true);
      expect(await store.create(once("b", { reason: "again" }))).toBe(false);
      const listed = await store.list();
      expect(listed.map((w) => w.id)).toEqual(["b", "c", "a"]);
      expect(listed[0]).toEqual(b);
      expect(listed[2]?.scope).toEqual({ accounts: ["123456789012"] });
    });

    it("ends a window at `at`; an earlier end stays; an unknown id is null", async () => {
      const store = await adapter.open();
      await store.create(once("o"));
      await store.create(weekly("r"));
      expect(await store.end("missing", T0)).toBeNull();
      expect(await store.end("o", T0 + H)).toEqual(once("o", { endedAt: T0 + H }));
      expect((await store.end("o", T0 + 2 * H))?.endedAt).toBe(T0 + H);
      expect((await store.end("r", T0 + 3 * H))?.endedAt).toBe(T0 + 3 * H);
      const listed = await store.list();
      expect(listed.map((w) => w.endedAt)).toEqual([T0 + H, T0 + 3 * H]);
    });

    it("prunes windows over before a time (ended early, or one-off past its end), keeps running ones", async () => {
      const store = await adapter.open();
      await store.create(once("past", { timing: { kind: "once", startsAt: T0, endsAt: T0 + 1 } }));
      await store.create(once("ended", { endedAt: T0 + 1 }));
      await store.create(once("future"));
      await store.create(weekly("weekly"));
      expect(await store.prune(T0 + 2)).toBe(2);
      expect((await store.list()).map((w) => w.id)).toEqual(["future", "weekly"]);
      expect(await store.prune(T0 + 2)).toBe(0);
    });
  });
}
