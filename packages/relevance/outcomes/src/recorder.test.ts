import { FEATURE_SET_V1 } from "@relevance/core";
import { describe, expect, it } from "vitest";
import { newQueryUid } from "./query-uid.ts";
import { Recorder, type RecorderOptions } from "./recorder.ts";
import { type ServedSearch, ServedSearchSchema } from "./records.ts";

const T0 = 1_800_000_000_000;

function row(i = 0): ServedSearch {
  return ServedSearchSchema.parse({
    queryUid: newQueryUid(T0 + i),
    account: "acct_a",
    index: "products",
    indexUid: "products",
    modelId: "acct_a:products:v1",
    score: 5,
    features: FEATURE_SET_V1.map(() => 0),
    query: `q${i}`,
    queryKey: `q${i}`,
    hitIds: ["1", "2"],
    estimatedTotalHits: 2,
    latencyMs: 1,
    servedAt: T0 + i,
    userHash: null,
  });
}

/** A clock and a scheduler the test drives: nothing runs until `run()`. */
function harness(overrides: Partial<RecorderOptions> = {}) {
  let now = T0;
  const timers: { fn: () => void; ms: number; live: boolean }[] = [];
  const stored: ServedSearch[][] = [];
  const warns: Record<string, unknown>[] = [];
  const options: RecorderOptions = {
    sink: async (rows) => {
      stored.push([...rows]);
    },
    now: () => now,
    random: () => 0.5,
    log: { info() {}, error() {}, warn: (_m, f) => warns.push(f ?? {}) },
    schedule: (fn, ms) => {
      const t = { fn, ms, live: true };
      timers.push(t);
      return () => {
        t.live = false;
      };
    },
    ...overrides,
  };
  const recorder = new Recorder(options);
  return {
    recorder,
    stored,
    warns,
    timers,
    advance: (ms: number) => {
      now += ms;
    },
    /** Fires the live timers (as their time came), then lets the sink's promises settle. */
    async run() {
      for (const t of timers.splice(0)) if (t.live) t.fn();
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

describe("Recorder", () => {
  it("queues without calling the sink in offer, and sends a batch once it is full", async () => {
    const h = harness({ batchSize: 3 });
    h.recorder.offer(row(1), 1);
    h.recorder.offer(row(2), 1);
    expect(h.stored).toEqual([]);
    expect(h.timers.map((t) => t.ms)).toEqual([1000]);
    h.recorder.offer(row(3), 1);
    expect(h.stored).toEqual([]); // still not on the search's path
    await h.run();
    expect(h.stored.map((b) => b.map((r) => r.query))).toEqual([["q1", "q2", "q3"]]);
    expect(h.recorder.stats()).toMatchObject({ offered: 3, recorded: 3, queued: 0 });
  });

  it("sends a partial batch when its interval passes", async () => {
    const h = harness({ batchSize: 100, flushMs: 250 });
    h.recorder.offer(row(1), 1);
    expect(h.timers[0]?.ms).toBe(250);
    await h.run();
    expect(h.stored).toHaveLength(1);
  });

  it("samples by the index's rate and counts what it left out", async () => {
    const draws = [0.1, 0.6, 0.3, 0.9];
    const h = harness({ random: () => draws.shift() ?? 0 });
    for (let i = 0; i < 4; i++) h.recorder.offer(row(i), 0.5);
    h.recorder.offer(row(9), 0); // rate 0: never recorded
    await h.recorder.flush();
    expect(h.stored.flat().map((r) => r.query)).toEqual(["q0", "q2"]);
    expect(h.recorder.stats()).toMatchObject({ offered: 5, sampledOut: 3, recorded: 2 });
  });

  it("caps the rows accepted per second, counts the rest and warns once per window", async () => {
    const h = harness({ maxPerSecond: 2, logWindowMs: 60_000 });
    for (let i = 0; i < 5; i++) h.recorder.offer(row(i), 1);
    expect(h.recorder.stats()).toMatchObject({ offered: 5, rateLimited: 3, queued: 2 });
    expect(h.warns).toHaveLength(1);
    h.advance(1000); // a new second: the cap starts over
    h.recorder.offer(row(7), 1);
    expect(h.recorder.stats().queued).toBe(3);
    await h.recorder.flush();
    expect(h.recorder.stats().recorded).toBe(3);
  });

  it("drops and counts rows beyond the queue bound while the sink hangs, and the offer still returns", async () => {
    const h = harness({ sink: () => new Promise(() => {}), queueMax: 3, batchSize: 2 });
    for (let i = 0; i < 3; i++) h.recorder.offer(row(i), 1);
    await h.run(); // the first batch of 2 is now stuck in the sink
    for (let i = 3; i < 8; i++) h.recorder.offer(row(i), 1);
    // 1 row left queued after the stuck batch, 2 more fit, 3 are dropped.
    expect(h.recorder.stats()).toMatchObject({ offered: 8, queued: 3, queueFull: 3, recorded: 0 });
  });

  it("counts a failing sink's rows as sinkFailed, never throws, and keeps recording after", async () => {
    let fail = true;
    const stored: ServedSearch[] = [];
    const h = harness({
      sink: async (rows) => {
        if (fail) throw new Error("store down");
        stored.push(...rows);
      },
    });
    h.recorder.offer(row(1), 1);
    await h.recorder.flush();
    expect(h.recorder.stats()).toMatchObject({ sinkFailed: 1, recorded: 0 });
    expect(h.warns[0]).toMatchObject({ sinkFailed: 1, problem: "store down" });
    fail = false;
    h.recorder.offer(row(2), 1);
    await h.recorder.flush();
    expect(stored.map((r) => r.query)).toEqual(["q2"]);
  });

  it("survives a sink that throws synchronously", async () => {
    const h = harness({
      sink: () => {
        throw new Error("sync");
      },
    });
    expect(() => h.recorder.offer(row(1), 1)).not.toThrow();
    await expect(h.recorder.flush()).resolves.toBeUndefined();
    expect(h.recorder.stats().sinkFailed).toBe(1);
  });

  it("flush sends every queued row in batches of the batch size", async () => {
    const h = harness({ batchSize: 2 });
    for (let i = 0; i < 5; i++) h.recorder.offer(row(i), 1);
    await h.recorder.flush();
    expect(h.stored.map((b) => b.length)).toEqual([2, 2, 1]);
    expect(h.recorder.stats()).toMatchObject({ recorded: 5, queued: 0 });
  });
});
