/**
 * The collector contract of the runtime. A collector scans one account in one region per call.
 * Real AWS collectors implement the same interface (docs/monitor-runtime.md): assume the role of
 * `ctx.account` (STS AssumeRole), call the regional APIs of `ctx.region`, honour `ctx.signal`.
 */
import type { AccountStatus } from "@svcmon/core";

export interface CollectorAccount {
  account_id: string;
  account_name: string;
  /** When given, only `active` accounts are scanned. */
  svc_status?: AccountStatus;
}

export interface CollectorContext {
  account: { account_id: string; account_name: string };
  region: string;
  /** Aborted when the run times out (or the runtime stops); pass it to every network call. */
  signal: AbortSignal;
  /** The runtime's clock (epoch ms). */
  now(): number;
  /**
   * The run_id of the run record the runtime will write (the Scheduler always sets it), so rows the
   * collector writes can name their run. Absent when a collector is called outside a scheduler.
   */
  run_id?: string;
}

/** What a collector reports. Throwing (or rejecting) means the run failed. */
export interface CollectorResult {
  status: "succeeded" | "partial";
  events_produced: number;
  rows_inserted: number;
  /** For `partial`: what was missed. */
  error?: string;
}

export interface Collector {
  readonly name: string;
  run(ctx: CollectorContext): Promise<CollectorResult>;
}

/** Injectable time: tests pass a fake clock. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Sleeps on `clock`; rejects with the signal's reason when aborted. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
