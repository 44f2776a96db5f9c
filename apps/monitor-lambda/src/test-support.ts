/** Lambda event shapes as AWS documents them, for the handler tests. */
import type { SQSEvent, SQSRecord } from "aws-lambda";

export function sqsRecord(messageId: string, body: string, receiveCount = 1): SQSRecord {
  return {
    messageId,
    receiptHandle: `receipt-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: "1738324800000",
      SenderId: "AIDAEXAMPLE",
      ApproximateFirstReceiveTimestamp: "1738324800100",
    },
    messageAttributes: {},
    md5OfBody: "0",
    eventSource: "aws:sqs",
    eventSourceARN: "arn:aws:sqs:eu-west-1:111111111111:svcmon-events",
    awsRegion: "eu-west-1",
  };
}

export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

/** A Lambda function URL request (payload format 2.0). */
export function functionUrlEvent(
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string; query?: string } = {},
) {
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: path,
    rawQueryString: opts.query ?? "",
    headers: { host: "abcdefgh.lambda-url.eu-west-1.on.aws", ...opts.headers },
    requestContext: {
      accountId: "anonymous",
      apiId: "abcdefgh",
      domainName: "abcdefgh.lambda-url.eu-west-1.on.aws",
      domainPrefix: "abcdefgh",
      http: { method, path, protocol: "HTTP/1.1", sourceIp: "203.0.113.7", userAgent: "vitest" },
      requestId: "req-1",
      routeKey: "$default",
      stage: "$default",
      time: "31/Jan/2025:12:00:00 +0000",
      timeEpoch: 1738324800000,
    },
    body: opts.body,
    isBase64Encoded: false,
  };
}

/** A logger that keeps its lines, for asserting on what a handler reported. */
export function memoryLogger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, ...(fields === undefined ? {} : { fields }) });
  };
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}
