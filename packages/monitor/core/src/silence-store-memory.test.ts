import { silenceStoreContract } from "./contract/silence-store.contract.ts";
import { InMemorySilenceStore } from "./silence-store-memory.ts";

silenceStoreContract({ name: "in memory", open: async () => new InMemorySilenceStore() });
