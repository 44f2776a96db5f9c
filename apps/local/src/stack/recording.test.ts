import { FEATURE_SET_V1 } from "@relevance/core";
import { newQueryUid, type OutcomeEvent, type OutcomeStore, type ServedSearch } from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import { readConfig } from "../env.ts";
import { stackRecording } from "./recording.ts";

/** The port as the stack's store answers it, kept in arrays (the real adapters are @relevance/outcomes'). */
class ArrayStore implements OutcomeStore {
  searches: ServedSearch[] = [];
  events: OutcomeEvent[] = [];
  async recordSearches(rows: readonly ServedSearch[]) {
    this.searches.push(...rows);
  }
  async recordEvents(rows: readonly OutcomeEvent[]) {
    this.events.push(...rows);
  }
  quality(): never {
    throw new Error("not read here");
  }
  trainingRows(): never {
    throw new Error("not read here");
  }
  async purge() {}
  scoredModels(): never {
    throw new Error("not read here");
  }
  driftCounts(): never {
    throw new Error("not read here");
  }
  async shadowPairs() {
    return [];
  }
  async shadowComparison() {
    return { pairs: [], bins: [], queries: [], daily: [], samples: [] };
  }
}

const log = { info() {}, warn() {}, error() {} };
const row = (): ServedSearch => ({
  queryUid: newQueryUid(1),
  account: "acct_a",
  index: "products",
  indexUid: "products",
  modelId: "m",
  score: 1,
  features: FEATURE_SET_V1.map(() => 0),
  query: "q",
  queryKey: "q",
  hitIds: [],
  estimatedTotalHits: 0,
  latencyMs: 0,
  servedAt: 1,
  userHash: null,
});

describe("npm start's recording", () => {
  it("records served searches into the stack's store on drain, and events straight into it", async () => {
    const store = new ArrayStore();
    const recording = stackRecording(store, {}, log);
    if (recording.deps.recorder?.sample(1)) recording.deps.recorder.admit(row());
    expect(store.searches).toEqual([]);
    await recording.drain();
    expect(store.searches).toHaveLength(1);
    expect(recording.deps.recordEvents).toBeTypeOf("function");
  });

  it("records nothing and serves no events without a store", () => {
    const recording = stackRecording(undefined, {}, log);
    expect(recording.deps).toEqual({});
  });

  it("reads RECORD_MAX_PER_SECOND, RECORD_QUEUE_MAX and EVENTS_PER_KEY_PER_SECOND, refusing a bad one by name", () => {
    const ok = readConfig({ RECORD_MAX_PER_SECOND: "7", EVENTS_PER_KEY_PER_SECOND: "3" });
    expect(ok.ok && ok.config.recording).toEqual({
      maxPerSecond: 7,
      queueMax: 10_000,
      eventsPerKeyPerSecond: 3,
    });
    const bad = readConfig({ RECORD_QUEUE_MAX: "0" });
    expect(bad.ok ? "" : bad.error).toContain("RECORD_QUEUE_MAX");
  });
});
