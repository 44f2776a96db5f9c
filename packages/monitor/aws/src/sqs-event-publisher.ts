/**
 * The collectors' EventQueue (../queues/event-queue.ts) over SQS SendMessageBatch: batches of at most 10 entries and 256 KiB.
 * Whole calls are retried by the client (throttling/5xx/timeouts, aws-retry.ts); entries SQS failed
 * on its side (SenderFault false) are sent again, paced and bounded by the same retry strategy;
 * entries it refused (SenderFault true) are dropped.
 */

import { SendMessageBatchCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { errorText } from "@monitor/core";
import { StandardRetryStrategy } from "@smithy/core/retry";
import { raceAbort } from "./abort.ts";
import { attemptsOf, isRetryableAwsError } from "./aws-retry.ts";
import { PartialSendError } from "./errors.ts";
import type { EventQueue } from "./events.ts";

export const SQS_MAX_BATCH_ENTRIES = 10;
/** SQS's limit for one message and for the sum of a batch's bodies. */
export const SQS_MAX_BATCH_BYTES = 262_144;

export interface SqsEventPublisherOptions {
  /**
   * Built with `awsRetryConfig()`: its retry strategy retries whole calls and bounds the re-sends of
   * entries SQS failed on its side (attempts per batch, the same backoff).
   */
  client: SQSClient;
  queueUrl: string;
  /** Default SQS_MAX_BATCH_BYTES. */
  maxBatchBytes?: number;
}

interface Entry {
  id: string;
  body: string;
  bytes: number;
}

export class SqsEventPublisher implements EventQueue {
  readonly #o: SqsEventPublisherOptions;
  readonly #maxBytes: number;

  constructor(opts: SqsEventPublisherOptions) {
    this.#o = opts;
    this.#maxBytes = opts.maxBatchBytes ?? SQS_MAX_BATCH_BYTES;
  }

  /**
   * Resolves with the number of messages sent (all of them); when some could not be sent, rejects
   * with PartialSendError carrying how many were and were not.
   */
  async send(messages: readonly string[], signal?: AbortSignal): Promise<number> {
    const failures: string[] = [];
    let sent = 0;
    let failed = 0;
    const fail = (n: number, why: string) => {
      failed += n;
      if (!failures.includes(why) && failures.length < 3) failures.push(why);
    };
    const batches: Entry[][] = [];
    let current: Entry[] = [];
    let currentBytes = 0;
    messages.forEach((body, i) => {
      const bytes = Buffer.byteLength(body, "utf8");
      if (bytes > this.#maxBytes) {
        fail(1, `message ${i} is ${bytes} bytes, over the ${this.#maxBytes}-byte limit`);
        return;
      }
      if (current.length === SQS_MAX_BATCH_ENTRIES || currentBytes + bytes > this.#maxBytes) {
        batches.push(current);
        current = [];
        currentBytes = 0;
      }
      current.push({ id: String(i), body, bytes });
      currentBytes += bytes;
    });
    if (current.length > 0) batches.push(current);

    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b] as Entry[];
      const outcome = await this.#sendBatch(batch, signal);
      sent += outcome.sent;
      for (const f of outcome.failures) fail(f.count, f.why);
      if (outcome.fatal !== null) {
        // The queue itself refuses (missing, no permission): the other batches would fail the same.
        const rest = batches.slice(b + 1).reduce((n, x) => n + x.length, 0);
        if (rest > 0) fail(rest, outcome.fatal);
        break;
      }
    }
    if (failed > 0) throw new PartialSendError(sent, failed, failures.join("; "));
    return sent;
  }

  /** The client's own retry strategy (a standard one with its attempts when it has an older kind). */
  async #retryStrategy(): Promise<StandardRetryStrategy> {
    const config = this.#o.client.config;
    const strategy = await config.retryStrategy();
    if ("refreshRetryTokenForRetry" in strategy) return strategy as StandardRetryStrategy;
    return new StandardRetryStrategy(await config.maxAttempts());
  }

  async #sendBatch(
    batch: Entry[],
    signal: AbortSignal | undefined,
  ): Promise<{ sent: number; failures: { count: number; why: string }[]; fatal: string | null }> {
    const strategy = await this.#retryStrategy();
    let token = await strategy.acquireInitialRetryToken("sqs-batch-entries");
    const failures: { count: number; why: string }[] = [];
    let pending = batch;
    let sent = 0;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw signal.reason;
      const retryable: Entry[] = [];
      let lastWhy = "";
      try {
        const out = await raceAbort(
          this.#o.client.send(
            new SendMessageBatchCommand({
              QueueUrl: this.#o.queueUrl,
              Entries: pending.map((e) => ({ Id: e.id, MessageBody: e.body })),
            }),
            { abortSignal: signal },
          ),
          signal,
        );
        const ok = new Set((out.Successful ?? []).map((s) => s.Id));
        sent += pending.filter((e) => ok.has(e.id)).length;
        const failedById = new Map((out.Failed ?? []).map((f) => [f.Id, f]));
        for (const e of pending) {
          if (ok.has(e.id)) continue;
          const f = failedById.get(e.id);
          const why = f ? `SendMessageBatch entry failed: ${f.Code ?? "?"}: ${f.Message ?? ""}`.trim() : "";
          if (f?.SenderFault) failures.push({ count: 1, why });
          else {
            // Server-side entry failures, and entries SQS did not mention, are worth another try.
            retryable.push(e);
            lastWhy = why || "SendMessageBatch: entry neither successful nor failed";
          }
        }
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        const why = `SendMessageBatch: ${errorText(err)}`;
        if (!isRetryableAwsError(err)) {
          failures.push({ count: pending.length, why });
          return { sent, failures, fatal: why };
        }
        // Throttled or 5xx until the client's attempts ran out: this batch is lost, the next may pass.
        const n = attemptsOf(err);
        failures.push({ count: pending.length, why: `${why} (after ${n} attempt${n === 1 ? "" : "s"})` });
        return { sent, failures, fatal: null };
      }
      pending = retryable;
      if (pending.length === 0) {
        strategy.recordSuccess(token);
        return { sent, failures, fatal: null };
      }
      try {
        // Waits the strategy's backoff; refuses when the attempts (or its retry quota) ran out.
        token = await raceAbort(
          strategy.refreshRetryTokenForRetry(token, { errorType: "TRANSIENT" }),
          signal,
        );
      } catch {
        if (signal?.aborted) throw signal.reason;
        failures.push({ count: pending.length, why: `${lastWhy} (after ${attempt} attempts)` });
        return { sent, failures, fatal: null };
      }
    }
  }
}
