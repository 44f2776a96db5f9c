import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandInput,
  type SendMessageBatchCommandOutput,
  SQSClient,
  SQSServiceException,
} from "@aws-sdk/client-sqs";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, describe, expect, it } from "vitest";
import { awsRetryConfig } from "./aws-retry.ts";
import { PartialSendError } from "./errors.ts";
import { SqsEventPublisher } from "./sqs-event-publisher.ts";

const sqs = mockClient(SQSClient);
afterEach(() => sqs.reset());

const QUEUE = "https://sqs.us-east-1.amazonaws.com/999999999999/svcmon-events";
const meta = {
  httpStatusCode: 200,
  requestId: "c0b4b2b8-5d6a-5a4f-8b0e-EXAMPLE",
  attempts: 1,
  totalRetryDelay: 0,
};

/** SendMessageBatch's documented answer: every entry in Successful (with MessageId, MD5OfMessageBody). */
function allSuccessful(input: SendMessageBatchCommandInput): SendMessageBatchCommandOutput {
  return {
    $metadata: meta,
    Successful: (input.Entries ?? []).map((e) => ({
      Id: e.Id as string,
      MessageId: `5fea7756-0ea4-451a-a703-a558b933e${String(e.Id).padStart(3, "0")}`,
      MD5OfMessageBody: "fafb00f5732ab283681e124bf8747ed1",
    })),
    Failed: [],
  };
}

function publisher(maxAttempts = 3) {
  const p = new SqsEventPublisher({
    client: new SQSClient({ region: "us-east-1", ...awsRetryConfig({ maxAttempts, retryDelayMs: 1 }) }),
    queueUrl: QUEUE,
  });
  return { p };
}

const bodies = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ n: i }));

describe("SqsEventPublisher (SQS mocked with aws-sdk-client-mock)", () => {
  it("sends in SendMessageBatch calls of at most 10 entries, in order", async () => {
    sqs
      .on(SendMessageBatchCommand)
      .callsFake(async (input: SendMessageBatchCommandInput) => allSuccessful(input));
    const { p } = publisher();
    expect(await p.send(bodies(25))).toBe(25);
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Entries?.length)).toEqual([10, 10, 5]);
    expect(calls.every((c) => c.QueueUrl === QUEUE)).toBe(true);
    expect(calls.flatMap((c) => c.Entries?.map((e) => e.MessageBody))).toEqual(bodies(25));
  });

  it("also splits batches at 256 KiB of bodies, and refuses a single body over the limit", async () => {
    sqs
      .on(SendMessageBatchCommand)
      .callsFake(async (input: SendMessageBatchCommandInput) => allSuccessful(input));
    const { p } = publisher();
    const big = "x".repeat(100_000);
    const err = await p.send([big, big, big, "y".repeat(300_000)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialSendError);
    expect(err).toMatchObject({ sent: 3, failed: 1 });
    expect((err as Error).message).toContain("message 3 is 300000 bytes, over the 262144-byte limit");
    expect(sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input.Entries?.length)).toEqual([
      2, 1,
    ]);
  });

  it("retries entries SQS failed on its side (SenderFault false), not those it refused (SenderFault true)", async () => {
    sqs
      .on(SendMessageBatchCommand)
      .callsFakeOnce(async (input: SendMessageBatchCommandInput) => {
        const ok = allSuccessful(input);
        return {
          ...ok,
          Successful: ok.Successful?.filter((s) => s.Id !== "2" && s.Id !== "7"),
          Failed: [
            { Id: "2", SenderFault: false, Code: "InternalError", Message: "Internal error" },
            { Id: "7", SenderFault: true, Code: "InvalidMessageContents", Message: "Invalid characters" },
          ],
        };
      })
      .callsFake(async (input: SendMessageBatchCommandInput) => allSuccessful(input));
    const { p } = publisher();
    const err = await p.send(bodies(10)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialSendError);
    expect(err).toMatchObject({ sent: 9, failed: 1 });
    expect((err as Error).message).toBe(
      "1 of 10 events not sent: SendMessageBatch entry failed: InvalidMessageContents: Invalid characters",
    );
    const calls = sqs
      .commandCalls(SendMessageBatchCommand)
      .map((c) => c.args[0].input.Entries?.map((e) => e.Id));
    expect(calls).toEqual([["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"], ["2"]]);
  });

  it("sends entries SQS keeps failing on its side at most maxAttempts times, then names them with the attempts", async () => {
    sqs.on(SendMessageBatchCommand).callsFake(async (input: SendMessageBatchCommandInput) => {
      const ok = allSuccessful(input);
      return {
        ...ok,
        Successful: ok.Successful?.filter((s) => s.Id !== "1"),
        Failed: input.Entries?.some((e) => e.Id === "1")
          ? [{ Id: "1", SenderFault: false, Code: "InternalError", Message: "Internal error" }]
          : [],
      };
    });
    const { p } = publisher(3);
    const err = await p.send(bodies(4)).catch((e: unknown) => e);
    expect(err).toMatchObject({ sent: 3, failed: 1 });
    expect((err as Error).message).toBe(
      "1 of 4 events not sent: SendMessageBatch entry failed: InternalError: Internal error (after 3 attempts)",
    );
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(3);
  });

  it("a call the client gave up on (throttled past its attempts) loses that batch, naming the attempts; the next batches are still sent", async () => {
    const throttled = new SQSServiceException({
      name: "RequestThrottled",
      $fault: "client",
      $metadata: { ...meta, httpStatusCode: 403, attempts: 3 },
      message: "Request is throttled.",
    });
    sqs
      .on(SendMessageBatchCommand)
      .callsFakeOnce(async (input: SendMessageBatchCommandInput) => allSuccessful(input))
      .rejectsOnce(throttled)
      .callsFake(async (input: SendMessageBatchCommandInput) => allSuccessful(input));
    const { p } = publisher(3);
    const err = await p.send(bodies(25)).catch((e: unknown) => e);
    expect(err).toMatchObject({ sent: 15, failed: 10 });
    expect((err as Error).message).toBe(
      "10 of 25 events not sent: SendMessageBatch: RequestThrottled: Request is throttled. (after 3 attempts)",
    );
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(3);
  });

  it("stops at a queue that does not exist instead of failing every batch the same way", async () => {
    sqs.on(SendMessageBatchCommand).rejects(
      new SQSServiceException({
        name: "QueueDoesNotExist",
        $fault: "client",
        $metadata: { ...meta, httpStatusCode: 400 },
        message: "The specified queue does not exist.",
      }),
    );
    const { p } = publisher();
    const err = await p.send(bodies(30)).catch((e: unknown) => e);
    expect(err).toMatchObject({ sent: 0, failed: 30 });
    expect((err as Error).message).toBe(
      "30 of 30 events not sent: SendMessageBatch: QueueDoesNotExist: The specified queue does not exist.",
    );
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });

  it("sends nothing for no messages", async () => {
    const { p } = publisher();
    expect(await p.send([])).toBe(0);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
  });
});
