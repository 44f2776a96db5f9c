/** The RunStore contract over the in-memory adapter (the ClickHouse adapters run it in @monitor/clickhouse). */
import { runStoreContract } from "./contract/run-store.contract.ts";
import { InMemoryRunStore } from "./run-store-memory.ts";

runStoreContract({
  name: "in memory",
  async open() {
    return new InMemoryRunStore();
  },
});
