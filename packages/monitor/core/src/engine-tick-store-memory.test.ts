import { engineTickStoreContract } from "./contract/engine-tick-store.contract.ts";
import { InMemoryEngineTickStore } from "./engine-tick-store-memory.ts";

engineTickStoreContract({ name: "in memory", open: async () => new InMemoryEngineTickStore() });
