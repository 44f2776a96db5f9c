import { SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { queueHealthContract } from "./queue-health.contract.ts";
import { type QueueHealth, queueHealthReader, queueStatus } from "./queue-health.ts";
import {
  deadLetterArn,
  parseSqsArn,
  SqsQueueHealth,
  sqsQueueName,
  sqsQueueUrlsFromEnv,
  validateSqsQueueUrls,
} from "./sqs.ts";
import { DOUBLE_REGION, SqsDouble } from "./test-support/sqs-double.ts";

function client(d: SqsDouble): SQSClient {
  return new SQSClient({
    region: DOUBLE_REGION,
    endpoint: d.endpoint,
    credentials: { accessKeyId: "AKIDLOCALDOUBLE", secretAccessKey: "local-double-secret" },
  });
}

queueHealthContract("SQS (AWS SDK v3) against a local double of SQS", async (setup, now) => {
  const d = await SqsDouble.start();
  const urls = setup.map((s) => {
    if (s.dead_letters !== null) {
      d.addQueue({ name: `${s.name}-dlq`, visible: s.dead_letters, inFlight: 0 });
    }
    return d.addQueue({
      name: s.name,
      visible: s.visible,
      inFlight: s.in_flight,
      ...(s.dead_letters === null
        ? {}
        : { redrivePolicy: { deadLetterTargetArn: d.arn(`${s.name}-dlq`), maxReceiveCount: 5 } }),
    });
  });
  const c = client(d);
  return {
    source: new SqsQueueHealth({ client: c, queueUrls: urls, now }),
    async breakQueue(name) {
      d.setFault(name, "access_denied");
    },
    async close() {
      c.destroy();
      await d.close();
    },
  };
});

describe("SqsQueueHealth against a local double of SQS", () => {
  let d: SqsDouble;
  let c: SQSClient;
  beforeAll(async () => {
    d = await SqsDouble.start();
    c = client(d);
  });
  afterAll(async () => {
    c.destroy();
    await d.close();
  });
  afterEach(() => {
    d.requests.length = 0;
  });

  const one = async (source: SqsQueueHealth): Promise<QueueHealth> => {
    const [q] = await source.read();
    return q as QueueHealth;
  };

  it("speaks the SDK's JSON protocol: AmazonSQS.GetQueueAttributes, then GetQueueUrl for the dead-letter queue", async () => {
    d.addQueue({ name: "proto-dlq", visible: 2, inFlight: 1 });
    const url = d.addQueue({
      name: "proto",
      visible: 7,
      inFlight: 3,
      redrivePolicy: JSON.stringify({ deadLetterTargetArn: d.arn("proto-dlq"), maxReceiveCount: "5" }),
    });
    const source = new SqsQueueHealth({ client: c, queueUrls: [url] });
    expect(await one(source)).toMatchObject({
      name: "proto",
      source: "sqs",
      depth: 7,
      in_flight: 3,
      dead_letter_queue: "proto-dlq",
      dead_letter_depth: 3,
      error: null,
    });
    expect(d.requests.map((r) => r.target)).toEqual([
      "AmazonSQS.GetQueueAttributes",
      "AmazonSQS.GetQueueUrl",
      "AmazonSQS.GetQueueAttributes",
    ]);
    for (const r of d.requests) {
      expect(r.contentType).toBe("application/x-amz-json-1.0");
      expect(r.queryMode).toBe("true");
      expect(r.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCALDOUBLE\//);
    }
    expect(d.requests[0]?.body).toEqual({
      QueueUrl: url,
      AttributeNames: [
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "RedrivePolicy",
      ],
    });
    expect(d.requests[1]?.body).toEqual({ QueueName: "proto-dlq", QueueOwnerAWSAccountId: "123456789012" });

    // The dead-letter queue's URL is looked up once.
    d.requests.length = 0;
    await source.read();
    expect(d.requests.map((r) => r.target)).toEqual([
      "AmazonSQS.GetQueueAttributes",
      "AmazonSQS.GetQueueAttributes",
    ]);
  });

  it("finds a dead-letter queue in the account named by the ARN", async () => {
    d.addQueue({ name: "shared-dlq", account: "210987654321", visible: 9, inFlight: 0 });
    d.addQueue({ name: "shared-dlq", visible: 0, inFlight: 0 }); // same name, the caller's account
    const url = d.addQueue({
      name: "cross",
      visible: 0,
      inFlight: 0,
      redrivePolicy: { deadLetterTargetArn: d.arn("shared-dlq", "210987654321"), maxReceiveCount: 3 },
    });
    const q = await one(new SqsQueueHealth({ client: c, queueUrls: [url] }));
    expect(q).toMatchObject({ dead_letter_queue: "shared-dlq", dead_letter_depth: 9, error: null });
    expect(queueStatus(q)).toBe("dead_letters");
    expect(d.requests.find((r) => r.target === "AmazonSQS.GetQueueUrl")?.body).toEqual({
      QueueName: "shared-dlq",
      QueueOwnerAWSAccountId: "210987654321",
    });
  });

  it("AccessDenied on a queue becomes that queue's error entry; the other queues are read", async () => {
    const denied = d.addQueue({ name: "denied", visible: 1, inFlight: 0 });
    const fine = d.addQueue({ name: "fine", visible: 4, inFlight: 0 });
    d.setFault("denied", "access_denied");
    try {
      const got = await new SqsQueueHealth({ client: c, queueUrls: [denied, fine] }).read();
      expect(got[0]).toMatchObject({ name: "denied", depth: null, dead_letter_depth: null });
      expect(got[0]?.error).toMatch(
        /^AccessDenied: User: .* is not authorized to perform: sqs:getqueueattributes/,
      );
      expect(got[1]).toMatchObject({ name: "fine", depth: 4, error: null });
    } finally {
      d.setFault("denied", null);
    }
  });

  it("a queue that does not exist becomes an error entry naming QueueDoesNotExist", async () => {
    const q = await one(new SqsQueueHealth({ client: c, queueUrls: [d.queueUrl("never-created")] }));
    expect(q).toMatchObject({ name: "never-created", depth: null, in_flight: null });
    expect(q.error).toBe("QueueDoesNotExist: The specified queue does not exist.");
    expect(queueStatus(q)).toBe("unreadable");
  });

  it("a dead-letter queue that does not exist: the queue's depth is kept, its dead-letter depth is unknown", async () => {
    const url = d.addQueue({
      name: "orphan",
      visible: 2,
      inFlight: 1,
      redrivePolicy: { deadLetterTargetArn: d.arn("deleted-dlq"), maxReceiveCount: 3 },
    });
    const source = new SqsQueueHealth({ client: c, queueUrls: [url] });
    const q = await one(source);
    expect(q).toMatchObject({
      depth: 2,
      in_flight: 1,
      dead_letter_queue: "deleted-dlq",
      dead_letter_depth: null,
      error: "dead-letter queue deleted-dlq: QueueDoesNotExist: The specified queue does not exist.",
    });
    expect(queueStatus(q)).toBe("unreadable");
    // Created later: the next read finds it.
    d.addQueue({ name: "deleted-dlq", visible: 1, inFlight: 0 });
    expect(await one(source)).toMatchObject({ dead_letter_depth: 1, error: null });
    // Deleted again after its URL was cached: an error again, and the URL is looked up anew next time.
    d.removeQueue("deleted-dlq");
    expect((await one(source)).error).toMatch(/^dead-letter queue deleted-dlq: QueueDoesNotExist/);
    d.addQueue({ name: "deleted-dlq", visible: 0, inFlight: 0 });
    d.requests.length = 0;
    expect(await one(source)).toMatchObject({ dead_letter_depth: 0, error: null });
    expect(d.requests.map((r) => r.target)).toContain("AmazonSQS.GetQueueUrl");
  });

  it("a queue that never answers times out into an error entry; the other queues are read", async () => {
    const slow = d.addQueue({ name: "slow", visible: 1, inFlight: 0 });
    const quick = d.addQueue({ name: "quick", visible: 5, inFlight: 0 });
    d.setFault("slow", "hang");
    try {
      const got = await new SqsQueueHealth({ client: c, queueUrls: [slow, quick], timeoutMs: 300 }).read();
      expect(got[0]).toMatchObject({ name: "slow", depth: null, error: "timeout: no answer within 300 ms" });
      expect(got[1]).toMatchObject({ name: "quick", depth: 5, error: null });
    } finally {
      d.setFault("slow", null);
    }
  });

  it("a dead-letter queue that never answers times out into the queue's error", async () => {
    d.addQueue({ name: "stuck-dlq", visible: 0, inFlight: 0 });
    const url = d.addQueue({
      name: "stuck-src",
      visible: 1,
      inFlight: 0,
      redrivePolicy: { deadLetterTargetArn: d.arn("stuck-dlq"), maxReceiveCount: 3 },
    });
    d.setFault("stuck-dlq", "hang");
    try {
      const q = await one(new SqsQueueHealth({ client: c, queueUrls: [url], timeoutMs: 300 }));
      expect(q).toMatchObject({
        depth: 1,
        dead_letter_queue: "stuck-dlq",
        dead_letter_depth: null,
        error: "dead-letter queue stuck-dlq: timeout: no answer within 300 ms",
      });
    } finally {
      d.setFault("stuck-dlq", null);
    }
  });

  it("an unusable RedrivePolicy is the queue's error; its own depth is still reported", async () => {
    const url = d.addQueue({ name: "badpolicy", visible: 3, inFlight: 0, redrivePolicy: "{not json" });
    expect(await one(new SqsQueueHealth({ client: c, queueUrls: [url] }))).toMatchObject({
      depth: 3,
      dead_letter_queue: null,
      error: "RedrivePolicy is not valid JSON",
    });
  });

  it("queueHealthReader: a caller's deadline shorter than the adapter's marks every queue unreadable", async () => {
    const url = d.addQueue({ name: "hangs-long", visible: 1, inFlight: 0 });
    d.setFault("hangs-long", "hang");
    try {
      const read = queueHealthReader(new SqsQueueHealth({ client: c, queueUrls: [url], timeoutMs: 10_000 }), {
        timeoutMs: 200,
        source: "sqs",
      });
      expect(await read()).toEqual([
        expect.objectContaining({
          name: "hangs-long",
          source: "sqs",
          error: "timeout: no answer within 200 ms",
        }),
      ]);
    } finally {
      d.setFault("hangs-long", null);
    }
  });
});

describe("SQS configuration and ARNs", () => {
  it("parses queue ARNs and refuses anything else", () => {
    expect(parseSqsArn("arn:aws:sqs:eu-west-1:123456789012:events-dlq")).toEqual({
      partition: "aws",
      region: "eu-west-1",
      account: "123456789012",
      name: "events-dlq",
    });
    expect(parseSqsArn("arn:aws-cn:sqs:cn-north-1:123456789012:q.fifo")?.name).toBe("q.fifo");
    expect(parseSqsArn("arn:aws:sns:eu-west-1:123456789012:topic")).toBeNull();
    expect(parseSqsArn("arn:aws:sqs:eu-west-1:12345:q")).toBeNull();
    expect(parseSqsArn("arn:aws:sqs:eu-west-1:123456789012:bad name")).toBeNull();
    expect(parseSqsArn("events-dlq")).toBeNull();
  });

  it("reads the dead-letter ARN of a RedrivePolicy, or says what is wrong with it", () => {
    expect(
      deadLetterArn('{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:d","maxReceiveCount":"4"}')
        .name,
    ).toBe("d");
    expect(() => deadLetterArn("{")).toThrow("RedrivePolicy is not valid JSON");
    expect(() => deadLetterArn('{"maxReceiveCount":4}')).toThrow("RedrivePolicy has no deadLetterTargetArn");
    expect(() => deadLetterArn('{"deadLetterTargetArn":"arn:aws:sns:x:123456789012:t"}')).toThrow(
      /not an SQS queue ARN/,
    );
  });

  it("validates queue URLs, naming the entry at fault", () => {
    expect(validateSqsQueueUrls(["https://sqs.us-east-1.amazonaws.com/123456789012/events"])).toEqual({
      ok: true,
      value: ["https://sqs.us-east-1.amazonaws.com/123456789012/events"],
    });
    const bad = validateSqsQueueUrls(
      [
        "https://sqs.us-east-1.amazonaws.com/123456789012/events",
        "https://sqs.us-east-1.amazonaws.com/123456789012/events",
        "sqs://x/123456789012/q",
        "https://sqs.us-east-1.amazonaws.com/events",
        "not a url",
        7,
      ],
      "queueUrls",
    );
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual([
      "queueUrls[1]",
      "queueUrls[2]",
      "queueUrls[3]",
      "queueUrls[4]",
      "queueUrls[5]",
    ]);
    expect(validateSqsQueueUrls("x").ok).toBe(false);
    expect(sqsQueueName("https://sqs.us-east-1.amazonaws.com/123456789012/events.fifo")).toBe("events.fifo");
  });

  it("MONITOR_SQS_QUEUE_URLS: comma or space separated; unset means none; errors name the variable", () => {
    expect(sqsQueueUrlsFromEnv({})).toEqual({ ok: true, value: [] });
    expect(sqsQueueUrlsFromEnv({ MONITOR_SQS_QUEUE_URLS: " " })).toEqual({ ok: true, value: [] });
    expect(
      sqsQueueUrlsFromEnv({
        MONITOR_SQS_QUEUE_URLS:
          "https://sqs.eu-west-1.amazonaws.com/123456789012/a, https://sqs.eu-west-1.amazonaws.com/123456789012/b",
      }),
    ).toEqual({
      ok: true,
      value: [
        "https://sqs.eu-west-1.amazonaws.com/123456789012/a",
        "https://sqs.eu-west-1.amazonaws.com/123456789012/b",
      ],
    });
    const bad = sqsQueueUrlsFromEnv({ MONITOR_SQS_QUEUE_URLS: "https://sqs.eu-west-1.amazonaws.com/a" });
    expect(bad.ok ? null : bad.errors[0]?.path).toBe("MONITOR_SQS_QUEUE_URLS[0]");
  });

  it("the adapter refuses an invalid URL list at construction", () => {
    expect(() => new SqsQueueHealth({ client: new SQSClient({}), queueUrls: ["nope"] })).toThrow(
      /queueUrls\[0\] is not a URL/,
    );
  });
});
