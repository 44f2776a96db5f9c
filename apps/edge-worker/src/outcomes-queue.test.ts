import { FEATURE_SET_V1 } from "@relevance/core";
import { MemoryOutcomeStore, newQueryUid, type ServedSearch } from "@relevance/outcomes";
import { describe, expect, it } from "vitest";
import {
  consumeOutcomes,
  type MessageBatch,
  type OutcomeMessage,
  QUEUE_MAX_BATCH_BYTES,
  QUEUE_MAX_BATCH_MESSAGES,
  type QueueMessage,
  queueBatches,
} from "./outcomes-queue.ts";

const log = {
  lines: [] as string[],
  info() {},
  warn() {},
  error(m: string) {
    log.lines.push(m);
  },
};

const search = (hitIdChars = 1): ServedSearch => ({
  queryUid: newQueryUid(1_800_000_000_000),
  account: "acct_a",
  index: "products",
  indexUid: "products",
  modelId: "m",
  score: 2.5,
  features: FEATURE_SET_V1.map(() => 1),
  query: "red",
  queryKey: "red",
  hitIds: Array.from({ length: 100 }, () => "x".repeat(hitIdChars)),
  estimatedTotalHits: 3,
  latencyMs: 4,
  servedAt: 1_800_000_000_000,
  userHash: null,
});

function batchOf(bodies: unknown[]): MessageBatch & { acked: string[]; retried: string[] } {
  const acked: string[] = [];
  const retried: string[] = [];
  const messages: QueueMessage[] = bodies.map((body, i) => ({
    id: `m${i}`,
    body,
    attempts: 1,
    ack: () => acked.push(`m${i}`),
    retry: () => retried.push(`m${i}`),
  }));
  return { queue: "outcomes", messages, acked, retried };
}

describe("queueBatches (Cloudflare Queues' limits)", () => {
  it("keeps every sendBatch within 100 messages and 256 KB, rows in order", () => {
    const small = Array.from({ length: 250 }, (): OutcomeMessage => ({ kind: "search", row: search() }));
    const a = queueBatches(small);
    expect(a.batches.map((b) => b.length)).toEqual(
      [100, 100, 50].map((n) => Math.min(n, QUEUE_MAX_BATCH_MESSAGES)),
    );
    // The largest rows (100 ids of 511 characters, ~52 KB) fit four to a batch.
    const large = Array.from({ length: 9 }, (): OutcomeMessage => ({ kind: "search", row: search(511) }));
    const b = queueBatches(large);
    for (const batch of b.batches) {
      const bytes = batch.reduce(
        (n, m) => n + new TextEncoder().encode(JSON.stringify(m.body)).length + 100,
        0,
      );
      expect(bytes).toBeLessThanOrEqual(QUEUE_MAX_BATCH_BYTES);
    }
    expect(b.batches.flat()).toHaveLength(9);
    expect(b.oversized).toBe(0);
  });
});

describe("consumeOutcomes", () => {
  it("stores valid rows, acks them, and acks, counts and logs a bad message without its body", async () => {
    const store = new MemoryOutcomeStore();
    const batch = batchOf([
      { kind: "search", row: search() },
      { kind: "search", row: { ...search(), score: 11, query: "secret text" } },
      "not a message",
    ]);
    const result = await consumeOutcomes(batch, store, log);
    expect(result).toEqual({ searches: 1, events: 0, invalid: 2, retried: 0 });
    expect(store.searches).toHaveLength(1);
    expect(batch.acked.sort()).toEqual(["m0", "m1", "m2"]);
    expect(JSON.stringify(log.lines)).not.toContain("secret text");
  });

  it("retries every valid message when the store fails, so nothing is lost, and stores them on the next delivery", async () => {
    const store = new MemoryOutcomeStore();
    const failing = Object.assign(Object.create(store), {
      recordSearches: async () => Promise.reject(new Error("ClickHouse down")),
    }) as MemoryOutcomeStore;
    const bodies = [{ kind: "search", row: search() }];
    const first = batchOf(bodies);
    expect(await consumeOutcomes(first, failing, log)).toMatchObject({ retried: 1 });
    expect(first.retried).toEqual(["m0"]);
    expect(first.acked).toEqual([]);
    const second = batchOf(bodies);
    await consumeOutcomes(second, store, log);
    expect(store.searches).toHaveLength(1);
    expect(second.acked).toEqual(["m0"]);
  });
});
