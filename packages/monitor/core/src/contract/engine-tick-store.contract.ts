/**
 * One behaviour suite for every `EngineTickStore` adapter: ClickHouse (chDB) and in memory. Run by
 * packages/monitor/clickhouse/src/engine-tick-store.contract.test.ts and
 * packages/monitor/core/src/engine-tick-store-memory.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineTick, EngineTickStore } from "../ports.ts";

export interface EngineTickStoreAdapter {
  name: string;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** A store with nothing recorded. */
  open(): Promise<EngineTickStore>;
}

// Recent: a store may expire old rounds (svc.engine_ticks keeps 7 days), and drop expired ones as written.
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

function tick(at: number, over: Partial<EngineTick> = {}): EngineTick {
  return {
    tick_at: at,
    completed_at: at + 1234,
    duration_ms: 1234,
    ok: true,
    error: null,
    claimant: "host-a:4242:0badcafe",
    interval_ms: 60_000,
    ...over,
  };
}

export function engineTickStoreContract(adapter: EngineTickStoreAdapter): void {
  describe(`EngineTickStore contract: ${adapter.name}`, () => {
    beforeAll(async () => adapter.setup?.());
    afterAll(async () => adapter.teardown?.());

    it("has no latest tick before the first is recorded", async () => {
      expect(await (await adapter.open()).latest()).toBeNull();
    });

    it("gives back every field of a recorded tick, a failed one's error included", async () => {
      const s = await adapter.open();
      const failed = tick(T0, { ok: false, error: "analytics database unreachable: ECONNREFUSED ✗" });
      await s.record(failed);
      expect(await s.latest()).toEqual(failed);
    });

    it("the latest is the one completed last, whatever the order they were recorded in and whichever engine ran it", async () => {
      const s = await adapter.open();
      await s.record(tick(T0 + 120_000, { claimant: "host-b:1:aaaaaaaa" }));
      await s.record(tick(T0));
      await s.record(tick(T0 + 60_000));
      expect(await s.latest()).toEqual(tick(T0 + 120_000, { claimant: "host-b:1:aaaaaaaa" }));
    });

    it("keeps millisecond times exactly", async () => {
      const s = await adapter.open();
      const t = tick(T0 + 7, { completed_at: T0 + 7 + 999, duration_ms: 999 });
      await s.record(t);
      expect(await s.latest()).toEqual(t);
    });
  });
}
