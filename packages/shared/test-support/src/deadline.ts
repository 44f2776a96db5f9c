// Deadlines proven on fake time, not measured: work still pending 1 ms before its deadline and
// settled at it, or settled before a deadline could have ended it. Only setTimeout and clearTimeout are faked, so real I/O (a socket, chDB) runs
// as usual; the deadline timers (withDeadline in @shared/kernel) are the test's to advance.
import { expect, vi } from "vitest";

/**
 * Starts `work` on fake timers; answers what it settled with, after proving it settled `ms` after it
 * armed its deadline (work that reads a request body first arms it a few turns of the loop later).
 */
export async function settlesAt<T>(ms: number, work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    let settled = false;
    const timers = vi.getTimerCount();
    const p = work().finally(() => {
      settled = true;
    });
    p.catch(() => {});
    for (let turn = 0; turn < 1000 && !settled && vi.getTimerCount() === timers; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(vi.getTimerCount(), "a deadline armed").toBeGreaterThan(timers);
    await vi.advanceTimersByTimeAsync(ms - 1);
    expect(settled, `settled before ${ms} ms`).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled, `settled at ${ms} ms`).toBe(true);
    return await p;
  } finally {
    vi.useRealTimers();
  }
}

/**
 * Runs `work` on fake timers that advance 1 ms per turn of the event loop, so real I/O (a refused
 * connection) completes as usual; answers what it settled with, after proving it settled before `ms`
 * of that time passed (the failure came from the I/O, not from a deadline of `ms`).
 */
export async function settlesBefore<T>(ms: number, work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    let settled = false;
    const p = work().finally(() => {
      settled = true;
    });
    p.catch(() => {});
    for (let elapsed = 0; !settled && elapsed < ms - 1; elapsed++) {
      await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(settled, `settled before ${ms} ms`).toBe(true);
    return await p;
  } finally {
    vi.useRealTimers();
  }
}
