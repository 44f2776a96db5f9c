import { transitionStoreContract } from "./contract/transition-store.contract.ts";
import { InMemoryTransitionStore } from "./transitions.ts";

transitionStoreContract({ name: "in memory", open: async () => new InMemoryTransitionStore() });
