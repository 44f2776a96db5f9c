/**
 * The queue-health port (§6 "Dead-letter queue non-empty"): what the
 * monitor reads about each message queue, the status in words derived from it, and helpers that make a
 * source safe to call from a request (bounded in time, never rejecting). Adapters: SQS (`sqs.ts`) and
 * the embedded SQLite queue (`sqlite-queue.ts`); both run `queue-health.contract.ts`.
 */
import { type QueueHealth, type QueueHealthSource, settleWithin } from "@monitor/core";

/** The status in words: `unreadable` wins (the numbers are unknown), then `dead_letters`, else `ok`. */
export type QueueStatus = "ok" | "dead_letters" | "unreadable";

export function queueStatus(q: QueueHealth): QueueStatus {
  if (q.error !== null) return "unreadable";
  if (q.dead_letter_depth !== null && q.dead_letter_depth > 0) return "dead_letters";
  return "ok";
}

/** One entry of the status body's `queues` (docs/monitor-api.md "Queues"). */
export interface QueueStatusJson {
  name: string;
  depth: number | null;
  in_flight: number | null;
  dead_letter_queue: string | null;
  dead_letter_depth: number | null;
  status: QueueStatus;
  error: string | null;
  source: string;
  read_at: string;
}

export function queueStatusJson(q: QueueHealth): QueueStatusJson {
  return {
    name: q.name,
    depth: q.depth,
    in_flight: q.in_flight,
    dead_letter_queue: q.dead_letter_queue,
    dead_letter_depth: q.dead_letter_depth,
    status: queueStatus(q),
    error: q.error,
    source: q.source,
    read_at: new Date(q.read_at).toISOString(),
  };
}

/** An entry for a queue that could not be read at all. */
export function unreadableQueue(name: string, source: string, readAt: number, error: string): QueueHealth {
  return {
    name,
    source,
    read_at: readAt,
    depth: null,
    in_flight: null,
    dead_letter_queue: null,
    dead_letter_depth: null,
    error,
  };
}

/** Error text for an entry: `Name: message`, or the abort reason's message. */
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const name = err.name && err.name !== "Error" ? `${err.name}: ` : "";
    return `${name}${err.message}`.trim() || err.name || "unknown error";
  }
  return String(err);
}

/** Several sources as one: entries in the order of `sources`, read concurrently. */
export function combineQueueHealth(sources: readonly QueueHealthSource[]): QueueHealthSource {
  return {
    queues: sources.flatMap((s) => s.queues),
    async read(signal) {
      const parts = await Promise.all(sources.map((s) => s.read(signal)));
      return parts.flat();
    },
  };
}

export const DEFAULT_QUEUE_READ_TIMEOUT_MS = 1500;

export interface QueueHealthReaderOptions {
  /** Every read is aborted after this long. Default 1500 ms (below the status route's 2 s). */
  timeoutMs?: number;
  /** Epoch ms, for the `read_at` of entries made here. */
  now?: () => number;
  /** The name written as `source` on entries made here. Default `queue-health`. */
  source?: string;
}

/**
 * What the monitor app and alert engine take (`queues?: () => Promise<QueueHealth[]>`): a read of
 * `source` that never takes longer than `timeoutMs` and never rejects. When the source does not answer
 * in time, or fails as a whole, each of its queues is reported unreadable with the reason.
 */
export function queueHealthReader(
  source: QueueHealthSource,
  opts: QueueHealthReaderOptions = {},
): () => Promise<QueueHealth[]> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_QUEUE_READ_TIMEOUT_MS;
  const now = opts.now ?? Date.now;
  const sourceName = opts.source ?? "queue-health";
  return async () => {
    const r = await settleWithin(timeoutMs, (signal) => source.read(signal));
    if (r.status === "ok") return r.value;
    const why = r.status === "timeout" ? `timeout: no answer within ${timeoutMs} ms` : errorText(r.error);
    return source.queues.map((q) => unreadableQueue(q, sourceName, now(), why));
  };
}

/** The status body's `queues` (and `queues_error` when the read as a whole failed). */
export interface QueuesStatus {
  queues: QueueStatusJson[];
  queues_error?: string;
}

/**
 * The status body's part for queues. Never rejects and never waits longer than `timeoutMs`: the status
 * answers even when the queues do not (a read that throws or hangs gives `queues_error`; a queue the
 * source could not read is an `unreadable` entry). No reader: `queues: []`.
 */
export async function queuesForStatus(
  read: (() => Promise<QueueHealth[]>) | undefined,
  timeoutMs: number,
): Promise<QueuesStatus> {
  if (read === undefined) return { queues: [] };
  const r = await settleWithin(timeoutMs, () => read());
  if (r.status === "ok") return { queues: r.value.map(queueStatusJson) };
  if (r.status === "timeout")
    return { queues: [], queues_error: `queue health did not answer within ${timeoutMs} ms` };
  return { queues: [], queues_error: `queue health could not be read: ${errorText(r.error)}` };
}
