/**
 * Drains the collectors' event queue: receives a batch, checks each message (`parseIngestMessage`:
 * a resource event, or with `handleRun` a `collector_run` record; every time at most
 * `maxClockSkewMs` ahead of the clock), hands each valid one to its handler and acknowledges it once
 * the handler resolved. A message that is malformed, dated too far ahead, or that the handler
 * rejects, is not acknowledged: it is logged with the reason, comes back after the visibility timeout
 * and, after `maxReceives` receives, the queue moves it to its dead-letter queue.
 */
import {
  type Clock,
  type ConsumableQueue,
  DEFAULT_MAX_CLOCK_SKEW_MS,
  type NewRunRecord,
  parseIngestMessage,
  type ReceivedMessage,
  type ResourceEvent,
  type RunStartRow,
  systemClock,
} from "@monitor/core";

export type IngestLog = (
  level: "info" | "warn" | "error",
  message: string,
  fields?: Record<string, unknown>,
) => void;

export interface IngestConsumerOptions {
  queue: ConsumableQueue;
  /** Stores one event; throwing (or rejecting) leaves the message on the queue. */
  handle: (event: ResourceEvent) => Promise<void>;
  /**
   * Stores the resource events of one receive together (one write instead of one per event). When it
   * throws, each of them is handed to `handle` alone, so an event the store refuses is left for retry
   * alone and the others are acknowledged. Absent: `handle`, one event at a time.
   */
  handleEvents?: (events: ResourceEvent[]) => Promise<void>;
  /**
   * Stores one run record of a `collector_run` message (and registers its collector if it is new:
   * `registerFirstRuns`). Absent: such a message is refused like any message that is not a resource event.
   */
  handleRun?: (run: NewRunRecord) => Promise<void>;
  /**
   * Stores one run start of a `collector_run_start` message (POST /api/system/runs/start's fields).
   * Absent: such a message is refused (left for retry, then the dead-letter queue).
   */
  handleRunStart?: (start: RunStartRow) => Promise<void>;
  /** How far ahead of the clock `observed_at`, `started_at` or `completed_at` may be. Default 15 min. */
  maxClockSkewMs?: number;
  /** Messages per receive. Default 10. */
  batchSize?: number;
  /** How long a received message stays hidden before it is retried. Default 30 s. */
  visibilityTimeoutMs?: number;
  /** Pause between polls of an empty queue (`start()`). Default 1 s. */
  pollIntervalMs?: number;
  clock?: Clock;
  log?: IngestLog;
}

export interface IngestTotals {
  received: number;
  /** Handled and acknowledged. */
  acked: number;
  /** Malformed or refused by the handler; left for a retry (and, in the end, the dead-letter queue). */
  rejected: number;
}

/** A message's body as `parseIngestMessage` checks it: its content, or every problem named. */
type Checked = ReturnType<typeof parseIngestMessage>;

const zero = (): IngestTotals => ({ received: 0, acked: 0, rejected: 0 });

function add(a: IngestTotals, b: IngestTotals): IngestTotals {
  return { received: a.received + b.received, acked: a.acked + b.acked, rejected: a.rejected + b.rejected };
}

export class IngestConsumer {
  readonly totals: IngestTotals = zero();
  readonly #o: Required<
    Omit<IngestConsumerOptions, "log" | "handleRun" | "handleRunStart" | "handleEvents">
  > & {
    log: IngestLog;
    handleEvents?: IngestConsumerOptions["handleEvents"];
    handleRun?: IngestConsumerOptions["handleRun"];
    handleRunStart?: IngestConsumerOptions["handleRunStart"];
  };
  #timer: unknown = null;
  #running: Promise<IngestTotals> | null = null;
  #stopped = true;

  constructor(opts: IngestConsumerOptions) {
    this.#o = {
      batchSize: 10,
      visibilityTimeoutMs: 30_000,
      pollIntervalMs: 1000,
      maxClockSkewMs: DEFAULT_MAX_CLOCK_SKEW_MS,
      clock: systemClock,
      log: () => {},
      ...opts,
    };
  }

  /** One receive and its messages. */
  async drainOnce(): Promise<IngestTotals> {
    const { queue, batchSize, visibilityTimeoutMs } = this.#o;
    const messages = await queue.receive({ max: batchSize, visibilityTimeoutMs });
    const t: IngestTotals = { received: messages.length, acked: 0, rejected: 0 };
    const done: string[] = [];
    const { handleEvents } = this.#o;
    // Each message checked once, for the batch below and for its own handling.
    const checked = messages.map((m) => this.#parse(m));
    // The receive's resource events stored together first; the rest (and, if that fails, each
    // event again) one message at a time.
    let stored = new Set<ReceivedMessage>();
    if (handleEvents !== undefined) {
      const events = new Map<ReceivedMessage, ResourceEvent>();
      messages.forEach((m, i) => {
        const parsed = checked[i] as Checked;
        if (parsed.ok && parsed.value.kind === "resource_observed") events.set(m, parsed.value.event);
      });
      if (events.size > 1) {
        try {
          await handleEvents([...events.values()]);
          stored = new Set(events.keys());
        } catch (err) {
          this.#o.log("warn", "ingest: storing a receive's events together failed; storing each alone", {
            events: events.size,
            error: String(err),
          });
        }
      }
    }
    for (const [i, m] of messages.entries()) {
      if (stored.has(m) || (await this.#handleOne(m, checked[i] as Checked))) done.push(m.receipt);
      else t.rejected += 1;
    }
    t.acked = await queue.ack(done);
    for (const k of ["received", "acked", "rejected"] as const) this.totals[k] += t[k];
    return t;
  }

  /**
   * Receives until a receive returns nothing, or acknowledges nothing (what is left is being retried:
   * it waits for its visibility timeout). Concurrent calls share the drain in progress.
   */
  drain(): Promise<IngestTotals> {
    if (this.#running !== null) return this.#running;
    const p = (async () => {
      let sum = zero();
      for (;;) {
        const t = await this.drainOnce();
        sum = add(sum, t);
        if (t.received === 0 || t.acked === 0) return sum;
      }
    })().finally(() => {
      this.#running = null;
    });
    this.#running = p;
    return p;
  }

  /** A message's content, checked (every problem named) as this consumer takes it. */
  #parse(m: ReceivedMessage): Checked {
    const { handleRun, clock, maxClockSkewMs } = this.#o;
    return parseIngestMessage(m.body, clock.now(), {
      maxSkewMs: maxClockSkewMs,
      runs: handleRun !== undefined,
    });
  }

  async #handleOne(m: ReceivedMessage, parsed: Checked): Promise<boolean> {
    const { handleRun } = this.#o;
    if (!parsed.ok) {
      this.#o.log("warn", "ingest: malformed event left for retry (dead-letter queue after max receives)", {
        message_id: m.message_id,
        receive_count: m.receive_count,
        errors: parsed.errors.map((e) => `${e.path || "(body)"}: ${e.message}`),
      });
      return false;
    }
    try {
      const msg = parsed.value;
      if (msg.kind === "collector_run") await (handleRun as (run: NewRunRecord) => Promise<void>)(msg.run);
      else if (msg.kind === "collector_run_start") {
        if (this.#o.handleRunStart === undefined)
          throw new Error("run starts are not taken by this consumer");
        await this.#o.handleRunStart(msg.start);
      } else await this.#o.handle(msg.event);
      return true;
    } catch (err) {
      this.#o.log("warn", "ingest: handler refused an event; left for retry", {
        message_id: m.message_id,
        receive_count: m.receive_count,
        error: String(err),
      });
      return false;
    }
  }

  /** Drains now, then again every poll interval, until `stop()`. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    const { clock } = this.#o;
    this.#timer = clock.setTimeout(() => {
      this.#timer = null;
      this.drain()
        .catch((err: unknown) => this.#o.log("error", "ingest: drain failed", { error: String(err) }))
        .finally(() => this.#schedule(this.#o.pollIntervalMs));
    }, ms);
    (this.#timer as { unref?: () => void } | null)?.unref?.();
  }

  /** Stops polling and waits for the drain in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running?.catch(() => {});
  }
}
