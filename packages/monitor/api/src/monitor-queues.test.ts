/**
 * Queue health through the monitor: the status body's `queues` and the alert engine's dead-letter
 * rule, over real chDB (this file's own folder), a real embedded queue and a local double of SQS.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQSClient } from "@aws-sdk/client-sqs";
import { InMemoryAlertStateStore } from "@monitor/clickhouse";
import type { InMemoryRunStore } from "@monitor/core";
import { alertKey, InMemoryCollectorRegistry } from "@monitor/core";
import { combineQueueHealth, queueHealthReader, SqliteQueue, SqsQueueHealth } from "@monitor/queues";
import { DOUBLE_REGION, SqsDouble } from "@monitor/queues/test-support/sqs-double";
import { AlertEngine } from "@monitor/runtime";
import { InMemoryDeliveryLog } from "@shared/notify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, hangingStore, makeApp, memoryLog, openMemoryStore } from "./test-support.ts";

let store: InMemoryRunStore;
let cleanup: () => Promise<void>;
let dir: string;
let sqs: SqsDouble;
let client: SQSClient;

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-queues-");
  store = t.store;
  cleanup = t.cleanup;
  dir = mkdtempSync(join(tmpdir(), "svcmon-queues-files-"));
  sqs = await SqsDouble.start();
  client = new SQSClient({
    region: DOUBLE_REGION,
    endpoint: sqs.endpoint,
    credentials: { accessKeyId: "AKIDLOCALDOUBLE", secretAccessKey: "local-double-secret" },
  });
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await sqs?.close();
  await cleanup?.();
  rmSync(dir, { recursive: true, force: true });
});

/** An embedded queue whose dead-letter queue holds `dead` messages (made the way production makes them). */
async function embeddedWithDeadLetters(file: string, dead: number): Promise<SqliteQueue> {
  const q = SqliteQueue.open(join(dir, file), {
    name: "monitor-events",
    deadLetter: { name: "monitor-events-dlq", maxReceives: 1 },
  });
  if (dead > 0) {
    await q.send(Array.from({ length: dead }, () => '{"kind":"poison"}'));
    await q.receive({ max: 100, visibilityTimeoutMs: 0 });
    await q.receive({ max: 100, visibilityTimeoutMs: 0 });
  }
  await q.send(["waiting"]);
  return q;
}

describe("status body: queues", () => {
  it("lists each queue with depth, dead-letter depth and status in words; an unreadable queue is marked, the status is 200", async () => {
    const embedded = await embeddedWithDeadLetters("status.sqlite", 2);
    sqs.addQueue({ name: "billing-dlq", visible: 0, inFlight: 0 });
    const billing = sqs.addQueue({
      name: "billing",
      visible: 12,
      inFlight: 3,
      redrivePolicy: { deadLetterTargetArn: sqs.arn("billing-dlq"), maxReceiveCount: 5 },
    });
    const denied = sqs.addQueue({ name: "denied", visible: 1, inFlight: 0 });
    sqs.setFault("denied", "access_denied");
    const source = combineQueueHealth([
      embedded,
      new SqsQueueHealth({ client, queueUrls: [billing, denied] }),
    ]);
    const app = makeApp({ store, queues: queueHealthReader(source) });
    try {
      const r = await call(app, "GET", "/api/system/status");
      expect(r.status).toBe(200);
      expect(r.body.queues).toEqual([
        {
          name: "monitor-events",
          depth: 1,
          in_flight: 0,
          dead_letter_queue: "monitor-events-dlq",
          dead_letter_depth: 2,
          status: "dead_letters",
          error: null,
          source: "embedded-sqlite",
          read_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
        expect.objectContaining({
          name: "billing",
          depth: 12,
          in_flight: 3,
          dead_letter_queue: "billing-dlq",
          dead_letter_depth: 0,
          status: "ok",
          source: "sqs",
        }),
        expect.objectContaining({
          name: "denied",
          depth: null,
          dead_letter_depth: null,
          status: "unreadable",
          error: expect.stringMatching(/^AccessDenied: /),
        }),
      ]);
      expect(r.body).not.toHaveProperty("queues_error");
      expect(r.body.collectors).toBeDefined();
      const v1 = await call(app, "GET", "/api/v1/system/status");
      expect(v1.status).toBe(200);
      expect(v1.body.queues.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([
        ["monitor-events", "dead_letters"],
        ["billing", "ok"],
        ["denied", "unreadable"],
      ]);
    } finally {
      sqs.setFault("denied", null);
      embedded.close();
    }
  });

  it("without a queue source: queues is an empty list", async () => {
    const r = await call(makeApp({ store }), "GET", "/api/system/status");
    expect(r.status).toBe(200);
    expect(r.body.queues).toEqual([]);
  });

  it("a queue reader that never answers: still 200, with queues_error, inside the status deadline", async () => {
    const app = makeApp({ store, statusTimeoutMs: 1500, queues: () => new Promise(() => {}) });
    const r = await call(app, "GET", "/api/system/status");
    expect(r.status).toBe(200);
    expect(r.body.queues).toEqual([]);
    expect(r.body.queues_error).toBe("queue health did not answer within 1500 ms");
  });

  it("an unreachable analytics database still answers 503, whatever the queues say", async () => {
    const embedded = await embeddedWithDeadLetters("db-down.sqlite", 0);
    const app = makeApp({
      store: hangingStore(store),
      statusTimeoutMs: 300,
      log: memoryLog(),
      queues: queueHealthReader(embedded),
    });
    const r = await call(app, "GET", "/api/system/status");
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe("analytics_db_unavailable");
    embedded.close();
  });
});

describe("alert engine: dead-letter queue non-empty", () => {
  it("fires (critical) on dead letters, stays firing while the queue is unreadable, resolves once the queue is empty", async () => {
    const path = "engine.sqlite";
    let queue = await embeddedWithDeadLetters(path, 1);
    const log = memoryLog();
    const engine = new AlertEngine({
      store,
      registry: new InMemoryCollectorRegistry([]),
      stateStore: new InMemoryAlertStateStore(),
      channels: [],
      deliveryLog: new InMemoryDeliveryLog(),
      now: () => Date.now(),
      log,
      queues: () => queueHealthReader(queue)(),
    });
    const key = alertKey("dead_letter_queue", "monitor-events-dlq");

    const t1 = await engine.tick();
    expect(t1.flips).toEqual([expect.objectContaining({ key, to: "firing", severity: "critical" })]);
    expect(await engine.firingAlerts()).toEqual([
      expect.objectContaining({
        rule: "dead_letter_queue",
        subject: "monitor-events-dlq",
        severity: "critical",
      }),
    ]);

    // The file closed under it: the read reports the queue unreadable; the alert is kept, not resolved.
    queue.close();
    const t2 = await engine.tick();
    expect(t2.flips).toEqual([]);
    expect((await engine.firingAlerts()).map((a) => a.subject)).toEqual(["monitor-events-dlq"]);

    // Reopened: still one dead letter, still firing; purged: resolves.
    queue = SqliteQueue.open(join(dir, path), {
      name: "monitor-events",
      deadLetter: { name: "monitor-events-dlq", maxReceives: 1 },
    });
    expect((await engine.tick()).flips).toEqual([]);
    expect(await queue.purgeDeadLetters()).toBe(1);
    const t4 = await engine.tick();
    expect(t4.flips).toEqual([expect.objectContaining({ key, from: "firing", to: "resolved" })]);
    expect(await engine.firingAlerts()).toEqual([]);
    queue.close();
  });

  it("a queue source that throws is logged and keeps a firing dead-letter alert", async () => {
    const queue = await embeddedWithDeadLetters("engine-throw.sqlite", 2);
    let broken = false;
    const log = memoryLog();
    const engine = new AlertEngine({
      store,
      registry: new InMemoryCollectorRegistry([]),
      stateStore: new InMemoryAlertStateStore(),
      channels: [],
      deliveryLog: new InMemoryDeliveryLog(),
      now: () => Date.now(),
      log,
      queues: async () => {
        if (broken) throw new Error("queue health exploded");
        return queue.read();
      },
    });
    expect((await engine.tick()).flips).toHaveLength(1);
    broken = true;
    expect((await engine.tick()).flips).toEqual([]);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: "warn", message: "alerts: queue health unavailable" }),
    );
    expect((await engine.firingAlerts()).map((a) => a.subject)).toEqual(["monitor-events-dlq"]);
    queue.close();
  });
});
