/**
 * Queue health from Amazon SQS (AWS SDK v3): for each configured queue URL, GetQueueAttributes
 * (ApproximateNumberOfMessages, ApproximateNumberOfMessagesNotVisible, RedrivePolicy); the dead-letter
 * queue is found through `RedrivePolicy.deadLetterTargetArn` (ARN → name and owner account →
 * GetQueueUrl) and its depth is read the same way. Queues that are themselves dead-letter or failure
 * queues (a Lambda on-failure destination, an EventBridge target's dead-letter queue: nothing redrives
 * into them, so no RedrivePolicy finds them) are listed apart and read for their own depth, which is
 * their dead-letter depth. Any failure (AccessDenied, a queue or dead-letter queue that does not exist,
 * a timeout) becomes that queue's error entry; the other queues are still read.
 */
import { GetQueueAttributesCommand, GetQueueUrlCommand, type SQSClient } from "@aws-sdk/client-sqs";
import {
  type Issue,
  isPlainObject,
  type QueueHealth,
  type QueueHealthSource,
  type Result,
} from "@monitor/core";
import { errorText, unreadableQueue } from "./queue-health.ts";

export const SQS_SOURCE = "sqs";
/** Per queue (its attributes, then its dead-letter queue's URL and attributes). */
export const DEFAULT_SQS_TIMEOUT_MS = 1000;
/** The environment variable listing the queue URLs of a deployment. */
export const SQS_QUEUE_URLS_ENV = "MONITOR_SQS_QUEUE_URLS";
/** The environment variable listing the dead-letter (failure) queues a deployment watches directly. */
export const SQS_DEAD_LETTER_QUEUE_URLS_ENV = "MONITOR_SQS_DEAD_LETTER_QUEUE_URLS";

export interface SqsQueueHealthOptions {
  client: Pick<SQSClient, "send">;
  /** Queues read with their dead-letter queue (found through `RedrivePolicy`). */
  queueUrls: readonly string[];
  /**
   * Queues that are dead-letter or failure queues themselves. Each is an entry whose
   * `dead_letter_queue` is its own name and whose `dead_letter_depth` is what it holds (visible + in
   * flight), so it raises the dead-letter alert. Both lists are validated with `validateSqsQueueLists`.
   */
  deadLetterQueueUrls?: readonly string[];
  timeoutMs?: number;
  now?: () => number;
}

export interface SqsQueueLists {
  queueUrls: string[];
  deadLetterQueueUrls: string[];
}

export interface SqsArn {
  partition: string;
  region: string;
  account: string;
  name: string;
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$|^[A-Za-z0-9_-]{1,75}\.fifo$/;
const ACCOUNT = /^\d{12}$/;

/** `arn:aws:sqs:us-east-1:123456789012:events-dlq` → its parts; null when it is not an SQS queue ARN. */
export function parseSqsArn(arn: string): SqsArn | null {
  const parts = arn.split(":");
  if (parts.length !== 6) return null;
  const [prefix, partition, service, region, account, name] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (prefix !== "arn" || service !== "sqs" || partition === "" || region === "") return null;
  if (!ACCOUNT.test(account) || !QUEUE_NAME.test(name)) return null;
  return { partition, region, account, name };
}

/** The queue's name: the last segment of its URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`). */
export function sqsQueueName(url: string): string {
  const segments = new URL(url).pathname.split("/").filter((s) => s !== "");
  return segments.at(-1) ?? url;
}

/** A list of queue URLs, each `http(s)://host/<12-digit account>/<queue name>`, without duplicates. */
export function validateSqsQueueUrls(input: unknown, path = ""): Result<string[]> {
  if (!Array.isArray(input))
    return { ok: false, errors: [{ path, message: "must be a list of queue URLs" }] };
  const errors: Issue[] = [];
  const seen = new Set<string>();
  input.forEach((v, i) => {
    const p = `${path}[${i}]`;
    if (typeof v !== "string") {
      errors.push({ path: p, message: "must be a queue URL (string)" });
      return;
    }
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      errors.push({ path: p, message: `is not a URL: ${JSON.stringify(v)}` });
      return;
    }
    const segments = url.pathname.split("/").filter((s) => s !== "");
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      errors.push({ path: p, message: "must be an http(s) URL" });
    } else if (
      segments.length !== 2 ||
      !ACCOUNT.test(segments[0] as string) ||
      !QUEUE_NAME.test(segments[1] as string)
    ) {
      errors.push({
        path: p,
        message: "must look like https://sqs.<region>.amazonaws.com/<12-digit account>/<queue name>",
      });
    } else if (seen.has(v)) {
      errors.push({ path: p, message: "is listed twice" });
    }
    seen.add(v);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: input as string[] };
}

/**
 * Both lists of `SqsQueueHealthOptions`, each validated with `validateSqsQueueUrls`, and no URL in
 * both: a queue is either read with its dead-letter queue or is a dead-letter queue itself.
 */
export function validateSqsQueueLists(
  queueUrls: unknown,
  deadLetterQueueUrls: unknown,
  paths: { queueUrls: string; deadLetterQueueUrls: string } = {
    queueUrls: "queueUrls",
    deadLetterQueueUrls: "deadLetterQueueUrls",
  },
): Result<SqsQueueLists> {
  const queues = validateSqsQueueUrls(queueUrls, paths.queueUrls);
  const deadLetters = validateSqsQueueUrls(deadLetterQueueUrls, paths.deadLetterQueueUrls);
  const errors = [...(queues.ok ? [] : queues.errors), ...(deadLetters.ok ? [] : deadLetters.errors)];
  if (Array.isArray(queueUrls) && Array.isArray(deadLetterQueueUrls)) {
    const faulty = new Set(errors.map((e) => e.path));
    deadLetterQueueUrls.forEach((v, i) => {
      const p = `${paths.deadLetterQueueUrls}[${i}]`;
      if (faulty.has(p) || !queueUrls.includes(v)) return;
      errors.push({
        path: p,
        message: `is also listed in ${paths.queueUrls} (list a queue with a RedrivePolicy there, a dead-letter queue here)`,
      });
    });
  }
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: { queueUrls: queueUrls as string[], deadLetterQueueUrls: deadLetterQueueUrls as string[] },
  };
}

/** A variable's entries, separated by commas or whitespace; unset or empty: none. */
function envList(env: Record<string, string | undefined>, name: string): string[] {
  return (env[name] ?? "").split(/[\s,]+/).filter((s) => s !== "");
}

/**
 * `MONITOR_SQS_QUEUE_URLS`: queue URLs separated by commas or whitespace. Unset or empty: no SQS queue
 * (an empty list). Errors name the variable and the position.
 */
export function sqsQueueUrlsFromEnv(env: Record<string, string | undefined>): Result<string[]> {
  return validateSqsQueueUrls(envList(env, SQS_QUEUE_URLS_ENV), SQS_QUEUE_URLS_ENV);
}

/**
 * `MONITOR_SQS_DEAD_LETTER_QUEUE_URLS`: URLs of dead-letter (failure) queues watched directly, in the
 * format of `MONITOR_SQS_QUEUE_URLS`. Unset or empty: none.
 */
export function sqsDeadLetterQueueUrlsFromEnv(env: Record<string, string | undefined>): Result<string[]> {
  return validateSqsQueueUrls(envList(env, SQS_DEAD_LETTER_QUEUE_URLS_ENV), SQS_DEAD_LETTER_QUEUE_URLS_ENV);
}

/**
 * Both variables, as `SqsQueueHealthOptions` takes them: errors name the variable and the position,
 * including a URL listed in both.
 */
export function sqsQueueListsFromEnv(env: Record<string, string | undefined>): Result<SqsQueueLists> {
  return validateSqsQueueLists(
    envList(env, SQS_QUEUE_URLS_ENV),
    envList(env, SQS_DEAD_LETTER_QUEUE_URLS_ENV),
    { queueUrls: SQS_QUEUE_URLS_ENV, deadLetterQueueUrls: SQS_DEAD_LETTER_QUEUE_URLS_ENV },
  );
}

function count(attrs: Record<string, string>, key: string): number {
  const raw = attrs[key];
  const n = raw === undefined ? Number.NaN : Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`${key} is missing or not a count (${JSON.stringify(raw)})`);
  return n;
}

/** `RedrivePolicy` (a JSON text) → the dead-letter queue's ARN; throws with the reason when unusable. */
export function deadLetterArn(redrivePolicy: string): SqsArn {
  let policy: unknown;
  try {
    policy = JSON.parse(redrivePolicy);
  } catch {
    throw new Error("RedrivePolicy is not valid JSON");
  }
  const target = isPlainObject(policy) ? policy.deadLetterTargetArn : undefined;
  if (typeof target !== "string") throw new Error("RedrivePolicy has no deadLetterTargetArn");
  const arn = parseSqsArn(target);
  if (arn === null) throw new Error(`RedrivePolicy.deadLetterTargetArn is not an SQS queue ARN: ${target}`);
  return arn;
}

export class SqsQueueHealth implements QueueHealthSource {
  readonly queues: readonly string[];
  readonly #client: Pick<SQSClient, "send">;
  readonly #urls: readonly string[];
  readonly #deadLetterUrls: readonly string[];
  readonly #timeoutMs: number;
  readonly #now: () => number;
  /** Dead-letter queue URL per ARN: GetQueueUrl once, again after the queue went missing. */
  readonly #dlqUrls = new Map<string, string>();

  constructor(opts: SqsQueueHealthOptions) {
    const checked = validateSqsQueueLists(opts.queueUrls, opts.deadLetterQueueUrls ?? []);
    if (!checked.ok) {
      throw new Error(`SqsQueueHealth: ${checked.errors.map((e) => `${e.path} ${e.message}`).join("; ")}`);
    }
    this.#client = opts.client;
    this.#urls = checked.value.queueUrls;
    this.#deadLetterUrls = checked.value.deadLetterQueueUrls;
    this.queues = [...this.#urls, ...this.#deadLetterUrls].map(sqsQueueName);
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_SQS_TIMEOUT_MS;
    this.#now = opts.now ?? Date.now;
  }

  read(signal?: AbortSignal): Promise<QueueHealth[]> {
    return Promise.all([
      ...this.#urls.map((url) => this.#readOne(url, signal)),
      ...this.#deadLetterUrls.map((url) => this.#readDeadLetterQueue(url, signal)),
    ]);
  }

  /** The signal of one queue's reads (the caller's, bounded by `timeoutMs`) and the error text of a failure. */
  #bound(outer?: AbortSignal): { signal: AbortSignal; why: (err: unknown) => string } {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = outer === undefined ? timeout : AbortSignal.any([outer, timeout]);
    const why = (err: unknown): string => {
      if (timeout.aborted) return `timeout: no answer within ${this.#timeoutMs} ms`;
      if (outer?.aborted) return `aborted: ${errorText(outer.reason)}`;
      return errorText(err);
    };
    return { signal, why };
  }

  async #attributes(url: string, names: string[], signal: AbortSignal): Promise<Record<string, string>> {
    const out = await this.#client.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: names as GetQueueAttributesCommand["input"]["AttributeNames"],
      }),
      { abortSignal: signal },
    );
    return (out.Attributes ?? {}) as Record<string, string>;
  }

  async #dlqUrl(arn: SqsArn, signal: AbortSignal): Promise<string> {
    const key = `${arn.partition}:${arn.region}:${arn.account}:${arn.name}`;
    const cached = this.#dlqUrls.get(key);
    if (cached !== undefined) return cached;
    const out = await this.#client.send(
      new GetQueueUrlCommand({ QueueName: arn.name, QueueOwnerAWSAccountId: arn.account }),
      { abortSignal: signal },
    );
    if (out.QueueUrl === undefined) throw new Error(`GetQueueUrl returned no QueueUrl for ${arn.name}`);
    this.#dlqUrls.set(key, out.QueueUrl);
    return out.QueueUrl;
  }

  async #readOne(url: string, outer?: AbortSignal): Promise<QueueHealth> {
    const name = sqsQueueName(url);
    const readAt = this.#now();
    const { signal, why } = this.#bound(outer);
    if (signal.aborted) return unreadableQueue(name, SQS_SOURCE, readAt, why(signal.reason));

    let depth: number;
    let inFlight: number;
    let redrive: string | undefined;
    try {
      const attrs = await this.#attributes(
        url,
        ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "RedrivePolicy"],
        signal,
      );
      depth = count(attrs, "ApproximateNumberOfMessages");
      inFlight = count(attrs, "ApproximateNumberOfMessagesNotVisible");
      redrive = attrs.RedrivePolicy;
    } catch (err) {
      return unreadableQueue(name, SQS_SOURCE, readAt, why(err));
    }
    const entry: QueueHealth = {
      name,
      source: SQS_SOURCE,
      read_at: readAt,
      depth,
      in_flight: inFlight,
      dead_letter_queue: null,
      dead_letter_depth: null,
      error: null,
    };
    if (redrive === undefined || redrive === "") return entry;

    let arn: SqsArn;
    try {
      arn = deadLetterArn(redrive);
    } catch (err) {
      return { ...entry, error: errorText(err) };
    }
    entry.dead_letter_queue = arn.name;
    const key = `${arn.partition}:${arn.region}:${arn.account}:${arn.name}`;
    try {
      const dlqUrl = await this.#dlqUrl(arn, signal);
      const attrs = await this.#attributes(
        dlqUrl,
        ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        signal,
      );
      entry.dead_letter_depth =
        count(attrs, "ApproximateNumberOfMessages") + count(attrs, "ApproximateNumberOfMessagesNotVisible");
      return entry;
    } catch (err) {
      // A cached URL may point at a queue that was deleted (or re-created elsewhere): look it up again next time.
      this.#dlqUrls.delete(key);
      return { ...entry, error: `dead-letter queue ${arn.name}: ${why(err)}` };
    }
  }

  /**
   * A dead-letter (failure) queue listed as such: everything it holds, visible or in flight, is a
   * dead letter. Unreadable: an error entry like any queue's (its dead-letter depth is unknown).
   */
  async #readDeadLetterQueue(url: string, outer?: AbortSignal): Promise<QueueHealth> {
    const name = sqsQueueName(url);
    const readAt = this.#now();
    const { signal, why } = this.#bound(outer);
    if (signal.aborted) return unreadableQueue(name, SQS_SOURCE, readAt, why(signal.reason));
    try {
      const attrs = await this.#attributes(
        url,
        ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        signal,
      );
      const depth = count(attrs, "ApproximateNumberOfMessages");
      const inFlight = count(attrs, "ApproximateNumberOfMessagesNotVisible");
      return {
        name,
        source: SQS_SOURCE,
        read_at: readAt,
        depth,
        in_flight: inFlight,
        dead_letter_queue: name,
        dead_letter_depth: depth + inFlight,
        error: null,
      };
    } catch (err) {
      return unreadableQueue(name, SQS_SOURCE, readAt, why(err));
    }
  }
}
