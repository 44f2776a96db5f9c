import { maintenanceStoreContract } from "./contract/maintenance-store.contract.ts";
import { InMemoryMaintenanceStore } from "./maintenance-store-memory.ts";

maintenanceStoreContract({ name: "memory", open: async () => new InMemoryMaintenanceStore() });
