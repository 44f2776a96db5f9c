import { FEATURE_SET_V1 } from "@relevance/core";
import { describe, expect, it } from "vitest";
import { outcomeStoreContract } from "./contract/outcome-store.contract.ts";
import { MemoryOutcomeStore } from "./memory-store.ts";
import { newQueryUid } from "./query-uid.ts";

outcomeStoreContract({ name: "memory", open: async () => new MemoryOutcomeStore() });

describe("MemoryOutcomeStore", () => {
  it("keeps a copy of what it was given, not the caller's objects", async () => {
    const store = new MemoryOutcomeStore();
    const features = FEATURE_SET_V1.map(() => 1);
    const row = {
      queryUid: newQueryUid(1000),
      account: "a",
      index: "i",
      indexUid: "i",
      modelId: "m",
      score: 1,
      features,
      query: "q",
      queryKey: "q",
      hitIds: [],
      estimatedTotalHits: 0,
      latencyMs: 0,
      servedAt: 1000,
      userHash: null,
    };
    await store.recordSearches([row]);
    features[0] = 99;
    const [got] = await store.trainingRows({
      account: "a",
      index: "i",
      since: 0,
      until: 2000,
      minImpressions: 1,
      limit: 1,
    });
    expect(got?.features[0]).toBe(1);
  });
});
