/** The RunStore contract over the in-memory adapter (the ClickHouse adapters run it in @monitor/clickhouse). */
import { describe, expect, it } from "vitest";
import { runStoreContract } from "./contract/run-store.contract.ts";
import { InMemoryRunStore, MEMORY_HEALTH_SOURCES } from "./run-store-memory.ts";

runStoreContract({
  name: "in memory",
  async open() {
    return new InMemoryRunStore();
  },
});

describe("InMemoryRunStore health", () => {
  it("reports the time its own reads took, on the clock it is given, and says so", async () => {
    // Each read takes the clock two readings: 0 → 4 ms, then 10 → 11 ms, ...
    const readings = [0, 4, 10, 11, 20, 22];
    const store = new InMemoryRunStore({ now: () => readings.shift() ?? 0 });
    expect((await store.dbHealth()).query_samples).toBe(0);
    await store.latestRunPerCollector();
    await store.accountsLatest();
    await store.recentRuns("config_ec2");
    const h = await store.dbHealth();
    expect(h).toMatchObject({ query_samples: 3, query_p50_ms: 2, query_p95_ms: 4, query_p99_ms: 4 });
    expect(h.sources).toEqual(MEMORY_HEALTH_SOURCES);
    expect(h.disk_total_bytes).toBeNull();
  });
});
