/** The TransitionStore contract on DynamoDB (dynalite in this process): every write conditional. */
import { transitionStoreContract } from "@monitor/core/contract/transition-store";
import { startTransitionsDynalite, type TransitionsDynalite } from "./test-support/dynalite-transitions.ts";

let db: TransitionsDynalite | null = null;

transitionStoreContract({
  name: "DynamoDB (dynalite)",
  async setup() {
    db = await startTransitionsDynalite();
  },
  async teardown() {
    await db?.close();
  },
  open: () => (db as TransitionsDynalite).newStore(),
});
