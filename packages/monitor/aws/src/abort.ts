/**
 * Settles with `call`, or rejects with the signal's reason as soon as it aborts. The SDK stops a
 * call given `abortSignal` itself; this is for a promise shared by callers that each stop waiting
 * on their own signal (RoleAssumer), and for a call whose handler ignores the signal.
 */
export function raceAbort<T>(call: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  const p = Promise.resolve(call);
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
