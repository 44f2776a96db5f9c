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
 * The one race against a deadline: settles like `work`, or after `ms` milliseconds aborts the
 * signal `work` was given and rejects with `late()`. The timer is cleared as soon as `work`
 * settles, so a fast answer leaves nothing pending; a rejection after the deadline is swallowed
 * (the caller has its answer already).
 */
export async function withDeadline<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
  late: () => Error,
): Promise<T> {
  const ac = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = late();
      ac.abort(error);
      reject(error);
    }, ms);
  });
  try {
    // Inside the try: work that throws before it returns a promise clears the timer too, or the
    // deadline would reject later with nobody listening.
    const p = work(ac.signal);
    p.catch(() => {});
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Settles like `promise`, or rejects with TimeoutError after `ms` milliseconds. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return withDeadline(
    ms,
    () => promise,
    () => new TimeoutError(`${what} timed out after ${ms} ms`),
  );
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
  const late = new Error(`no answer within ${timeoutMs} ms`);
  try {
    return { status: "ok", value: await withDeadline(timeoutMs, work, () => late) };
  } catch (error) {
    return error === late ? { status: "timeout" } : { status: "error", error };
  }
}
