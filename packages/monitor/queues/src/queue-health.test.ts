import type { QueueHealth, QueueHealthSource } from "@monitor/core";
import { describe, expect, it } from "vitest";
import {
  combineQueueHealth,
  queueHealthReader,
  queueStatus,
  queueStatusJson,
  queuesForStatus,
} from "./queue-health.ts";

const AT = Date.UTC(2025, 0, 2, 3, 4, 5);
const q = (p: Partial<QueueHealth> = {}): QueueHealth => ({
  name: "events",
  source: "test",
  read_at: AT,
  depth: 0,
  in_flight: 0,
  dead_letter_queue: "events-dlq",
  dead_letter_depth: 0,
  error: null,
  ...p,
});

/** Sources whose behaviour is the point of the test: they answer, fail, or never answer. */
const answering = (entries: QueueHealth[]): QueueHealthSource => ({
  queues: entries.map((e) => e.name),
  read: async () => entries,
});
const failing = (names: string[]): QueueHealthSource => ({
  queues: names,
  read: async () => {
    throw new TypeError("boom");
  },
});
const silent = (names: string[], seen: AbortSignal[] = []): QueueHealthSource => ({
  queues: names,
  read: (signal) => {
    if (signal) seen.push(signal);
    return new Promise(() => {});
  },
});

describe("queue status in words", () => {
  it("ok, dead_letters when the dead-letter queue holds anything, unreadable whenever something was not read", () => {
    expect(queueStatus(q())).toBe("ok");
    expect(queueStatus(q({ dead_letter_queue: null, dead_letter_depth: null }))).toBe("ok");
    expect(queueStatus(q({ depth: 500 }))).toBe("ok");
    expect(queueStatus(q({ dead_letter_depth: 1 }))).toBe("dead_letters");
    expect(queueStatus(q({ dead_letter_depth: 3, error: "dead-letter queue x: timeout" }))).toBe(
      "unreadable",
    );
    expect(queueStatus(q({ depth: null, error: "AccessDenied: no" }))).toBe("unreadable");
  });

  it("the status body's entry: numbers, status, error, source and an ISO read time", () => {
    expect(queueStatusJson(q({ depth: 4, in_flight: 1, dead_letter_depth: 2 }))).toEqual({
      name: "events",
      depth: 4,
      in_flight: 1,
      dead_letter_queue: "events-dlq",
      dead_letter_depth: 2,
      status: "dead_letters",
      error: null,
      source: "test",
      read_at: "2025-01-02T03:04:05.000Z",
    });
  });
});

describe("combineQueueHealth", () => {
  it("lists the queues of every source, in order", async () => {
    const all = combineQueueHealth([
      answering([q({ name: "a" })]),
      answering([q({ name: "b" }), q({ name: "c" })]),
    ]);
    expect(all.queues).toEqual(["a", "b", "c"]);
    expect((await all.read()).map((e) => e.name)).toEqual(["a", "b", "c"]);
  });
});

describe("queueHealthReader", () => {
  it("passes a source's answer through", async () => {
    const entries = [q({ name: "a", dead_letter_depth: 2 })];
    expect(await queueHealthReader(answering(entries))()).toEqual(entries);
  });

  it("a source that fails as a whole: each of its queues is unreadable, with the reason", async () => {
    const read = queueHealthReader(failing(["a", "b"]), { now: () => AT, source: "sqs" });
    expect(await read()).toEqual([
      expect.objectContaining({
        name: "a",
        source: "sqs",
        read_at: AT,
        depth: null,
        error: "TypeError: boom",
      }),
      expect.objectContaining({ name: "b", error: "TypeError: boom" }),
    ]);
  });

  it("a source that never answers: its queues are unreadable after the deadline and its read is aborted", async () => {
    const seen: AbortSignal[] = [];
    const got = await queueHealthReader(silent(["a"], seen), { timeoutMs: 50, now: () => AT })();
    expect(got).toEqual([
      expect.objectContaining({ name: "a", depth: null, error: "timeout: no answer within 50 ms" }),
    ]);
    expect(seen[0]?.aborted).toBe(true);
  });
});

describe("queuesForStatus", () => {
  it("no reader: an empty list", async () => {
    expect(await queuesForStatus(undefined, 100)).toEqual({ queues: [] });
  });

  it("a reader's entries become status entries", async () => {
    const got = await queuesForStatus(async () => [q({ error: "AccessDenied: x", depth: null })], 100);
    expect(got).toEqual({
      queues: [expect.objectContaining({ name: "events", status: "unreadable", error: "AccessDenied: x" })],
    });
  });

  it("a reader that throws or hangs: no entries and a queues_error, never a rejection", async () => {
    expect(
      await queuesForStatus(() => {
        throw new Error("sync throw");
      }, 100),
    ).toEqual({ queues: [], queues_error: "queue health could not be read: sync throw" });
    expect(await queuesForStatus(() => Promise.reject(new Error("async")), 100)).toEqual({
      queues: [],
      queues_error: "queue health could not be read: async",
    });
    expect(await queuesForStatus(() => new Promise(() => {}), 30)).toEqual({
      queues: [],
      queues_error: "queue health did not answer within 30 ms",
    });
  });
});
