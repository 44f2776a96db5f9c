/**
 * One behaviour suite for every `AlertStateStore` adapter: ClickHouse (chDB) and in memory. Run by
 * packages/monitor/clickhouse/src/alert-state-store.contract.test.ts over the list of adapters, one
 * `describe` per adapter, the same cases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AlertState, emptyState } from "../alerts/index.ts";
import type { AlertStateStore } from "../ports.ts";

export interface AlertStateStoreAdapter {
  name: string;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** A store with nothing saved, on the clock `now()` (epoch ms). */
  open(now: () => number): Promise<AlertStateStore>;
}

/** A state with content in every part (the store keeps it as plain JSON). */
function sampleState(seq: number): AlertState {
  return {
    version: 1,
    seq,
    alerts: {
      "collector_stale:config_ec2": { key: "collector_stale:config_ec2", status: "firing", note: "größe ✓" },
    } as unknown as AlertState["alerts"],
    outbox: {
      [`intent-${seq}`]: { id: `intent-${seq}`, kind: "firing", attempt: 1 },
    } as unknown as AlertState["outbox"],
  };
}

export function alertStateStoreContract(adapter: AlertStateStoreAdapter): void {
  describe(`AlertStateStore contract: ${adapter.name}`, () => {
    const clock = Date.UTC(2025, 5, 1, 12, 0, 0);
    beforeAll(async () => adapter.setup?.());
    afterAll(async () => adapter.teardown?.());

    it("loads the empty state when nothing was saved", async () => {
      const s = await adapter.open(() => clock);
      expect(await s.load()).toEqual(emptyState());
    });

    it("loads what was saved, as a copy", async () => {
      const s = await adapter.open(() => clock);
      await s.save(sampleState(3));
      const loaded = await s.load();
      expect(loaded).toEqual(sampleState(3));
      loaded.seq = 99;
      expect((await s.load()).seq).toBe(3);
    });

    it("a later save wins, even within the same millisecond", async () => {
      const s = await adapter.open(() => clock);
      for (let seq = 1; seq <= 5; seq++) await s.save(sampleState(seq));
      expect(await s.load()).toEqual(sampleState(5));
      await s.save(emptyState());
      expect(await s.load()).toEqual(emptyState());
    });
  });
}
