import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ClickHouseCollectorRegistry,
  ClickHouseResourceEventSink,
  type ClickHouseRunStore,
  openHttpRunStore,
} from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import {
  parseResourceEvent,
  RESOURCE_EVENT_KIND,
  type ResourceEvent,
  RunStoreUnavailable,
} from "@monitor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventIngest, messageIngest } from "./event-ingest.ts";
import { createIngestHandler } from "./ingest.ts";
import { memoryLogger, sqsEvent, sqsRecord } from "./test-support.ts";

// Recent: svc.resource_events keeps 30 days.
const OBSERVED = Math.floor(Date.now() / 1000) * 1000 - 5 * 60_000;

const event = (resource_id: string): ResourceEvent => ({
  kind: RESOURCE_EVENT_KIND,
  collector: "config_ec2",
  account_id: "111111111111",
  region: "eu-west-1",
  resource_type: "ec2_instance",
  resource_id,
  observed_at: OBSERVED,
  attributes: { instance_type: "t3.micro" },
});

/**
 * The store as a recording double: all or nothing per call, like the real one; it refuses any call
 * holding an event `refuse` names.
 */
function recording(refuse: (e: ResourceEvent) => Error | null = () => null) {
  const stored: ResourceEvent[] = [];
  const calls: number[] = [];
  return {
    stored,
    calls,
    store: async (events: readonly ResourceEvent[]) => {
      calls.push(events.length);
      for (const e of events) {
        const error = refuse(e);
        if (error !== null) throw error;
      }
      stored.push(...events);
      return { stored: events.length, duplicates: 0 };
    },
  };
}

describe("svcmon-ingest on SQS events", () => {
  it("stores the valid events in one call and reports only the malformed messages", async () => {
    const sink = recording();
    const log = memoryLogger();
    const handler = createIngestHandler({ parse: parseResourceEvent, store: sink.store, log });
    const res = await handler(
      sqsEvent(
        sqsRecord("m1", JSON.stringify(event("i-1"))),
        sqsRecord("m2", "not json", 3),
        sqsRecord("m3", JSON.stringify({ kind: RESOURCE_EVENT_KIND, collector: "config_ec2" })),
        sqsRecord("m4", JSON.stringify(event("i-2"))),
      ),
    );
    expect(res).toEqual({ batchItemFailures: [{ itemIdentifier: "m2" }, { itemIdentifier: "m3" }] });
    expect(sink.calls).toEqual([2]);
    expect(sink.stored.map((e) => e.resource_id)).toEqual(["i-1", "i-2"]);
    const malformed = log.lines.find((l) => l.fields?.message_id === "m2");
    expect(malformed).toMatchObject({
      level: "warn",
      fields: { receive_count: 3, errors: ["(body): the message body is not valid JSON"] },
    });
    expect(log.lines.find((l) => l.fields?.message_id === "m3")?.fields?.errors).toContain(
      "account_id: must be a non-empty string",
    );
    expect(log.lines.at(-1)).toMatchObject({
      message: "ingest batch done",
      fields: { received: 4, handled: 2, duplicates: 0, refused: 2 },
    });
  });

  it("when the store refuses the batch, stores the events one by one and returns only those it refuses", async () => {
    const sink = recording((e) => (e.resource_id === "i-refused" ? new Error("constraint violated") : null));
    const log = memoryLogger();
    const handler = createIngestHandler({ parse: parseResourceEvent, store: sink.store, log });
    const res = await handler(
      sqsEvent(
        sqsRecord("m1", JSON.stringify(event("i-1"))),
        sqsRecord("m2", "not json"),
        sqsRecord("m3", JSON.stringify(event("i-refused"))),
        sqsRecord("m4", JSON.stringify(event("i-2"))),
      ),
    );
    expect(res).toEqual({ batchItemFailures: [{ itemIdentifier: "m2" }, { itemIdentifier: "m3" }] });
    expect(sink.calls).toEqual([3, 1, 1, 1]);
    expect(sink.stored.map((e) => e.resource_id)).toEqual(["i-1", "i-2"]);
    expect(log.lines.find((l) => l.fields?.message_id === "m3")).toMatchObject({
      message: "ingest: store refused an event; left for retry",
      fields: { error: "constraint violated" },
    });
  });

  it("returns the whole batch after one call when the database is unreachable", async () => {
    let calls = 0;
    const handler = createIngestHandler({
      parse: parseResourceEvent,
      store: async () => {
        calls += 1;
        throw new RunStoreUnavailable("analytics database unavailable during insert: ECONNREFUSED");
      },
      log: memoryLogger(),
    });
    const res = await handler(
      sqsEvent(...["a", "b", "c"].map((id) => sqsRecord(id, JSON.stringify(event(`i-${id}`))))),
    );
    expect(res.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(["a", "b", "c"]);
    expect(calls).toBe(1);
  });

  it("stops trying events one by one once the database becomes unreachable", async () => {
    let calls = 0;
    const handler = createIngestHandler({
      parse: parseResourceEvent,
      store: async () => {
        calls += 1;
        throw calls === 1
          ? new Error("one event refused")
          : new RunStoreUnavailable("analytics database did not answer (timeout)");
      },
      log: memoryLogger(),
    });
    const res = await handler(
      sqsEvent(...["a", "b", "c"].map((id) => sqsRecord(id, JSON.stringify(event(`i-${id}`))))),
    );
    expect(res.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(["a", "b", "c"]);
    expect(calls).toBe(2);
  });

  it("answers an empty batch with no failures, without calling the store", async () => {
    const sink = recording();
    const handler = createIngestHandler({
      parse: parseResourceEvent,
      store: sink.store,
      log: memoryLogger(),
    });
    expect(await handler(sqsEvent())).toEqual({ batchItemFailures: [] });
    expect(sink.calls).toEqual([]);
  });
});

describe("the deployed event handling: svc.resource_events on the embedded chDB store", () => {
  const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-ingest-"));
  let store: ClickHouseRunStore;

  beforeAll(async () => {
    store = openChdbRunStore(join(dir, "chdb"));
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores a batch's events, and acknowledges a redelivered batch without storing it again", async () => {
    const sink = ClickHouseResourceEventSink.fromStore(store);
    const log = memoryLogger();
    const handler = createIngestHandler({ ...eventIngest(sink), log });
    const batch = sqsEvent(
      sqsRecord("m1", JSON.stringify(event("i-1"))),
      sqsRecord(
        "m2",
        JSON.stringify({ ...event("i-2"), arn: "arn:aws:ec2:eu-west-1:111111111111:instance/i-2" }),
      ),
      sqsRecord("m3", "{"),
    );
    expect(await handler(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: "m3" }] });
    // The same messages again, as SQS delivers them after a lost acknowledgement.
    expect(await handler(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: "m3" }] });
    expect(log.lines.filter((l) => l.message === "ingest batch done").map((l) => l.fields)).toEqual([
      { received: 3, handled: 2, duplicates: 0, refused: 1 },
      { received: 3, handled: 2, duplicates: 2, refused: 1 },
    ]);
    const stored = await sink.list();
    expect(stored.map((e) => e.resource_id)).toEqual(["i-1", "i-2"]);
    const rs = await store.client.query({
      query: "SELECT count() AS n FROM svc.resource_events",
      format: "JSONEachRow",
    });
    expect((await rs.json<{ n: unknown }>()).map((r) => Number(r.n))).toEqual([2]);
  });

  it("a record dated ahead of the clock goes back to the queue (dead-letter queue after maxReceiveCount) with the reason logged; nothing of it is stored", async () => {
    const sink = ClickHouseResourceEventSink.fromStore(store);
    const registry = ClickHouseCollectorRegistry.fromStore(store);
    const log = memoryLogger();
    const now = OBSERVED + 60_000;
    const handler = createIngestHandler({
      ...messageIngest(sink, { store, registry }, { now: () => now }),
      log,
    });
    const run = (collector: string, completed_at: number) =>
      JSON.stringify({
        kind: "collector_run",
        collector,
        cloud_account_id: "111111111111",
        cloud_region: "eu-west-1",
        started_at: OBSERVED,
        completed_at,
        status: "succeeded",
        events_produced: 0,
        rows_inserted: 0,
      });
    const res = await handler(
      sqsEvent(
        sqsRecord(
          "future-event",
          JSON.stringify({ ...event("i-future"), observed_at: Date.UTC(2225, 0, 1) }),
        ),
        sqsRecord("future-run", run("queue_job_future", now + 16 * 60_000), 5),
        sqsRecord("ok-event", JSON.stringify(event("i-ok"))),
        sqsRecord("ok-run", run("queue_job", now)),
      ),
    );
    expect(res).toEqual({
      batchItemFailures: [{ itemIdentifier: "future-event" }, { itemIdentifier: "future-run" }],
    });
    expect(log.lines.find((l) => l.fields?.message_id === "future-event")?.fields?.errors).toEqual([
      expect.stringMatching(
        /^observed_at: is \d+ d ahead of the server clock; at most 15 min \(900 s\) ahead is accepted$/,
      ),
    ]);
    expect(log.lines.find((l) => l.fields?.message_id === "future-run")?.fields).toMatchObject({
      receive_count: 5,
      errors: ["completed_at: is 16 min ahead of the server clock; at most 15 min (900 s) ahead is accepted"],
    });
    expect((await sink.list()).map((e) => e.resource_id)).not.toContain("i-future");
    // The run on time is stored, and its unknown collector registered by this first run.
    expect((await store.latestRunPerCollector()).map((r) => r.collector)).toEqual(["queue_job"]);
    expect(await registry.get("queue_job")).toMatchObject({
      registered_by: "first_run",
      expected_interval_minutes: 1440,
    });
    expect(await registry.get("queue_job_future")).toBeNull();
  });

  it("takes a run's start (collector_run_start) as POST /api/system/runs/start does: stored once, refused when ahead of the clock", async () => {
    const sink = ClickHouseResourceEventSink.fromStore(store);
    const registry = ClickHouseCollectorRegistry.fromStore(store);
    const log = memoryLogger();
    const now = OBSERVED + 60_000;
    const handler = createIngestHandler({
      ...messageIngest(sink, { store, registry }, { now: () => now }),
      log,
    });
    const start = (run_id: string, started_at?: number) =>
      JSON.stringify({
        kind: "collector_run_start",
        run_id,
        collector: "queue_start_job",
        cloud_account_id: "111111111111",
        cloud_region: "eu-west-1",
        ...(started_at === undefined ? {} : { started_at }),
      });
    const A = "00000000-0000-4000-8000-0000000a2801";
    const B = "00000000-0000-4000-8000-0000000a2802";
    const res = await handler(
      sqsEvent(
        sqsRecord("start-a", start(A, OBSERVED)),
        sqsRecord("start-a-again", start(A, OBSERVED + 5000)),
        sqsRecord("start-b", start(B)),
        sqsRecord("start-future", start("00000000-0000-4000-8000-0000000a2803", now + 16 * 60_000)),
        sqsRecord("start-bad", start("not-a-uuid")),
      ),
    );
    expect(res).toEqual({
      batchItemFailures: [{ itemIdentifier: "start-future" }, { itemIdentifier: "start-bad" }],
    });
    const open = (await store.openStarts(0)).filter((o) => o.collector === "queue_start_job");
    // B has no started_at: the ingest clock's now.
    expect(open.map((o) => [o.run_id, o.started_at])).toEqual([
      [B, now],
      [A, OBSERVED],
    ]);
    expect(await registry.get("queue_start_job")).toMatchObject({ registered_by: "first_run" });
  });

  it("leaves every message on the queue when ClickHouse cannot be reached", async () => {
    const unreachable = openHttpRunStore({ url: "http://127.0.0.1:9", timeoutMs: 2000 });
    try {
      const handler = createIngestHandler({
        ...eventIngest(ClickHouseResourceEventSink.fromStore(unreachable)),
        log: memoryLogger(),
      });
      const res = await handler(
        sqsEvent(sqsRecord("a", JSON.stringify(event("i-a"))), sqsRecord("b", JSON.stringify(event("i-b")))),
      );
      expect(res.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(["a", "b"]);
    } finally {
      await unreachable.close();
    }
  });
});
