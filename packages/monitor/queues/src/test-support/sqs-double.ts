/**
 * A local double of SQS for tests: a node:http server speaking the protocol AWS SDK v3's SQS client
 * uses (AwsJson1_0 with awsQueryCompatible: `POST /`, `content-type: application/x-amz-json-1.0`,
 * `x-amz-target: AmazonSQS.<Operation>`, JSON bodies; errors as `{"__type", "message"}` plus the
 * `x-amzn-query-error: <Code>;<Sender|Receiver>` header). It answers GetQueueAttributes and GetQueueUrl
 * from queues the test declares, keeps the bodies of SendMessageBatch (`sentBodies`), and can be told
 * to deny access to a queue or never answer for it.
 * It does not check signatures.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const DOUBLE_REGION = "us-east-1";
export const DOUBLE_ACCOUNT = "123456789012";

export interface DoubleQueue {
  name: string;
  account?: string;
  visible: number;
  inFlight: number;
  /** Written as the queue's RedrivePolicy attribute (an object is JSON-encoded, as SQS returns it). */
  redrivePolicy?: string | { deadLetterTargetArn: string; maxReceiveCount: number | string };
}

export type DoubleFault = "access_denied" | "hang";

export interface RecordedRequest {
  target: string;
  contentType: string;
  queryMode: string | undefined;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

class DoubleError extends Error {
  readonly status: number;
  readonly type: string;
  readonly queryError: string;
  constructor(status: number, type: string, queryError: string, message: string) {
    super(message);
    this.status = status;
    this.type = type;
    this.queryError = queryError;
  }
}

const nonExistent = () =>
  new DoubleError(
    400,
    "com.amazonaws.sqs#QueueDoesNotExist",
    "AWS.SimpleQueueService.NonExistentQueue;Sender",
    "The specified queue does not exist.",
  );

export class SqsDouble {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #queues = new Map<
    string,
    Required<Omit<DoubleQueue, "redrivePolicy">> & Pick<DoubleQueue, "redrivePolicy">
  >();
  readonly #faults = new Map<string, DoubleFault>();
  readonly #bodies = new Map<string, string[]>();
  readonly #hanging = new Set<ServerResponse>();
  #base = "";

  private constructor() {
    this.#server = createServer((req, res) => {
      void this.#handle(req, res);
    });
  }

  static async start(): Promise<SqsDouble> {
    const d = new SqsDouble();
    await new Promise<void>((resolve) => d.#server.listen(0, "127.0.0.1", resolve));
    d.#base = `http://127.0.0.1:${(d.#server.address() as AddressInfo).port}`;
    return d;
  }

  /** The endpoint to give the SQS client. */
  get endpoint(): string {
    return this.#base;
  }

  queueUrl(name: string, account = DOUBLE_ACCOUNT): string {
    return `${this.#base}/${account}/${name}`;
  }

  arn(name: string, account = DOUBLE_ACCOUNT): string {
    return `arn:aws:sqs:${DOUBLE_REGION}:${account}:${name}`;
  }

  /** Declares (or replaces) a queue; returns its URL. */
  addQueue(q: DoubleQueue): string {
    const account = q.account ?? DOUBLE_ACCOUNT;
    this.#queues.set(`${account}/${q.name}`, { ...q, account });
    return this.queueUrl(q.name, account);
  }

  /** The bodies sent to the queue (SendMessageBatch), in the order it accepted them. */
  sentBodies(name: string, account = DOUBLE_ACCOUNT): string[] {
    return [...(this.#bodies.get(`${account}/${name}`) ?? [])];
  }

  removeQueue(name: string, account = DOUBLE_ACCOUNT): void {
    this.#queues.delete(`${account}/${name}`);
  }

  /** Every request about this queue (by name, any account) fails with the fault; null clears it. */
  setFault(name: string, fault: DoubleFault | null): void {
    if (fault === null) this.#faults.delete(name);
    else this.#faults.set(name, fault);
  }

  async close(): Promise<void> {
    for (const res of this.#hanging) res.destroy();
    this.#hanging.clear();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const target = String(req.headers["x-amz-target"] ?? "");
    let body: Record<string, unknown> = {};
    try {
      body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      return this.#error(
        res,
        new DoubleError(
          400,
          "com.amazon.coral.service#SerializationException",
          "SerializationException;Sender",
          "Invalid JSON",
        ),
      );
    }
    this.requests.push({
      target,
      contentType: String(req.headers["content-type"] ?? ""),
      queryMode: req.headers["x-amzn-query-mode"] as string | undefined,
      authorization: req.headers.authorization,
      body,
    });
    if (req.method !== "POST" || !target.startsWith("AmazonSQS.")) {
      return this.#error(
        res,
        new DoubleError(
          400,
          "com.amazon.coral.service#UnknownOperationException",
          "UnknownOperationException;Sender",
          `Unknown operation ${target}`,
        ),
      );
    }
    try {
      const op = target.slice("AmazonSQS.".length);
      const out =
        op === "GetQueueAttributes"
          ? this.#getQueueAttributes(body, res)
          : op === "GetQueueUrl"
            ? this.#getQueueUrl(body, res)
            : op === "SendMessageBatch"
              ? this.#sendMessageBatch(body, res)
              : (() => {
                  throw new DoubleError(
                    400,
                    "com.amazon.coral.service#UnknownOperationException",
                    "UnknownOperationException;Sender",
                    `The double does not implement ${op}`,
                  );
                })();
      if (out === "hang") return;
      res.writeHead(200, { "content-type": "application/x-amz-json-1.0", "x-amzn-requestid": "double" });
      res.end(JSON.stringify(out));
    } catch (err) {
      if (err instanceof DoubleError) return this.#error(res, err);
      throw err;
    }
  }

  #error(res: ServerResponse, err: DoubleError): void {
    res.writeHead(err.status, {
      "content-type": "application/x-amz-json-1.0",
      "x-amzn-requestid": "double",
      "x-amzn-query-error": err.queryError,
    });
    res.end(JSON.stringify({ __type: err.type, message: err.message }));
  }

  /** Applies a fault of the queue `name`: "hang" keeps the response open until close(). */
  #fault(name: string, action: string, res: ServerResponse): "hang" | null {
    const f = this.#faults.get(name);
    if (f === "hang") {
      this.#hanging.add(res);
      return "hang";
    }
    if (f === "access_denied") {
      throw new DoubleError(
        403,
        "com.amazon.coral.service#AccessDeniedException",
        "AccessDenied;Sender",
        `User: arn:aws:sts::${DOUBLE_ACCOUNT}:assumed-role/svcmon-monitor/x is not authorized to perform: sqs:${action} on resource: arn:aws:sqs:${DOUBLE_REGION}:${DOUBLE_ACCOUNT}:${name} because no identity-based policy allows the sqs:${action} action`,
      );
    }
    return null;
  }

  #getQueueAttributes(body: Record<string, unknown>, res: ServerResponse): unknown {
    const url = body.QueueUrl;
    if (typeof url !== "string") {
      throw new DoubleError(
        400,
        "com.amazonaws.sqs#InvalidAddress",
        "InvalidAddress;Sender",
        "QueueUrl is required",
      );
    }
    const [account, name] = new URL(url).pathname.split("/").filter((s) => s !== "");
    if (this.#fault(name ?? "", "getqueueattributes", res) === "hang") return "hang";
    const q = this.#queues.get(`${account}/${name}`);
    if (q === undefined) throw nonExistent();
    const all: Record<string, string> = {
      ApproximateNumberOfMessages: String(q.visible),
      ApproximateNumberOfMessagesNotVisible: String(q.inFlight),
      ApproximateNumberOfMessagesDelayed: "0",
      QueueArn: this.arn(q.name, q.account),
      VisibilityTimeout: "30",
    };
    if (q.redrivePolicy !== undefined) {
      all.RedrivePolicy =
        typeof q.redrivePolicy === "string" ? q.redrivePolicy : JSON.stringify(q.redrivePolicy);
    }
    const wanted = Array.isArray(body.AttributeNames) ? (body.AttributeNames as string[]) : [];
    const attrs = wanted.includes("All")
      ? all
      : Object.fromEntries(Object.entries(all).filter(([k]) => wanted.includes(k)));
    return Object.keys(attrs).length === 0 ? {} : { Attributes: attrs };
  }

  #getQueueUrl(body: Record<string, unknown>, res: ServerResponse): unknown {
    const name = body.QueueName;
    if (typeof name !== "string") {
      throw new DoubleError(
        400,
        "com.amazonaws.sqs#InvalidParameterValue",
        "InvalidParameterValue;Sender",
        "QueueName is required",
      );
    }
    if (this.#fault(name, "getqueueurl", res) === "hang") return "hang";
    const account =
      typeof body.QueueOwnerAWSAccountId === "string" ? body.QueueOwnerAWSAccountId : DOUBLE_ACCOUNT;
    const q = this.#queues.get(`${account}/${name}`);
    if (q === undefined) throw nonExistent();
    return { QueueUrl: this.queueUrl(q.name, q.account) };
  }

  #sendMessageBatch(body: Record<string, unknown>, res: ServerResponse): unknown {
    const url = body.QueueUrl;
    if (typeof url !== "string") {
      throw new DoubleError(
        400,
        "com.amazonaws.sqs#InvalidAddress",
        "InvalidAddress;Sender",
        "QueueUrl is required",
      );
    }
    const [account, name] = new URL(url).pathname.split("/").filter((s) => s !== "");
    if (this.#fault(name ?? "", "sendmessage", res) === "hang") return "hang";
    const key = `${account}/${name}`;
    const q = this.#queues.get(key);
    if (q === undefined) throw nonExistent();
    const entries = Array.isArray(body.Entries)
      ? (body.Entries as { Id: string; MessageBody: string }[])
      : [];
    const bodies = this.#bodies.get(key) ?? [];
    this.#bodies.set(key, bodies);
    const successful = entries.map((e) => {
      bodies.push(e.MessageBody);
      q.visible += 1;
      return {
        Id: e.Id,
        MessageId: randomUUID(),
        MD5OfMessageBody: createHash("md5").update(e.MessageBody, "utf8").digest("hex"),
      };
    });
    return { Successful: successful, Failed: [] };
  }
}
