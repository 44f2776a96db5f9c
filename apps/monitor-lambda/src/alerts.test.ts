import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQSClient } from "@aws-sdk/client-sqs";
import { startTransitionsDynalite } from "@monitor/aws/test-support/dynalite-transitions";
import { ClickHouseAlertStateStore, type ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { DOUBLE_REGION, SqsDouble } from "@monitor/queues/test-support/sqs-double";
import { firingAlerts, httpHeartbeat } from "@monitor/runtime";
import {
  type HealthchecksDouble,
  startHealthchecksDouble,
} from "@monitor/runtime/test-support/healthchecks-double";
import { webhookChannel } from "@shared/notify";
import { type HttpReceiverDouble, startHttpReceiverDouble } from "@shared/notify/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAlertsHandler } from "./alerts.ts";
import { queueHealthFromEnv, sqsQueueHealth } from "./queues.ts";
import { createStatusApp } from "./status.ts";
import { memoryLogger } from "./test-support.ts";

// Real chDB on this file's temp folder, a real webhook channel posting to a local HTTP receiver, queue
// health read through the AWS SDK from a local double of SQS. The tests run in order on one database,
// as consecutive invocations of the function would.
const MIN = 60_000;
const NOW = Math.floor(Date.now() / MIN) * MIN;
const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-alerts-"));
let store: ClickHouseRunStore;
let receiver: HttpReceiverDouble;
let sqs: SqsDouble;
let client: SQSClient;
let queueUrl: string;

function setQueues(deadLetters: number): void {
  sqs.addQueue({ name: "svcmon-events-dlq", visible: deadLetters, inFlight: 0 });
  queueUrl = sqs.addQueue({
    name: "svcmon-events",
    visible: 0,
    inFlight: 0,
    redrivePolicy: { deadLetterTargetArn: sqs.arn("svcmon-events-dlq"), maxReceiveCount: 5 },
  });
}

async function run(collector: string, at: number): Promise<void> {
  await store.insertRuns([
    {
      run_id: randomUUID(),
      collector,
      cloud_account_id: "111111111111",
      cloud_region: "eu-west-1",
      started_at: at - 2000,
      completed_at: at,
      status: "succeeded",
      events_produced: 1,
      rows_inserted: 1,
      error: "",
      duration_ms: 2000,
    },
  ]);
}

beforeAll(async () => {
  store = openChdbRunStore(join(dir, "chdb"), { timeoutMs: 10_000 });
  await store.migrate();
  receiver = await startHttpReceiverDouble();
  sqs = await SqsDouble.start();
  client = new SQSClient({
    region: DOUBLE_REGION,
    endpoint: sqs.endpoint,
    maxAttempts: 1,
    credentials: { accessKeyId: "AKIDLOCALDOUBLE", secretAccessKey: "local-double-secret" },
  });
  await store.upsertAccount({
    account_id: "111111111111",
    account_name: "prod",
    svc_status: "active",
    updated_at: NOW - 60 * MIN,
  });
  for (const c of ["config_ec2", "config_ebs", "hierarchy_builder"]) await run(c, NOW - 5 * MIN);
  // config_network last succeeded three hours ago: past its 60-minute freshness threshold.
  await run("config_network", NOW - 180 * MIN);
  setQueues(2);
});

afterAll(async () => {
  client.destroy();
  await sqs.close();
  await receiver.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A new execution environment: a handler built from scratch on the same database. */
const invocation = (channels = [webhookChannel({ url: receiver.url("/hook") })], now = NOW) =>
  createAlertsHandler({
    store,
    channels,
    log: memoryLogger(),
    now: () => now,
    queues: sqsQueueHealth([queueUrl], client),
  });

// biome-ignore lint/suspicious/noExplicitAny: webhook bodies are read loosely
const notified = (): any[] => receiver.received.map((r) => r.body);

describe("svcmon-alerts: one AlertEngine tick per invocation, state in ClickHouse", () => {
  it("notifies a stale collector and the non-empty dead-letter queue, and stores the state and every attempt", async () => {
    const summary = await invocation()();
    expect(summary.failed).toBe(0);
    expect(summary.delivered).toBeGreaterThanOrEqual(2);
    const firing = notified().filter((b) => b.kind === "firing");
    expect(firing).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rule: "collector_stale", subject: "config_network", source: "monitor" }),
        expect.objectContaining({ rule: "dead_letter_queue", subject: "svcmon-events-dlq" }),
      ]),
    );
    const stored = firingAlerts(await ClickHouseAlertStateStore.fromStore(store).load());
    expect(stored.map((a) => `${a.rule}:${a.subject}`)).toEqual(
      expect.arrayContaining(["collector_stale:config_network", "dead_letter_queue:svcmon-events-dlq"]),
    );
    const rs = await store.client.query({
      query: "SELECT count() AS n, countIf(ok) AS ok FROM svc.notification_attempts",
      format: "JSONEachRow",
    });
    const [attempts] = await rs.json<{ n: unknown; ok: unknown }>();
    expect(Number(attempts?.n)).toBe(summary.delivered);
    expect(Number(attempts?.ok)).toBe(summary.delivered);
  });

  it("the next invocation, in a new execution environment, does not notify again", async () => {
    const before = receiver.received.length;
    expect(await invocation(undefined, NOW + MIN)()).toEqual({
      flips: 0,
      delivered: 0,
      failed: 0,
      claimedElsewhere: 0,
      held: 0,
    });
    expect(receiver.received.length).toBe(before);
  });

  it("without a channel the resolutions are stored, nothing is sent, and the tick says what was not delivered", async () => {
    await run("config_network", NOW + MIN);
    setQueues(0);
    const before = receiver.received.length;
    const summary = await invocation([], NOW + 2 * MIN)();
    expect(summary.flips).toBeGreaterThanOrEqual(2);
    expect(summary.delivered).toBe(0);
    // Nothing attempted: the resolves are held until an invocation has a channel.
    expect(summary.failed).toBe(0);
    expect(summary.held).toBeGreaterThan(0);
    expect(receiver.received.length).toBe(before);
    const stored = firingAlerts(await ClickHouseAlertStateStore.fromStore(store).load());
    expect(stored.map((a) => a.subject)).not.toContain("config_network");
    expect(stored.map((a) => a.subject)).not.toContain("svcmon-events-dlq");
  });

  it("a failed CUR ingestion (svcmon-cur-ingest-dlq in MONITOR_SQS_DEAD_LETTER_QUEUE_URLS) raises the dead-letter alert under that queue's name", async () => {
    const failures = sqs.addQueue({ name: "svcmon-cur-ingest-dlq", visible: 1, inFlight: 0 });
    const queues = queueHealthFromEnv(
      "svcmon-alerts",
      { MONITOR_SQS_QUEUE_URLS: queueUrl, MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: failures },
      client,
    );
    const before = receiver.received.length;
    const summary = await createAlertsHandler({
      store,
      channels: [webhookChannel({ url: receiver.url("/hook") })],
      log: memoryLogger(),
      now: () => NOW + 3 * MIN,
      queues,
    })();
    expect(summary.failed).toBe(0);
    // The resolution the previous (channel-less) tick could not deliver goes out in the same group.
    const items = notified()
      .slice(before)
      .filter((b) => b.rule === "dead_letter_queue" && b.severity === "critical")
      .flatMap((b) => b.details.items);
    expect(items).toContainEqual(
      expect.objectContaining({
        kind: "firing",
        subject: "svcmon-cur-ingest-dlq",
        detail: "dead-letter queue svcmon-cur-ingest-dlq holds 1 message(s)",
      }),
    );
    const stored = firingAlerts(await ClickHouseAlertStateStore.fromStore(store).load());
    expect(stored.map((a) => `${a.rule}:${a.subject}`)).toContain("dead_letter_queue:svcmon-cur-ingest-dlq");
  });

  it("two overlapping invocations on the DynamoDB transitions table (dynalite) send each notification once", async () => {
    const dynamo = await startTransitionsDynalite();
    try {
      const table = await dynamo.newStore();
      const race = sqs.addQueue({ name: "svcmon-race-dlq", visible: 4, inFlight: 0 });
      const queues = queueHealthFromEnv(
        "svcmon-alerts",
        { MONITOR_SQS_QUEUE_URLS: queueUrl, MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: race },
        client,
      );
      const before = receiver.received.length;
      // Two execution environments: each its own handler and its own client of the same table.
      const invoke = (now: number) =>
        createAlertsHandler({
          store,
          channels: [webhookChannel({ url: receiver.url("/hook") })],
          log: memoryLogger(),
          now: () => now,
          queues,
          transitions: table,
        })();
      const [a, b] = await Promise.all([invoke(NOW + 4 * MIN), invoke(NOW + 4 * MIN)]);
      expect(a.failed + b.failed).toBe(0);
      const sent = notified()
        .slice(before)
        .flatMap((n) =>
          n.details.items.map((i: { kind: string; subject: string }) => `${i.kind} ${i.subject}`),
        );
      expect(sent).toContain("firing svcmon-race-dlq");
      expect(new Set(sent).size).toBe(sent.length);
      const rows = await table.list({ kind: "notification" });
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.sentAt !== null)).toBe(true);
      expect((await table.list({ kind: "flip" })).map((r) => r.id)).toContain(
        "flip|dead_letter_queue|svcmon-race-dlq|1|firing",
      );
    } finally {
      await dynamo.close();
    }
  });
});

describe("svcmon-alerts watched: each invocation records its tick and pings the dead-man's switch", () => {
  let hc: HealthchecksDouble;
  beforeAll(async () => {
    hc = await startHealthchecksDouble();
  });
  afterAll(async () => hc.close());

  const TOKEN = "watcher-test-token-0123456789";
  /** The status function's body, on the same database (another execution environment). */
  async function engineStatus(now: number) {
    const app = createStatusApp({ store, token: TOKEN, log: memoryLogger(), now: () => now });
    const res = await app.request("/api/system/status", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    // biome-ignore lint/suspicious/noExplicitAny: the body is read loosely
    const body: any = await res.json();
    return { engine: body.alert_engine, overall: body.overall_health };
  }

  it("healthy invocations ping /start then success and are recorded; svcmon-status shows the engine ok", async () => {
    const before = hc.received.length;
    for (const at of [NOW + 10 * MIN, NOW + 11 * MIN]) {
      await createAlertsHandler({
        store,
        channels: [],
        log: memoryLogger(),
        now: () => at,
        heartbeat: httpHeartbeat({ url: hc.checkUrl, log: memoryLogger() }),
      })();
    }
    expect(hc.received.slice(before).map((p) => p.kind)).toEqual(["start", "success", "start", "success"]);
    expect((await engineStatus(NOW + 11 * MIN + 20_000)).engine).toEqual({
      last_tick_at: new Date(NOW + 11 * MIN).toISOString(),
      last_completed_at: new Date(NOW + 11 * MIN).toISOString(),
      lag_s: 20,
      interval_s: 60,
      state: "ok",
      last_error: null,
    });
  });

  it("an invocation whose tick fails pings /fail with the reason, records it, and still fails", async () => {
    const before = hc.received.length;
    // The registry read fails: the database refuses the query (a table it cannot read).
    await store.client.command({ query: "RENAME TABLE svc.collectors TO svc.collectors_away" });
    try {
      await expect(
        createAlertsHandler({
          store,
          channels: [],
          log: memoryLogger(),
          now: () => NOW + 12 * MIN,
          heartbeat: httpHeartbeat({ url: hc.checkUrl, log: memoryLogger() }),
        })(),
      ).rejects.toThrow();
    } finally {
      await store.client.command({ query: "RENAME TABLE svc.collectors_away TO svc.collectors" });
    }
    const pings = hc.received.slice(before);
    expect(pings.map((p) => p.kind)).toEqual(["start", "fail"]);
    expect(pings[1]?.body).toMatch(/collectors/);
    const { engine, overall } = await engineStatus(NOW + 12 * MIN + 5000);
    expect(engine).toMatchObject({ state: "failing", last_error: pings[1]?.body });
    expect(overall).not.toBe("green");
  });

  it("with no invocation any more (the schedule disabled) nothing is pinged, and the status turns late", async () => {
    const before = hc.received.length;
    const { engine, overall } = await engineStatus(NOW + 12 * MIN + 10 * MIN);
    expect(engine).toMatchObject({ state: "late", lag_s: 600 });
    expect(["amber", "red"]).toContain(overall);
    expect(hc.received.length).toBe(before);
  });
});
