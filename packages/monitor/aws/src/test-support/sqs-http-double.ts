/**
 * A test double of Amazon SQS over HTTP, on 127.0.0.1 (a free port): it speaks the wire format the
 * SDK's SQSClient uses (AWS JSON 1.0: `POST /`, `X-Amz-Target: AmazonSQS.<Operation>`, JSON
 * bodies; errors as `{"__type", "message"}` with the `x-amzn-query-error` header SQS adds), so a
 * real client pointed at it with `endpoint` runs its whole middleware stack, the retries included.
 * Only SendMessageBatch is answered; each request gets the answer the test's script gives it.
 */
import { createHash } from "node:crypto";
import { startLocalHttpServer } from "./http-double-server.ts";

/** What the double does with one request. */
export type SqsDoubleAnswer =
  /** 200, every entry in Successful (with its MessageId and the MD5 of its body, which the SDK checks). */
  | { ok: true }
  /** An error response as SQS sends them. */
  | { status: number; type: string; message: string; queryError?: string }
  /** The connection is closed without an answer (the client sees a socket reset). */
  | { reset: true };

/** SQS's answer to too many requests (HTTP 400, ThrottlingException). */
export const SQS_THROTTLED: SqsDoubleAnswer = {
  status: 400,
  type: "ThrottlingException",
  message: "Rate exceeded",
  queryError: "ThrottlingException;Sender",
};
/** A 5xx of SQS's (HTTP 503, ServiceUnavailable). */
export const SQS_UNAVAILABLE: SqsDoubleAnswer = {
  status: 503,
  type: "ServiceUnavailable",
  message: "Service is unavailable. Try again later.",
  queryError: "ServiceUnavailable;Server",
};
/** A client error: the queue does not exist (HTTP 400, QueueDoesNotExist). */
export const SQS_NO_QUEUE: SqsDoubleAnswer = {
  status: 400,
  type: "QueueDoesNotExist",
  message: "The specified queue does not exist.",
  queryError: "AWS.SimpleQueueService.NonExistentQueue;Sender",
};

export interface SqsDoubleRequest {
  /** The X-Amz-Target header, e.g. "AmazonSQS.SendMessageBatch". */
  target: string;
  body: { QueueUrl?: string; Entries?: { Id: string; MessageBody: string }[] };
}

export interface SqsHttpDouble {
  /** `http://127.0.0.1:<port>`, for the client's `endpoint`. */
  endpoint: string;
  /** A queue URL on the double. */
  queueUrl: string;
  /** Every request received, in order. */
  readonly requests: SqsDoubleRequest[];
  close(): Promise<void>;
}

/**
 * Starts the double. `script(n, request)` answers the n-th request (1-based); `onAnswered(n)` runs
 * once that answer has been written.
 */
export async function startSqsHttpDouble(
  script: (n: number, request: SqsDoubleRequest) => SqsDoubleAnswer,
  onAnswered?: (n: number) => void,
): Promise<SqsHttpDouble> {
  const requests: SqsDoubleRequest[] = [];
  const server = await startLocalHttpServer((req, res, body) => {
    const text = body;
    const request: SqsDoubleRequest = {
      target: String(req.headers["x-amz-target"] ?? ""),
      body: text === "" ? {} : (JSON.parse(text) as SqsDoubleRequest["body"]),
    };
    requests.push(request);
    const n = requests.length;
    const answer =
      request.target === "AmazonSQS.SendMessageBatch"
        ? script(n, request)
        : {
            status: 400,
            type: "UnsupportedOperation",
            message: `the double does not play ${request.target}`,
          };
    if ("reset" in answer) {
      req.socket.destroy();
      onAnswered?.(n);
      return;
    }
    res.on("finish", () => onAnswered?.(n));
    const headers = {
      "content-type": "application/x-amz-json-1.0",
      "x-amzn-requestid": `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    };
    if ("ok" in answer) {
      const entries = request.body.Entries ?? [];
      res.writeHead(200, headers);
      res.end(
        JSON.stringify({
          Successful: entries.map((e) => ({
            Id: e.Id,
            MessageId: `5fea7756-0ea4-451a-a703-${String(n).padStart(6, "0")}${e.Id.padStart(6, "0")}`,
            MD5OfMessageBody: createHash("md5").update(e.MessageBody, "utf8").digest("hex"),
          })),
          Failed: [],
        }),
      );
    } else {
      res.writeHead(answer.status, {
        ...headers,
        ...(answer.queryError === undefined ? {} : { "x-amzn-query-error": answer.queryError }),
      });
      res.end(JSON.stringify({ __type: `com.amazonaws.sqs#${answer.type}`, message: answer.message }));
    }
  });
  const endpoint = server.endpoint;
  return {
    endpoint,
    queueUrl: `${endpoint}/999999999999/svcmon-events`,
    requests,
    close: () => server.close(),
  };
}
