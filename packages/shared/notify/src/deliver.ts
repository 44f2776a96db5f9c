import { errorMessage } from "./http.ts";
import type { Channel, DeliveryLog, Notification } from "./ports.ts";

/**
 * Longest error text recorded for an attempt (and returned in an outcome). The adapters keep at most
 * 200 characters of a target's answer; this also bounds what an SMTP server or a resolver says.
 */
export const MAX_RECORDED_ERROR_CHARS = 500;

function recordedError(err: unknown): string {
  const message = errorMessage(err);
  return message.length <= MAX_RECORDED_ERROR_CHARS
    ? message
    : `${Array.from(message)
        .slice(0, MAX_RECORDED_ERROR_CHARS - 1)
        .join("")}…`;
}

export interface DeliverOptions {
  /** Tries per channel in this call, at least 1. */
  attempts: number;
  /** Wait before the 2nd try; doubles on each further try. */
  baseDelayMs: number;
  /** Cap on one wait. */
  maxDelayMs: number;
  /** Injected in tests; default: a timer that ends early when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Stops further tries (e.g. on shutdown); the current try is aborted. */
  signal?: AbortSignal;
  now?: () => Date;
}

export interface ChannelOutcome {
  channel: string;
  ok: boolean;
  /** Tries made by this call (0 when the channel had already accepted the notification earlier). */
  attempts: number;
  /** True when the log showed an earlier successful attempt, so nothing was sent. */
  alreadyDelivered: boolean;
  /** The last error when not ok. */
  error?: string;
}

export interface DeliveryOutcome {
  notificationId: string;
  /** Every channel accepted the notification (now or earlier). False when there are no channels. */
  delivered: boolean;
  channels: ChannelOutcome[];
  /** Attempts that could not be written to the log (the delivery itself is unaffected). */
  logErrors: string[];
}

/** Wait before try `attempt` (2, 3, …): `min(maxDelayMs, baseDelayMs × 2^(attempt−2))`. */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  return Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 2));
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Sends one notification to every channel, channels in parallel, each with up to `attempts` tries and
 * exponential backoff between them. Every try is recorded in `log`. A channel whose log already shows
 * a successful attempt for this notification id is skipped, so calling `deliver` again for a
 * notification that is not yet delivered only retries the channels that have not accepted it.
 *
 * `delivered` means every channel accepted it; a producer keeps the notification pending (and calls
 * again later) until then. Never throws.
 */
export async function deliver(
  notification: Notification,
  channels: readonly Channel[],
  log: DeliveryLog,
  options: DeliverOptions,
): Promise<DeliveryOutcome> {
  const maxAttempts = Math.max(1, Math.floor(options.attempts));
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? (() => new Date());
  const stop = options.signal ?? new AbortController().signal;
  const logErrors: string[] = [];

  let previous: Awaited<ReturnType<DeliveryLog["attempts"]>> = [];
  try {
    previous = await log.attempts(notification.id);
  } catch (err) {
    logErrors.push(`reading attempts: ${errorMessage(err)}`);
  }

  const one = async (channel: Channel): Promise<ChannelOutcome> => {
    const mine = previous.filter((a) => a.channel === channel.name);
    if (mine.some((a) => a.ok)) {
      return { channel: channel.name, ok: true, attempts: 0, alreadyDelivered: true };
    }
    const offset = mine.reduce((m, a) => Math.max(m, a.attempt), 0);
    let lastError = "not attempted";
    let made = 0;
    for (let i = 1; i <= maxAttempts; i++) {
      if (i > 1) {
        await sleep(backoffDelay(i, options.baseDelayMs, options.maxDelayMs), stop);
      }
      if (stop.aborted) {
        lastError = made === 0 ? "aborted before the first attempt" : `${lastError}; then aborted`;
        break;
      }
      made++;
      const startedAt = now();
      const t0 = performance.now();
      let ok = true;
      let error: string | undefined;
      try {
        await channel.send(notification, stop);
      } catch (err) {
        ok = false;
        error = recordedError(err);
        lastError = error;
      }
      const durationMs = Math.round(performance.now() - t0);
      try {
        await log.record({
          notificationId: notification.id,
          channel: channel.name,
          attempt: offset + i,
          at: startedAt.toISOString(),
          ok,
          ...(error === undefined ? {} : { error }),
          durationMs,
        });
      } catch (err) {
        logErrors.push(`recording ${channel.name} attempt ${offset + i}: ${errorMessage(err)}`);
      }
      if (ok) return { channel: channel.name, ok: true, attempts: made, alreadyDelivered: false };
    }
    return { channel: channel.name, ok: false, attempts: made, alreadyDelivered: false, error: lastError };
  };

  const results = await Promise.all(
    channels.map((c) =>
      one(c).catch(
        (err): ChannelOutcome => ({
          channel: c.name,
          ok: false,
          attempts: 0,
          alreadyDelivered: false,
          error: errorMessage(err),
        }),
      ),
    ),
  );
  return {
    notificationId: notification.id,
    delivered: results.length > 0 && results.every((r) => r.ok),
    channels: results,
    logErrors,
  };
}
