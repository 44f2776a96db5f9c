/** The EngineTickStore contract on ClickHouse (the embedded chDB engine, one data folder for this file). */
import { engineTickStoreContract } from "@monitor/core/contract/engine-tick-store";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import { ClickHouseEngineTickStore } from "./engine-tick-store-clickhouse.ts";
import { openTempStore } from "./test-support/temp-store.ts";

let chdb: { store: ClickHouseRunStore; cleanup(): Promise<void> } | null = null;

engineTickStoreContract({
  name: "ClickHouse (chDB)",
  async setup() {
    chdb = await openTempStore("svcmon-engine-ticks-contract-");
  },
  async teardown() {
    await chdb?.cleanup();
  },
  async open() {
    const store = (chdb as { store: ClickHouseRunStore }).store;
    await store.client.command({ query: "TRUNCATE TABLE svc.engine_ticks" });
    return ClickHouseEngineTickStore.fromStore(store);
  },
});
