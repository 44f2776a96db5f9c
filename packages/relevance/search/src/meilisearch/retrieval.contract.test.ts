// The Retrieval contract over Meilisearch: against the local double of its HTTP API and, where
// MEILI_URL/MEILI_KEY name a real server, against it. Each case's index is created, filled and
// configured through the IndexManager port, as the customer API and the exporter do.
import { afterAll, beforeAll } from "vitest";
import { type ContractIndex, retrievalContract } from "../contract/index.ts";
import type { SearchTarget } from "../ports.ts";
import { MeilisearchIndexManager } from "./index-manager.ts";
import { MeilisearchRetrieval } from "./retrieval.ts";
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "./test-support/meilisearch-double.ts";

const ACCOUNT = "acct_contract";

function setupFor(url: () => string, key: () => string) {
  return async (name: string, index: ContractIndex) => {
    const manager = new MeilisearchIndexManager({ url: url(), apiKey: key() });
    const uid = `${ACCOUNT}-${name}`;
    const done = async (summary: Promise<{ taskUid: number }>) => {
      const task = await manager.waitForTask((await summary).taskUid, { timeoutMs: 10_000 });
      if (task.status !== "succeeded") throw new Error(`${task.type} failed: ${task.error?.message}`);
    };
    await done(manager.createIndex(uid, { primaryKey: "id" }));
    await done(manager.addDocuments(uid, index.documents));
    await done(
      manager.updateSettings(uid, {
        synonyms: index.synonyms ?? {},
        stopWords: index.stopWords ?? [],
        filterableAttributes: index.filterableAttributes ?? [],
      }),
    );
    const target: SearchTarget = {
      systemAccountId: ACCOUNT,
      index: name,
      primaryKey: "id",
      searchableAttributes: ["*"],
      filterableAttributes: index.filterableAttributes ?? [],
    };
    return { retrieval: new MeilisearchRetrieval({ url: url(), apiKey: key() }), target };
  };
}

let double: MeilisearchDouble;
beforeAll(async () => {
  double = await startMeilisearchDouble();
});
afterAll(() => double.close());

retrievalContract(
  "Meilisearch adapter against the local double",
  setupFor(
    () => double.url,
    () => MASTER_KEY,
  ),
);

// Registered only where a real Meilisearch is configured (none installs on these machines).
const MEILI_URL = process.env.MEILI_URL;
const MEILI_KEY = process.env.MEILI_KEY;
if (MEILI_URL !== undefined && MEILI_KEY !== undefined) {
  retrievalContract(
    "Meilisearch adapter against a real Meilisearch at MEILI_URL",
    setupFor(
      () => MEILI_URL,
      () => MEILI_KEY,
    ),
  );
}
