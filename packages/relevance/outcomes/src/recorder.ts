/**
 * The Recorder: keeps the recording of served searches off the response path. `offer` is
 * synchronous and O(1) and never throws: it samples by the index's rate, caps the rows accepted per
 * second, and queues within a bound; batches go to the sink later (by size or after an interval,
 * or on `flush()`, which the Worker hands to `waitUntil` and npm start awaits when it drains).
 * Every row dropped is counted by reason and said in a rate-limited warn line, so a slow or failing
 * store costs the search nothing and is still visible.
 */
import type { Logger } from "@shared/kernel";
import type { ServedSearch } from "./records.ts";

/** Rows accepted per second by one recorder (`RECORD_MAX_PER_SECOND`). */
export const DEFAULT_RECORD_MAX_PER_SECOND = 500;
export const MAX_RECORD_MAX_PER_SECOND = 100_000;
/** Rows waiting for the sink at most (`RECORD_QUEUE_MAX`); beyond it rows are dropped and counted. */
export const DEFAULT_RECORD_QUEUE_MAX = 10_000;
export const MAX_RECORD_QUEUE_MAX = 1_000_000;
/** Rows handed to the sink in one call at most. */
export const DEFAULT_RECORD_BATCH_SIZE = 100;
/** A queued row waits at most this long for its batch to fill before it is sent. */
export const DEFAULT_RECORD_FLUSH_MS = 1_000;
/** At most one warn line about dropped rows per this window (it carries the counts since the last one). */
const DEFAULT_LOG_WINDOW_MS = 60_000;

export type RecordSink = (rows: readonly ServedSearch[]) => Promise<void>;

export interface RecorderStats {
  /** Rows offered (scored searches). */
  offered: number;
  /** Rows the sink stored. */
  recorded: number;
  /** Rows left out by the index's sample rate (not a loss: sampling). */
  sampledOut: number;
  /** Rows dropped over the per-second cap. */
  rateLimited: number;
  /** Rows dropped because the queue was full (the sink is slower than the searches). */
  queueFull: number;
  /** Rows of batches the sink refused (dropped: the recorder does not retry). */
  sinkFailed: number;
  /** Rows waiting for the sink now. */
  queued: number;
}

export interface RecorderOptions {
  sink: RecordSink;
  /** Milliseconds, for the per-second cap and the log window. */
  now: () => number;
  /** In [0, 1), for sampling. Default Math.random. */
  random?: () => number;
  log: Logger;
  maxPerSecond?: number;
  queueMax?: number;
  batchSize?: number;
  flushMs?: number;
  /**
   * Runs `fn` after `ms` and returns how to cancel it. Default setTimeout (unref'd on Node so a
   * pending batch never keeps a process alive; `flush()` on shutdown sends it).
   */
  schedule?: (fn: () => void, ms: number) => () => void;
  logWindowMs?: number;
}

const defaultSchedule = (fn: () => void, ms: number): (() => void) => {
  const timer = setTimeout(fn, ms) as unknown as { unref?: () => void };
  timer.unref?.();
  return () => clearTimeout(timer as unknown as number);
};

export class Recorder {
  private readonly sink: RecordSink;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly log: Logger;
  private readonly maxPerSecond: number;
  private readonly queueMax: number;
  private readonly batchSize: number;
  private readonly flushMs: number;
  private readonly schedule: (fn: () => void, ms: number) => () => void;
  private readonly logWindowMs: number;
  private queue: ServedSearch[] = [];
  private second = -1;
  private inSecond = 0;
  private cancelTimer: (() => void) | null = null;
  private timerSoon = false;
  private sending: Promise<void> | null = null;
  private lastLog = Number.NEGATIVE_INFINITY;
  private droppedSinceLog = { rateLimited: 0, queueFull: 0, sinkFailed: 0 };
  private readonly counters = {
    offered: 0,
    recorded: 0,
    sampledOut: 0,
    rateLimited: 0,
    queueFull: 0,
    sinkFailed: 0,
  };

  constructor(options: RecorderOptions) {
    this.sink = options.sink;
    this.now = options.now;
    this.random = options.random ?? Math.random;
    this.log = options.log;
    this.maxPerSecond = options.maxPerSecond ?? DEFAULT_RECORD_MAX_PER_SECOND;
    this.queueMax = options.queueMax ?? DEFAULT_RECORD_QUEUE_MAX;
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULT_RECORD_BATCH_SIZE);
    this.flushMs = options.flushMs ?? DEFAULT_RECORD_FLUSH_MS;
    this.schedule = options.schedule ?? defaultSchedule;
    this.logWindowMs = options.logWindowMs ?? DEFAULT_LOG_WINDOW_MS;
  }

  /** Takes one served search, or counts why not. Synchronous, O(1), never throws. */
  offer(row: ServedSearch, sampleRate: number): void {
    if (this.sample(sampleRate)) this.admit(row);
  }

  /**
   * Whether a served search is recorded at `sampleRate`, counted as offered (and as sampled out when
   * not). Decided before its row is built, so a search sampled out costs no row, no user hash and no
   * shadow prediction. Never throws: a failing random source samples out.
   */
  sample(sampleRate: number): boolean {
    try {
      this.counters.offered++;
      if (this.random() < sampleRate) return true;
      this.counters.sampledOut++;
    } catch {
      // A failing random source must not fail the search.
    }
    return false;
  }

  /** Queues a row `sample` let through, or counts why not (rate cap, full queue). Never throws. */
  admit(row: ServedSearch): void {
    try {
      const second = Math.floor(this.now() / 1000);
      if (second !== this.second) {
        this.second = second;
        this.inSecond = 0;
      }
      if (this.inSecond >= this.maxPerSecond) {
        this.drop("rateLimited", 1);
        return;
      }
      if (this.queue.length >= this.queueMax) {
        this.drop("queueFull", 1);
        return;
      }
      this.inSecond++;
      this.queue.push(row);
      if (this.queue.length >= this.batchSize) this.wake(0);
      else if (this.cancelTimer === null) this.wake(this.flushMs);
    } catch {
      // A failing clock or logger must not fail the search.
    }
  }

  stats(): RecorderStats {
    return { ...this.counters, queued: this.queue.length };
  }

  /** Sends everything queued now (and waits for a batch already on its way). Never rejects. */
  async flush(): Promise<void> {
    this.cancel();
    while (this.sending !== null || this.queue.length > 0) {
      if (this.sending !== null) await this.sending;
      else this.sendNext();
    }
  }

  /** (Re)arms the timer: 0 when a batch is full, else the flush interval for the first row queued. */
  private wake(ms: number): void {
    if (this.cancelTimer !== null) {
      if (ms > 0 || this.timerSoon) return;
      this.cancel();
    }
    this.timerSoon = ms === 0;
    this.cancelTimer = this.schedule(() => {
      this.cancelTimer = null;
      if (this.sending === null) this.sendNext();
    }, ms);
  }

  private cancel(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
  }

  /** Hands the next batch to the sink; when it settles, the rest is scheduled. */
  private sendNext(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue.length <= this.batchSize ? this.queue : this.queue.slice(0, this.batchSize);
    this.queue = batch === this.queue ? [] : this.queue.slice(this.batchSize);
    let pending: Promise<void>;
    try {
      pending = Promise.resolve(this.sink(batch));
    } catch (error) {
      pending = Promise.reject(error);
    }
    this.sending = pending.then(
      () => {
        this.counters.recorded += batch.length;
      },
      (error: unknown) => {
        this.drop("sinkFailed", batch.length, error);
      },
    );
    void this.sending.finally(() => {
      this.sending = null;
      if (this.queue.length >= this.batchSize) this.wake(0);
      else if (this.queue.length > 0 && this.cancelTimer === null) this.wake(this.flushMs);
    });
  }

  private drop(reason: "rateLimited" | "queueFull" | "sinkFailed", rows: number, error?: unknown): void {
    this.counters[reason] += rows;
    this.droppedSinceLog[reason] += rows;
    const at = this.now();
    if (at - this.lastLog < this.logWindowMs) return;
    this.lastLog = at;
    const dropped = this.droppedSinceLog;
    this.droppedSinceLog = { rateLimited: 0, queueFull: 0, sinkFailed: 0 };
    try {
      this.log.warn("served searches were not recorded", {
        ...dropped,
        ...(error === undefined ? {} : { problem: error instanceof Error ? error.message : String(error) }),
        totals: { ...this.counters, queued: this.queue.length },
      });
    } catch {
      // A failing logger must not fail the search either.
    }
  }
}
