import { SQSClient } from "@aws-sdk/client-sqs";
import type { QueueHealth } from "@monitor/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { queueHealthContract } from "./contract/queue-health.contract.ts";
import { queueHealthReader, queueStatus } from "./queue-health.ts";
import {
  deadLetterArn,
  parseSqsArn,
  SqsQueueHealth,
  sqsDeadLetterQueueUrlsFromEnv,
  sqsQueueListsFromEnv,
  sqsQueueName,
  sqsQueueUrlsFromEnv,
  validateSqsQueueLists,
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

describe("failure queues (deadLetterQueueUrls) against a local double of SQS", () => {
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

  const only = async (url: string, timeoutMs?: number): Promise<QueueHealth> => {
    const [q] = await new SqsQueueHealth({
      client: c,
      queueUrls: [],
      deadLetterQueueUrls: [url],
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    }).read();
    return q as QueueHealth;
  };

  it("an empty failure queue is ok, and is its own dead-letter queue at depth 0", async () => {
    const q = await only(d.addQueue({ name: "ingest-failures-empty", visible: 0, inFlight: 0 }));
    expect(q).toEqual({
      name: "ingest-failures-empty",
      source: "sqs",
      read_at: expect.any(Number),
      depth: 0,
      in_flight: 0,
      dead_letter_queue: "ingest-failures-empty",
      dead_letter_depth: 0,
      error: null,
    });
    expect(queueStatus(q)).toBe("ok");
  });

  it("a failure queue holding 2 messages is dead_letters with dead-letter depth 2, read with one call", async () => {
    const url = d.addQueue({ name: "ingest-failures", visible: 2, inFlight: 0 });
    const q = await only(url);
    expect(q).toMatchObject({
      depth: 2,
      in_flight: 0,
      dead_letter_queue: "ingest-failures",
      dead_letter_depth: 2,
      error: null,
    });
    expect(queueStatus(q)).toBe("dead_letters");
    // No RedrivePolicy asked for and no dead-letter queue looked up: the queue is the dead-letter queue.
    expect(d.requests.map((r) => [r.target, r.body])).toEqual([
      [
        "AmazonSQS.GetQueueAttributes",
        {
          QueueUrl: url,
          AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        },
      ],
    ]);
  });

  it("messages in flight (being replayed) still count as dead letters", async () => {
    const q = await only(d.addQueue({ name: "ingest-failures-replaying", visible: 1, inFlight: 1 }));
    expect(q).toMatchObject({ depth: 1, in_flight: 1, dead_letter_depth: 2 });
  });

  it("a failure queue that does not exist is unreadable, naming QueueDoesNotExist", async () => {
    const q = await only(d.queueUrl("failures-never-created"));
    expect(q).toMatchObject({
      name: "failures-never-created",
      depth: null,
      dead_letter_queue: null,
      dead_letter_depth: null,
      error: "QueueDoesNotExist: The specified queue does not exist.",
    });
    expect(queueStatus(q)).toBe("unreadable");
  });

  it("a failure queue that never answers times out into an error entry", async () => {
    const url = d.addQueue({ name: "failures-hang", visible: 1, inFlight: 0 });
    d.setFault("failures-hang", "hang");
    try {
      expect(await only(url, 300)).toMatchObject({
        name: "failures-hang",
        dead_letter_depth: null,
        error: "timeout: no answer within 300 ms",
      });
    } finally {
      d.setFault("failures-hang", null);
    }
  });

  it("comes after the redrive-policy queues, in configuration order; one unreadable queue spoils no other", async () => {
    d.addQueue({ name: "mixed-dlq", visible: 0, inFlight: 0 });
    const events = d.addQueue({
      name: "mixed",
      visible: 4,
      inFlight: 0,
      redrivePolicy: { deadLetterTargetArn: d.arn("mixed-dlq"), maxReceiveCount: 5 },
    });
    const failures = d.addQueue({ name: "mixed-failures", visible: 3, inFlight: 0 });
    const denied = d.addQueue({ name: "mixed-denied", visible: 1, inFlight: 0 });
    d.setFault("mixed-denied", "access_denied");
    try {
      const source = new SqsQueueHealth({
        client: c,
        queueUrls: [events],
        deadLetterQueueUrls: [denied, failures],
      });
      expect(source.queues).toEqual(["mixed", "mixed-denied", "mixed-failures"]);
      const got = await source.read();
      expect(got.map((q) => [q.name, queueStatus(q), q.dead_letter_queue, q.dead_letter_depth])).toEqual([
        ["mixed", "ok", "mixed-dlq", 0],
        ["mixed-denied", "unreadable", null, null],
        ["mixed-failures", "dead_letters", "mixed-failures", 3],
      ]);
      expect(got[1]?.error).toMatch(/^AccessDenied: /);
    } finally {
      d.setFault("mixed-denied", null);
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

  it("validates the failure queue list like the queue list and refuses a URL in both, naming the entry", () => {
    const a = "https://sqs.eu-west-1.amazonaws.com/123456789012/a";
    const f = "https://sqs.eu-west-1.amazonaws.com/123456789012/f";
    expect(validateSqsQueueLists([a], [f])).toEqual({
      ok: true,
      value: { queueUrls: [a], deadLetterQueueUrls: [f] },
    });
    const bad = validateSqsQueueLists([a], [f, "nope", a, f]);
    expect(bad.ok ? [] : bad.errors).toEqual([
      { path: "deadLetterQueueUrls[1]", message: 'is not a URL: "nope"' },
      { path: "deadLetterQueueUrls[3]", message: "is listed twice" },
      {
        path: "deadLetterQueueUrls[2]",
        message:
          "is also listed in queueUrls (list a queue with a RedrivePolicy there, a dead-letter queue here)",
      },
    ]);
    expect(validateSqsQueueLists([a], "f").ok).toBe(false);
    expect(
      () => new SqsQueueHealth({ client: new SQSClient({}), queueUrls: [a], deadLetterQueueUrls: [a] }),
    ).toThrow(/^SqsQueueHealth: deadLetterQueueUrls\[0\] is also listed in queueUrls/);
  });

  it("MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: same format; errors name the variable, also for a URL in both variables", () => {
    const a = "https://sqs.eu-west-1.amazonaws.com/123456789012/a";
    const f = "https://sqs.eu-west-1.amazonaws.com/123456789012/f";
    expect(sqsDeadLetterQueueUrlsFromEnv({})).toEqual({ ok: true, value: [] });
    expect(sqsDeadLetterQueueUrlsFromEnv({ MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: ` ${f} ` })).toEqual({
      ok: true,
      value: [f],
    });
    const bad = sqsDeadLetterQueueUrlsFromEnv({ MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: `${f},x` });
    expect(bad.ok ? null : bad.errors[0]?.path).toBe("MONITOR_SQS_DEAD_LETTER_QUEUE_URLS[1]");

    expect(sqsQueueListsFromEnv({})).toEqual({ ok: true, value: { queueUrls: [], deadLetterQueueUrls: [] } });
    expect(
      sqsQueueListsFromEnv({ MONITOR_SQS_QUEUE_URLS: a, MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: f }),
    ).toEqual({ ok: true, value: { queueUrls: [a], deadLetterQueueUrls: [f] } });
    const both = sqsQueueListsFromEnv({
      MONITOR_SQS_QUEUE_URLS: a,
      MONITOR_SQS_DEAD_LETTER_QUEUE_URLS: `${f} ${a}`,
    });
    expect(both.ok ? [] : both.errors).toEqual([
      {
        path: "MONITOR_SQS_DEAD_LETTER_QUEUE_URLS[1]",
        message:
          "is also listed in MONITOR_SQS_QUEUE_URLS (list a queue with a RedrivePolicy there, a dead-letter queue here)",
      },
    ]);
  });

  it("the adapter refuses an invalid URL list at construction", () => {
    expect(() => new SqsQueueHealth({ client: new SQSClient({}), queueUrls: ["nope"] })).toThrow(
      /queueUrls\[0\] is not a URL/,
    );
  });
});
