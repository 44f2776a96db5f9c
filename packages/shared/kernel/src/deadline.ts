// Work that must not be waited on forever (a store that hangs, a peer that never answers): raced
// against a deadline. The work itself may go on; nobody waits for it any more.

/** A wait that ran out; the work behind it may still finish, but nobody waits for it any more. */
export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TimeoutError";
  }
}

/**
 * Settles like `promise`, or rejects with TimeoutError after `ms` milliseconds. The timer is cleared
 * as soon as `promise` settles, so a fast answer leaves nothing pending.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How a read that is never waited on past its deadline ended. */
export type Settled<T> =
  | { status: "ok"; value: T }
  | { status: "timeout" }
  | { status: "error"; error: unknown };

/**
 * A read that must not be waited on (a status page, an alert tick): raced against a deadline, never
 * rejects. On the deadline the signal is aborted (with the reason) and a late answer is dropped.
 */
export async function settleWithin<T>(
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<Settled<T>> {
  const ac = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<{ status: "timeout" }>((resolve) => {
    timer = setTimeout(() => {
      ac.abort(new Error(`no answer within ${timeoutMs} ms`));
      resolve({ status: "timeout" });
    }, timeoutMs);
  });
  try {
    const p = work(ac.signal);
    p.catch(() => {}); // settled after the deadline: already reported
    return await Promise.race([p.then((value) => ({ status: "ok" as const, value })), deadline]);
  } catch (error) {
    return { status: "error", error };
  } finally {
    clearTimeout(timer);
  }
}
