import { SendMessageBatchCommand, SQSClient } from "@aws-sdk/client-sqs";
import { StandardRetryStrategy } from "@smithy/core/retry";
import { afterEach, describe, expect, it } from "vitest";
import { type AwsRetryOptions, attemptsOf, awsRetryConfig, isRetryableAwsError } from "./aws-retry.ts";
import { ec2ClientFactory } from "./clients.ts";
import { SqsEventPublisher } from "./sqs-event-publisher.ts";
import {
  SQS_NO_QUEUE,
  SQS_THROTTLED,
  SQS_UNAVAILABLE,
  type SqsDoubleAnswer,
  type SqsHttpDouble,
  startSqsHttpDouble,
} from "./test-support/sqs-http-double.ts";

let double: SqsHttpDouble | undefined;
afterEach(async () => {
  await double?.close();
  double = undefined;
});

/** The double answers with `answers` in turn, then with the last of them. */
async function sqsDouble(answers: SqsDoubleAnswer[], onAnswered?: (n: number) => void) {
  double = await startSqsHttpDouble(
    (n) => answers[Math.min(n, answers.length) - 1] as SqsDoubleAnswer,
    onAnswered,
  );
  return double;
}

/** A real SQSClient on the double, retrying as awsRetryConfig sets, 1 ms between attempts. */
function client(d: SqsHttpDouble, retry: AwsRetryOptions = {}) {
  return new SQSClient({
    region: "us-east-1",
    endpoint: d.endpoint,
    credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/EXAMPLEKEY" },
    ...awsRetryConfig({ retryDelayMs: 1, ...retry }),
  });
}

function sendBatch(d: SqsHttpDouble, c: SQSClient, abortSignal?: AbortSignal) {
  return c.send(
    new SendMessageBatchCommand({
      QueueUrl: d.queueUrl,
      Entries: [
        { Id: "0", MessageBody: '{"n":0}' },
        { Id: "1", MessageBody: '{"n":1}' },
      ],
    }),
    abortSignal ? { abortSignal } : {},
  );
}

describe("the SDK's retries as awsRetryConfig sets them (a real SQSClient against an HTTP double of SQS)", () => {
  it("retries a throttled call (ThrottlingException twice) and returns its success: 3 requests", async () => {
    const d = await sqsDouble([SQS_THROTTLED, SQS_THROTTLED, { ok: true }]);
    const out = await sendBatch(d, client(d));
    expect(out.Successful?.map((s) => s.Id)).toEqual(["0", "1"]);
    expect(out.$metadata.attempts).toBe(3);
    expect(d.requests).toHaveLength(3);
    expect(d.requests.every((r) => r.target === "AmazonSQS.SendMessageBatch")).toBe(true);
  });

  it("retries 5xx answers and a reset connection", async () => {
    const d = await sqsDouble([SQS_UNAVAILABLE, { reset: true }, { ok: true }]);
    const out = await sendBatch(d, client(d));
    expect(out.$metadata.attempts).toBe(3);
    expect(d.requests).toHaveLength(3);
  });

  it("does not retry a client error (QueueDoesNotExist): 1 request", async () => {
    const d = await sqsDouble([SQS_NO_QUEUE, { ok: true }]);
    const err = await sendBatch(d, client(d)).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "QueueDoesNotExist", $metadata: { httpStatusCode: 400 } });
    expect(isRetryableAwsError(err)).toBe(false);
    expect(attemptsOf(err)).toBe(1);
    expect(d.requests).toHaveLength(1);
  });

  it("bounds the attempts: throttled every time, exactly maxAttempts requests, then the error with that count", async () => {
    const d = await sqsDouble([SQS_THROTTLED]);
    const err = await sendBatch(d, client(d, { maxAttempts: 4 })).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "ThrottlingException" });
    expect(isRetryableAwsError(err)).toBe(true);
    expect(attemptsOf(err)).toBe(4);
    expect(d.requests).toHaveLength(4);
  });

  it("makes 5 attempts by default", async () => {
    const d = await sqsDouble([SQS_UNAVAILABLE]);
    const err = await sendBatch(d, client(d)).catch((e: unknown) => e);
    expect(attemptsOf(err)).toBe(5);
    expect(d.requests).toHaveLength(5);
  });

  it("stops retrying once the call's abortSignal aborts, however long the backoff: 1 request", async () => {
    const ac = new AbortController();
    // A backoff far longer than the test: only the abort can end the call.
    const d = await sqsDouble([SQS_UNAVAILABLE], () => ac.abort(new Error("timed out after 5000 ms")));
    const err = await sendBatch(d, client(d, { retryDelayMs: 60_000 }), ac.signal).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "AbortError" });
    expect(d.requests).toHaveLength(1);
  });
});

describe("SqsEventPublisher on a real SQSClient against the HTTP double", () => {
  it("sends through throttling, and names the client's attempts when a batch is throttled past them", async () => {
    const d = await sqsDouble([SQS_THROTTLED, { ok: true }, SQS_THROTTLED]);
    const p = new SqsEventPublisher({ client: client(d, { maxAttempts: 3 }), queueUrl: d.queueUrl });
    const bodies = Array.from({ length: 15 }, (_, i) => JSON.stringify({ n: i }));
    const err = await p.send(bodies).catch((e: unknown) => e);
    expect(err).toMatchObject({ sent: 10, failed: 5 });
    expect((err as Error).message).toBe(
      "5 of 15 events not sent: SendMessageBatch: ThrottlingException: Rate exceeded (after 3 attempts)",
    );
    expect(d.requests.map((r) => r.body.Entries?.length)).toEqual([10, 10, 5, 5, 5]);
  });

  it("rejects with the run's abort reason once the run's signal aborts, however long the backoff", async () => {
    const ac = new AbortController();
    const reason = new Error("timed out after 5000 ms");
    const d = await sqsDouble([SQS_THROTTLED], () => ac.abort(reason));
    const p = new SqsEventPublisher({ client: client(d, { retryDelayMs: 60_000 }), queueUrl: d.queueUrl });
    await expect(p.send(['{"n":0}'], ac.signal)).rejects.toBe(reason);
    expect(d.requests).toHaveLength(1);
  });
});

describe("the clients of this package", () => {
  it("ec2ClientFactory builds EC2 clients with the SDK's standard retry strategy, 5 attempts unless told", async () => {
    const creds = {
      accessKeyId: "ASIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/EXAMPLEKEY",
      sessionToken: "token",
      expiration: new Date(Date.now() + 3_600_000),
    };
    for (const [factory, attempts] of [
      [ec2ClientFactory(), 5],
      [ec2ClientFactory({ retry: { maxAttempts: 2 } }), 2],
    ] as const) {
      const ec2 = factory("eu-west-1", creds);
      const strategy = await ec2.config.retryStrategy();
      expect(strategy).toBeInstanceOf(StandardRetryStrategy);
      expect(await (strategy as StandardRetryStrategy).maxAttempts()).toBe(attempts);
      expect(await ec2.config.maxAttempts()).toBe(attempts);
      ec2.destroy();
    }
  });
});
