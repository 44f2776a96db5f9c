/**
 * The CollectorRegistry contract over every adapter of the port: ClickHouse on the embedded chDB
 * engine (one data folder for this file: one engine per folder per process) and in memory.
 */

import { InMemoryCollectorRegistry } from "@monitor/core";
import {
  type CollectorRegistryAdapter,
  collectorRegistryContract,
} from "@monitor/core/contract/collector-registry";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import { ClickHouseCollectorRegistry } from "./registry-clickhouse.ts";
import { openTempStore } from "./test-support/temp-store.ts";

let chdb: { store: ClickHouseRunStore; cleanup(): Promise<void> } | null = null;

const ADAPTERS: CollectorRegistryAdapter[] = [
  {
    name: "ClickHouse (chDB)",
    async setup() {
      chdb = await openTempStore("svcmon-registry-contract-");
    },
    async teardown() {
      await chdb?.cleanup();
    },
    async open(defaults, now) {
      const store = (chdb as { store: ClickHouseRunStore }).store;
      await store.client.command({ query: "TRUNCATE TABLE svc.collectors" });
      await store.client.command({ query: "TRUNCATE TABLE svc.collector_registrations" });
      return ClickHouseCollectorRegistry.fromStore(store, { defaults, now });
    },
  },
  {
    name: "in memory",
    async open(defaults, now) {
      return new InMemoryCollectorRegistry(defaults, { now });
    },
  },
];

for (const adapter of ADAPTERS) collectorRegistryContract(adapter);
