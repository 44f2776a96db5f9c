import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { ClickHouseRunStore } from "@monitor/clickhouse";
import { openChdbRunStore } from "@monitor/clickhouse/chdb";
import { DEFAULT_COLLECTORS, DEFAULT_HIERARCHY_RULES } from "@monitor/core";
import { ClickHouseCostStore, fileSource, writeCurFile } from "@monitor/cost";
import { DOUBLE_REGION, SqsDouble } from "@monitor/queues/test-support/sqs-double";
import type { APIGatewayProxyResult } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueHealthFromEnv, sqsQueueHealth } from "./queues.ts";
import { createStatusHandler } from "./status.ts";
import { functionUrlEvent, memoryLogger } from "./test-support.ts";

const TOKEN = "status-token-0123456789";
// Recent times: rows older than the 90-day TTL of svc.collector_runs are dropped on insert.
const NOW = Math.floor(Date.now() / 1000) * 1000;
const iso = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();
const dir = mkdtempSync(join(tmpdir(), "monitor-lambda-status-"));
let store: ClickHouseRunStore;
let handler: ReturnType<typeof createStatusHandler>;

beforeAll(async () => {
  store = openChdbRunStore(join(dir, "chdb"));
  await store.migrate();
  handler = createStatusHandler({ store, token: TOKEN, log: memoryLogger(), now: () => NOW });
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The status function behind its function URL, as Lambda invokes it. */
async function call(
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; via?: typeof handler } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  const event = functionUrlEvent(method, path, {
    headers,
    ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
  });
  const res = (await (opts.via ?? handler)(event as never, {} as never)) as APIGatewayProxyResult;
  return { status: res.statusCode, json: JSON.parse(res.body) as Record<string, unknown> };
}

describe("svcmon-status through a Lambda function URL, on the embedded chDB store", () => {
  it("answers the liveness probe without a token", async () => {
    expect(await call("GET", "/healthz")).toEqual({ status: 200, json: { status: "ok" } });
  });

  it("refuses the status without the bearer token", async () => {
    const res = await call("GET", "/api/system/status");
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ error: { code: "unauthorized" } });
  });

  it("stores runs posted by external collectors and reports them in the status, with the stored alerts", async () => {
    const posted = await call("POST", "/api/system/runs", {
      token: TOKEN,
      body: {
        collector: "config_ec2",
        cloud_account_id: "111111111111",
        cloud_region: "eu-west-1",
        started_at: iso(10),
        completed_at: iso(9),
        status: "succeeded",
        events_produced: 5,
        rows_inserted: 5,
      },
    });
    expect(posted).toMatchObject({ status: 201, json: { received: 1, stored: 1 } });

    const { status, json } = await call("GET", "/api/system/status", { token: TOKEN });
    expect(status).toBe(200);
    const collectors = json.collectors as {
      name: string;
      last_run: string | null;
      minutes_ago: number | null;
      health: string;
    }[];
    expect(collectors.map((c) => c.name)).toEqual(DEFAULT_COLLECTORS.map((c) => c.name));
    expect(collectors.find((c) => c.name === "config_ec2")).toMatchObject({
      last_run: iso(9),
      minutes_ago: 9,
      health: "green",
    });
    expect(json.alerts).toEqual([]);
    expect(json.analytics_db).toHaveProperty("disk_used_gb");
  });
});

describe("svcmon-status own cost", () => {
  it("reports the svc-infrastructure node's cost ingested from a CUR report into the same store", async () => {
    // Yesterday (a complete day, so inside "last 30 days"), one billing period.
    const d = new Date(NOW - 86_400_000).toISOString().slice(0, 10);
    const path = join(dir, "cur", "report-00001.csv.gz");
    await writeCurFile(store.client, path, "legacy-csv", [
      ...["svcmon-status", "svcmon-ingest"].map((fn) => ({
        billing_period: `${d.slice(0, 8)}01`,
        payer_account_id: "999999999999",
        usage_account_id: "111111111111",
        line_item_type: "Usage",
        usage_start: `${d}T00:00:00Z`,
        product_code: "AWSLambda",
        resource_id: `arn:aws:lambda:eu-west-1:111111111111:function:${fn}`,
        unblended_cost: 1.5,
        currency: "USD",
        tags: { "svc:purpose": "svc-infrastructure" },
      })),
      {
        billing_period: `${d.slice(0, 8)}01`,
        payer_account_id: "999999999999",
        usage_account_id: "111111111111",
        line_item_type: "Usage",
        usage_start: `${d}T00:00:00Z`,
        product_code: "AmazonEC2",
        resource_id: "i-0123456789abcdef0",
        unblended_cost: 40,
        currency: "USD",
        tags: { team: "search" },
      },
    ]);
    const cost = ClickHouseCostStore.fromStore(store, { rules: DEFAULT_HIERARCHY_RULES });
    await cost.ingest([fileSource(path)]);

    const { status, json } = await call("GET", "/api/system/status", { token: TOKEN });
    expect(status).toBe(200);
    const own = json.own_cost as { node: string; currency: string; last_30_days_total: number };
    expect(own).toMatchObject({ node: "svc-infrastructure", currency: "USD" });
    // The team-tagged EC2 line belongs to another node: only the two Lambda lines are the service's.
    expect(own.last_30_days_total).toBeCloseTo(3, 6);
  });
});

describe("svcmon-status queue health from SQS (against a local double of SQS)", () => {
  let sqs: SqsDouble;
  let client: SQSClient;
  beforeAll(async () => {
    sqs = await SqsDouble.start();
    client = new SQSClient({
      region: DOUBLE_REGION,
      endpoint: sqs.endpoint,
      maxAttempts: 1,
      credentials: { accessKeyId: "AKIDLOCALDOUBLE", secretAccessKey: "local-double-secret" },
    });
  });
  afterAll(async () => {
    client.destroy();
    await sqs.close();
  });

  it("reports the event queue and its dead-letter queue in the status body", async () => {
    sqs.addQueue({ name: "svcmon-events-dlq", visible: 2, inFlight: 1 });
    const url = sqs.addQueue({
      name: "svcmon-events",
      visible: 7,
      inFlight: 3,
      redrivePolicy: { deadLetterTargetArn: sqs.arn("svcmon-events-dlq"), maxReceiveCount: 5 },
    });
    const queues = sqsQueueHealth([url], client);
    const via = createStatusHandler({ store, token: TOKEN, log: memoryLogger(), now: () => NOW, queues });
    const { status, json } = await call("GET", "/api/system/status", { token: TOKEN, via });
    expect(status).toBe(200);
    expect(json.queues).toEqual([
      expect.objectContaining({
        name: "svcmon-events",
        depth: 7,
        in_flight: 3,
        dead_letter_queue: "svcmon-events-dlq",
        dead_letter_depth: 3,
        status: "dead_letters",
        source: "sqs",
        error: null,
      }),
    ]);
  });

  it("reports a failed CUR ingestion: svcmon-cur-ingest-dlq of MONITOR_SQS_DEAD_LETTER_QUEUE_URLS is dead_letters, after the event queue", async () => {
    sqs.addQueue({ name: "svcmon-events-dlq", visible: 0, inFlight: 0 });
    const events = sqs.addQueue({
      name: "svcmon-events",
      visible: 0,
      inFlight: 0,
      redrivePolicy: { deadLetterTargetArn: sqs.arn("svcmon-events-dlq"), maxReceiveCount: 5 },
    });
    const failures = sqs.addQueue({ name: "svcmon-cur-ingest-dlq", visible: 1, inFlight: 0 });
    const queues = queueHealthFromEnv(
      "svcmon-status",
      { MONITOR_SQS_QUEUE_URLS: events, MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: failures },
      client,
    );
    const via = createStatusHandler({ store, token: TOKEN, log: memoryLogger(), now: () => NOW, queues });
    const { status, json } = await call("GET", "/api/system/status", { token: TOKEN, via });
    expect(status).toBe(200);
    expect(json.queues).toEqual([
      expect.objectContaining({
        name: "svcmon-events",
        dead_letter_queue: "svcmon-events-dlq",
        status: "ok",
      }),
      expect.objectContaining({
        name: "svcmon-cur-ingest-dlq",
        depth: 1,
        in_flight: 0,
        dead_letter_queue: "svcmon-cur-ingest-dlq",
        dead_letter_depth: 1,
        status: "dead_letters",
        source: "sqs",
        error: null,
      }),
    ]);
  });

  it("reads MONITOR_SQS_QUEUE_URLS and MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: none set, none read; a bad URL stops the cold start naming the variable", () => {
    expect(queueHealthFromEnv("svcmon-status", {}, client)).toBeUndefined();
    expect(() =>
      queueHealthFromEnv("svcmon-status", { MONITOR_SQS_QUEUE_URLS: "not-a-url" }, client),
    ).toThrow(/^svcmon-status: MONITOR_SQS_QUEUE_URLS\[0\]/);
    const dlq = "https://sqs.eu-west-1.amazonaws.com/123456789012/svcmon-cur-ingest-dlq";
    expect(
      queueHealthFromEnv("svcmon-status", { MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: dlq }, client),
    ).toBeTypeOf("function");
    expect(() =>
      queueHealthFromEnv("svcmon-status", { MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: "not-a-url" }, client),
    ).toThrow(/^svcmon-status: MONITOR_SQS_DEAD_LETTER_QUEUE_URLS\[0\] is not a URL/);
    expect(() =>
      queueHealthFromEnv(
        "svcmon-status",
        { MONITOR_SQS_QUEUE_URLS: dlq, MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: dlq },
        client,
      ),
    ).toThrow(
      /^svcmon-status: MONITOR_SQS_DEAD_LETTER_QUEUE_URLS\[0\] is also listed in MONITOR_SQS_QUEUE_URLS/,
    );
  });
});

describe("svcmon-status refuses unknown routes, wrong methods and guessing", () => {
  /** A request from `sourceIp` as Lambda reports it; `headers` as the caller sent them. */
  async function from(
    via: typeof handler,
    sourceIp: string,
    method: string,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<APIGatewayProxyResult> {
    const event = functionUrlEvent(method, path, { headers });
    event.requestContext.http.sourceIp = sourceIp;
    return (await via(event as never, {} as never)) as APIGatewayProxyResult;
  }

  it("serves /system rendered with its data, and its client script, from inside the function", async () => {
    const login = (await handler(
      functionUrlEvent("POST", "/system/login", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: TOKEN }).toString(),
      }) as never,
      {} as never,
    )) as APIGatewayProxyResult & { cookies?: string[] };
    expect(login.statusCode).toBe(303);
    const setCookie = login.cookies?.[0] ?? String(login.headers?.["set-cookie"] ?? "");
    const cookie = setCookie.split(";")[0] ?? "";
    expect(cookie).toMatch(/^svcmon_session=/);
    const page = (await handler(
      functionUrlEvent("GET", "/system", { headers: { cookie } }) as never,
      {} as never,
    )) as APIGatewayProxyResult;
    expect(page.statusCode).toBe(200);
    // The verdict and the cards are in the HTML; the client script is the function's own route.
    expect(page.body).toContain('<p id="overall">Overall: ');
    expect(page.body).toContain('id="collectors"');
    const src = /<script nonce="[^"]+" src="(\/system\/assets\/client-[0-9a-f]{16}\.js)"/.exec(
      page.body,
    )?.[1];
    expect(src).toBeDefined();
    const script = (await handler(
      functionUrlEvent("GET", src ?? "") as never,
      {} as never,
    )) as APIGatewayProxyResult;
    expect(script.statusCode).toBe(200);
    expect(script.headers?.["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.body.length).toBeGreaterThan(50_000);
  });

  it("a wrong method is a JSON 405 with Allow; an unknown path a JSON 404", async () => {
    const res = await from(handler, "203.0.113.7", "DELETE", "/healthz");
    expect(res.statusCode).toBe(405);
    expect(res.headers?.allow).toBe("GET, HEAD");
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "method_not_allowed" } });
    const put = await from(handler, "203.0.113.7", "PUT", "/api/system/runs", {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(put.statusCode).toBe(405);
    expect(put.headers?.allow).toBe("GET, HEAD, POST");
    const missing = await from(handler, "203.0.113.7", "GET", "/no/such/route");
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ error: { code: "not_found", message: "no such route" } });
  });

  it("wrong tokens from one sourceIp end in 429 with Retry-After; a made-up X-Forwarded-For does not escape it; another caller is not slowed", async () => {
    const own = createStatusHandler({ store, token: TOKEN, log: memoryLogger(), now: () => NOW });
    for (let i = 0; i < 20; i++) {
      const r = await from(own, "198.51.100.66", "GET", "/api/system/collectors", {
        authorization: `Bearer wrong-${i}-guess`,
        "x-forwarded-for": `10.0.0.${i}`,
      });
      expect(r.statusCode).toBe(401);
    }
    const refused = await from(own, "198.51.100.66", "GET", "/api/system/collectors", {
      authorization: `Bearer ${TOKEN}`,
      "x-forwarded-for": "10.0.0.99",
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers?.["retry-after"]).toBe("60");
    const other = await from(own, "203.0.113.80", "GET", "/api/system/collectors", {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(other.statusCode).toBe(200);
  });
});
