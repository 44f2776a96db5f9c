/**
 * A read the status route and the alert engine must not wait on: raced against a deadline, never
 * rejects. On the deadline the signal is aborted (with the reason) and a late answer is dropped.
 */
export type Settled<T> =
  | { status: "ok"; value: T }
  | { status: "timeout" }
  | { status: "error"; error: unknown };

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
