/**
 * The AlertStateStore contract over every adapter of the port: ClickHouse on the embedded chDB
 * engine (one data folder for this file) and in memory.
 */
import {
  type AlertStateStoreAdapter,
  alertStateStoreContract,
} from "@monitor/core/contract/alert-state-store";
import { ClickHouseAlertStateStore, InMemoryAlertStateStore } from "./alert-state-store.ts";
import type { ClickHouseRunStore } from "./clickhouse-run-store.ts";
import { openTempStore } from "./test-support/temp-store.ts";

let chdb: { store: ClickHouseRunStore; cleanup(): Promise<void> } | null = null;

const ADAPTERS: AlertStateStoreAdapter[] = [
  {
    name: "ClickHouse (chDB)",
    async setup() {
      chdb = await openTempStore("svcmon-alert-state-contract-");
    },
    async teardown() {
      await chdb?.cleanup();
    },
    async open(now) {
      const store = (chdb as { store: ClickHouseRunStore }).store;
      await store.client.command({ query: "TRUNCATE TABLE svc.alert_state" });
      return new ClickHouseAlertStateStore(store.client, { now });
    },
  },
  {
    name: "in memory",
    async open() {
      return new InMemoryAlertStateStore();
    },
  },
];

for (const adapter of ADAPTERS) alertStateStoreContract(adapter);
