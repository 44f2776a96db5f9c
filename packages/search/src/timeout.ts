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

export const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
