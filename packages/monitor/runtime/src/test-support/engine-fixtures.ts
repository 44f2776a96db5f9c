// Test-only: what the alert engine's tests over dead-letter alerts share: a run store with no runs
// or accounts (so the only alerts come from the queues), a silent logger, an in-memory alert state
// and a queue's health with a given dead-letter depth.
import {
  type AlertState,
  type AlertStateStore,
  emptyState,
  type QueueHealth,
  type RunStore,
} from "@monitor/core";
import type { AlertEngineLogger } from "../alert-engine.ts";

export const emptyRunStore = {
  latestRunPerCollector: async () => [],
  lastSuccessPerCollector: async () => [],
  consecutiveFailuresPerCollectorAccountRegion: async () => [],
  accountsLatest: async () => [],
  lastSucceededRunPerAccount: async () => [],
  openStarts: async () => [],
  dbHealth: async () => {
    throw new Error("no database in this test");
  },
} as unknown as RunStore;

export const quiet: AlertEngineLogger = { info() {}, warn() {}, error() {} };

export class MemoryStateStore implements AlertStateStore {
  #s: AlertState = emptyState();
  async load() {
    return structuredClone(this.#s);
  }
  async save(s: AlertState) {
    this.#s = structuredClone(s);
  }
}

/** The health of queue `name`, read at `readAt`, with `depth` messages in its dead-letter queue. */
export function dlq(name: string, depth: number, readAt: number): QueueHealth {
  return {
    name,
    source: "test",
    read_at: readAt,
    depth: 0,
    in_flight: 0,
    dead_letter_queue: `${name}-dlq`,
    dead_letter_depth: depth,
    error: null,
  };
}
