/**
 * The collector contract of the runtime (the `Collector` and `Clock` ports are in @monitor/core's
 * ports.ts): the system clock and a sleep on it. A collector scans one account in one region per call.
 * Real AWS collectors implement the same interface (docs/monitor-runtime.md): assume the role of
 * `ctx.account` (STS AssumeRole), call the regional APIs of `ctx.region`, honour `ctx.signal`.
 */
import type { Clock } from "./ports.ts";

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
