/**
 * Retries of AWS calls are the SDK's own: every client is built with `awsRetryConfig()`, so its
 * retry middleware runs the SDK's standard retry strategy (@smithy/core/retry) for at most
 * `maxAttempts` attempts in all (default 5). It retries throttling (ThrottlingException,
 * RequestLimitExceeded, Throttling, HTTP 429, …), HTTP 500/502/503/504 and timeouts or socket
 * resets, with exponential backoff and full jitter capped at 20 s; other client errors
 * (AccessDenied, UnauthorizedOperation, a bad request) are not retried. A call's `abortSignal` ends
 * it at once, during a backoff too, and is never retried. The error of a call that failed carries the
 * attempts made in `$metadata.attempts` (`attemptsOf`).
 */
import {
  ConfiguredRetryStrategy,
  isThrottlingError,
  isTransientError,
  StandardRetryStrategy,
} from "@smithy/core/retry";

export const DEFAULT_AWS_MAX_ATTEMPTS = 5;

export interface AwsRetryOptions {
  /** Attempts in all, first included. Default 5. */
  maxAttempts?: number;
  /**
   * A fixed delay before every retry instead of the SDK's backoff (tests use 1 ms). Default: the
   * SDK's exponential backoff with full jitter.
   */
  retryDelayMs?: number;
}

/** Spread into an SDK client's configuration: `new SQSClient({ ...awsRetryConfig() })`. */
export interface AwsRetryConfig {
  maxAttempts: number;
  retryStrategy: StandardRetryStrategy;
}

/** A new strategy each call: its retry quota belongs to the one client it is given to. */
export function awsRetryConfig(opts: AwsRetryOptions = {}): AwsRetryConfig {
  const maxAttempts = Math.max(1, Math.floor(opts.maxAttempts ?? DEFAULT_AWS_MAX_ATTEMPTS));
  const retryStrategy =
    opts.retryDelayMs === undefined
      ? new StandardRetryStrategy({ maxAttempts })
      : new ConfiguredRetryStrategy(maxAttempts, Math.max(0, opts.retryDelayMs));
  return { maxAttempts, retryStrategy };
}

/** The attempts the SDK made for a call that failed (`$metadata.attempts`); 1 when it does not say. */
export function attemptsOf(err: unknown): number {
  const n = (err as { $metadata?: { attempts?: unknown } } | null)?.$metadata?.attempts;
  return typeof n === "number" && n >= 1 ? n : 1;
}

/** Whether the SDK counts the error as worth retrying (throttling or transient): its attempts ran out. */
export function isRetryableAwsError(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as Parameters<typeof isThrottlingError>[0];
  return isThrottlingError(e) || isTransientError(e);
}
