// The Worker's side of recording: the OUTCOMES Cloudflare Queue. The search app's recorder and its
// events route send to it (the producer); the same Worker's `queue` handler is its consumer, which
// checks every message with the records' zod schemas and writes them to ClickHouse. A store failure
// retries the messages (after max_retries they go to the dead-letter queue): nothing is lost.
import {
  ClickHouseOutcomeStore,
  httpClickHouse,
  type OutcomeEvent,
  OutcomeEventSchema,
  type OutcomeStore,
  RETENTION_ENV,
  retentionDaysFromEnv,
  type ServedSearch,
  ServedSearchSchema,
} from "@relevance/outcomes";
import type { Logger } from "@relevance/settings";
import * as z from "zod";

/** The producer binding, as workerd gives it. */
export interface QueueBinding {
  send(body: unknown, options?: { contentType?: "json" }): Promise<void>;
  sendBatch(messages: Iterable<{ body: unknown; contentType?: "json" }>): Promise<void>;
}

/** One message of a consumer batch, as workerd gives it. */
export interface QueueMessage {
  readonly id: string;
  readonly body: unknown;
  readonly attempts: number;
  ack(): void;
  retry(options?: { delaySeconds?: number }): void;
}
export interface MessageBatch {
  readonly queue: string;
  readonly messages: readonly QueueMessage[];
}

/**
 * One message per row: a served search (`{kind: "search", row}`) or an outcome event
 * (`{kind: "event", row}`), so one bad row never holds up others and a retry resends only what failed.
 */
export const OutcomeMessageSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("search"), row: ServedSearchSchema }),
  z.strictObject({ kind: z.literal("event"), row: OutcomeEventSchema }),
]);
export type OutcomeMessage = z.infer<typeof OutcomeMessageSchema>;

/** Cloudflare Queues: at most 100 messages and 256 KB per sendBatch, 128 KB per message. */
export const QUEUE_MAX_BATCH_MESSAGES = 100;
export const QUEUE_MAX_BATCH_BYTES = 256 * 1024;
export const QUEUE_MAX_MESSAGE_BYTES = 128 * 1024;
/** Room left per message for the queue's own framing. */
const MESSAGE_OVERHEAD_BYTES = 100;

const encoder = new TextEncoder();

/**
 * Splits messages into sendBatch calls within Queues' limits. A served-search row is at most about
 * 53 KB (100 ids of 511 characters, a 512-character query), under the 128 KB message limit; a
 * message over it anyway is left out and reported, never sent to fail the whole batch.
 */
export function queueBatches(messages: readonly OutcomeMessage[]): {
  batches: { body: OutcomeMessage; contentType: "json" }[][];
  oversized: number;
} {
  const batches: { body: OutcomeMessage; contentType: "json" }[][] = [];
  let current: { body: OutcomeMessage; contentType: "json" }[] = [];
  let bytes = 0;
  let oversized = 0;
  for (const body of messages) {
    const size = encoder.encode(JSON.stringify(body)).length + MESSAGE_OVERHEAD_BYTES;
    if (size > QUEUE_MAX_MESSAGE_BYTES) {
      oversized++;
      continue;
    }
    if (current.length >= QUEUE_MAX_BATCH_MESSAGES || bytes + size > QUEUE_MAX_BATCH_BYTES) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push({ body, contentType: "json" });
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return { batches, oversized };
}

/** Sends messages to the queue; resolves once the queue has accepted every batch. */
export async function sendOutcomes(
  queue: QueueBinding,
  messages: readonly OutcomeMessage[],
  log: Logger,
): Promise<void> {
  const { batches, oversized } = queueBatches(messages);
  if (oversized > 0) log.error("outcome messages over the queue's message size were not sent", { oversized });
  for (const batch of batches) await queue.sendBatch(batch);
}

export const searchMessages = (rows: readonly ServedSearch[]): OutcomeMessage[] =>
  rows.map((row) => ({ kind: "search", row }));
export const eventMessages = (rows: readonly OutcomeEvent[]): OutcomeMessage[] =>
  rows.map((row) => ({ kind: "event", row }));

export interface ConsumeResult {
  searches: number;
  events: number;
  /** Messages that were not outcome messages: acked (a retry could not fix them), counted, logged. */
  invalid: number;
  /** Messages retried because the store failed. */
  retried: number;
}

/**
 * The consumer: each message checked, the valid rows written in two calls (searches, events); a bad
 * message is acked and logged (never its body: it may hold what a shopper typed); a store failure
 * retries every valid message of the batch.
 */
export async function consumeOutcomes(
  batch: MessageBatch,
  store: OutcomeStore,
  log: Logger,
): Promise<ConsumeResult> {
  const searches: { message: QueueMessage; row: ServedSearch }[] = [];
  const events: { message: QueueMessage; row: OutcomeEvent }[] = [];
  let invalid = 0;
  for (const message of batch.messages) {
    const parsed = OutcomeMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      invalid++;
      log.error("an outcome message is not valid; dropped", {
        queue: batch.queue,
        id: message.id,
        problem: parsed.error.issues
          .slice(0, 5)
          .map((i) => `${i.path.join(".")}: ${i.message}`)
          .join("; "),
      });
      message.ack();
      continue;
    }
    if (parsed.data.kind === "search") searches.push({ message, row: parsed.data.row });
    else events.push({ message, row: parsed.data.row });
  }
  const valid = [...searches, ...events];
  try {
    if (searches.length > 0) await store.recordSearches(searches.map((s) => s.row));
    if (events.length > 0) await store.recordEvents(events.map((e) => e.row));
  } catch (error) {
    log.error("outcomes could not be stored; the batch is retried", {
      queue: batch.queue,
      messages: valid.length,
      problem: error instanceof Error ? error.message : String(error),
    });
    for (const { message } of valid) message.retry();
    return { searches: 0, events: 0, invalid, retried: valid.length };
  }
  for (const { message } of valid) message.ack();
  return { searches: searches.length, events: events.length, invalid, retried: 0 };
}

/** The consumer's store: ClickHouse over HTTP (fetch only), tables created on first use. */
export function clickHouseStoreOf(env: Record<string, unknown>): OutcomeStore {
  return new ClickHouseOutcomeStore(
    httpClickHouse({
      url: String(env.CLICKHOUSE_URL),
      user: String(env.CLICKHOUSE_USER),
      password: String(env.CLICKHOUSE_PASSWORD),
      timeoutMs: 10_000,
    }),
    { retentionDays: retentionDaysFromEnv({ [RETENTION_ENV]: env[RETENTION_ENV] as string | undefined }) },
  );
}
