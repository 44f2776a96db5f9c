import { sleep as sleepOn, systemClock } from "@svcmon/core";
/**
 * Retries of AWS calls: throttling, 5xx and timeouts are retried with exponential backoff and full
 * jitter (delay = random × min(cap, base × 2^(attempt−1))), a bounded number of attempts. The SDK
 * clients are built with maxAttempts 1 (clients.ts), so this is the only retry layer and the
 * attempt count in an error text is the real one. The run's own deadline (the AbortSignal) is never
 * retried.
 */

export interface RetryOptions {
  /** Attempts in all, first included. Default 5. */
  maxAttempts?: number;
  /** Default 200 ms. */
  baseDelayMs?: number;
  /** Default 20 000 ms. */
  maxDelayMs?: number;
  /** Injectable for tests (FakeClock); must reject with the signal's reason when aborted. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** In [0, 1). Default Math.random. */
  random?: () => number;
}

const THROTTLING = new Set([
  "ThrottlingException",
  "Throttling",
  "ThrottledException",
  "RequestLimitExceeded",
  "RequestThrottled",
  "RequestThrottledException",
  "TooManyRequestsException",
  "ProvisionedThroughputExceededException",
  "BandwidthLimitExceeded",
  "EC2ThrottledException",
  "SlowDown",
  "PriorRequestNotComplete",
]);
const TRANSIENT = new Set([
  "InternalError",
  "InternalFailure",
  "InternalServerError",
  "ServiceUnavailable",
  "ServiceUnavailableException",
  "Unavailable",
]);
const TIMEOUTS = new Set(["TimeoutError", "RequestTimeout", "RequestTimeoutException"]);
const NETWORK_CODES = new Set([
  "ETIMEDOUT",
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ECONNABORTED",
]);

interface AwsLikeError {
  name?: unknown;
  code?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $retryable?: { throttling?: boolean };
}

/** Why an error is worth another attempt ("throttling", "server error", "timeout"), or null. */
export function retryableReason(err: unknown): string | null {
  if (typeof err !== "object" || err === null) return null;
  const e = err as AwsLikeError;
  const name = typeof e.name === "string" ? e.name : "";
  const code = typeof e.code === "string" ? e.code : "";
  const status = typeof e.$metadata?.httpStatusCode === "number" ? e.$metadata.httpStatusCode : 0;
  if (THROTTLING.has(name) || THROTTLING.has(code) || status === 429 || e.$retryable?.throttling) {
    return "throttling";
  }
  if (TIMEOUTS.has(name) || TIMEOUTS.has(code) || NETWORK_CODES.has(code)) return "timeout";
  if (TRANSIENT.has(name) || TRANSIENT.has(code) || status >= 500) return "server error";
  return null;
}

/** The delay before attempt `attempt + 1` (attempt ≥ 1), full jitter. */
export function backoffDelayMs(attempt: number, opts: RetryOptions = {}): number {
  const base = opts.baseDelayMs ?? 200;
  const cap = opts.maxDelayMs ?? 20_000;
  const random = opts.random ?? Math.random;
  return Math.floor(random() * Math.min(cap, base * 2 ** (attempt - 1)));
}

export interface RetryCall extends RetryOptions {
  signal?: AbortSignal;
  /** Called before each wait (for logs). */
  onRetry?: (err: unknown, attempt: number, delayMs: number, reason: string) => void;
}

/**
 * Calls `fn(attempt)` until it resolves, the error is not retryable, or the attempts run out; then
 * rejects with the last error. When `signal` is aborted, rejects with its reason at once.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryCall = {}): Promise<T> {
  const max = Math.max(1, Math.floor(opts.maxAttempts ?? 5));
  const wait = opts.sleep ?? ((ms: number, signal?: AbortSignal) => sleepOn(systemClock, ms, signal));
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    try {
      return await fn(attempt);
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const reason = retryableReason(err);
      if (reason === null || attempt >= max) throw err;
      const delay = backoffDelayMs(attempt, opts);
      opts.onRetry?.(err, attempt, delay, reason);
      await wait(delay, opts.signal);
    }
  }
}

/**
 * Settles with `p`, or rejects with the signal's reason as soon as it aborts: the SDK gets the
 * signal too, but this also bounds a call whose handler ignores it.
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
