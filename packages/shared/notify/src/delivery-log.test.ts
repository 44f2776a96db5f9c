import { deliveryLogContract } from "./delivery-log.contract.ts";
import { InMemoryDeliveryLog } from "./ports.ts";

deliveryLogContract("in memory", async () => {
  const log = new InMemoryDeliveryLog();
  return { log, reopen: async () => log };
});
