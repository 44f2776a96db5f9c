/**
 * The notification port shared by every producer (monitor alerts, anomalies, rule violations):
 * what a notification is, what a channel does with it, and where delivery attempts are recorded.
 */

export type Severity = "info" | "warning" | "critical";
export const SEVERITIES: readonly Severity[] = ["info", "warning", "critical"];

/** `firing` when an alert starts, `reminder` while it keeps firing, `resolved` when it ends. */
export type NotificationKind = "firing" | "reminder" | "resolved";

/** Who produced the notification. Open: new producers may use their own name. */
export type NotificationSource = "monitor" | "anomaly" | "rule" | (string & {});

export interface Notification {
  /**
   * Idempotency key: the same notification (same alert, same transition or reminder) keeps the same
   * id across retries and restarts. Channels that already accepted it are not sent it again by `deliver`.
   */
  id: string;
  source: NotificationSource;
  /** The rule that fired, e.g. `collector_failure`. */
  rule: string;
  /** What the rule fired for: a collector, account, region or queue. */
  subject: string;
  severity: Severity;
  kind: NotificationKind;
  /** One line for humans. */
  title: string;
  /** Longer text for humans. */
  text: string;
  /** ISO 8601 time of the event this notification reports. */
  at: string;
  details?: Record<string, unknown>;
}

/** One delivery target. `send` resolves when the target accepted the notification and throws otherwise. */
export interface Channel {
  readonly name: string;
  send(notification: Notification, signal: AbortSignal): Promise<void>;
}

/** One try of one notification on one channel. */
export interface DeliveryAttempt {
  notificationId: string;
  channel: string;
  /** 1-based, counted per notification and channel across `deliver` calls. */
  attempt: number;
  /** ISO 8601 start time of the attempt. */
  at: string;
  ok: boolean;
  error?: string;
  durationMs: number;
}

/** Where every delivery attempt is recorded. */
export interface DeliveryLog {
  record(attempt: DeliveryAttempt): Promise<void>;
  /** Every recorded attempt of one notification, oldest first (by `at`, then `attempt`). */
  attempts(notificationId: string): Promise<DeliveryAttempt[]>;
}

/**
 * A `DeliveryLog` kept in process memory, for tests and for producers without a database. Lost on
 * restart, so after a restart `deliver` re-sends to channels that had already accepted a notification
 * (the monitor uses the persistent `ClickHouseDeliveryLog` instead). Bounded: past `maxNotifications`
 * the oldest notifications' attempts are dropped.
 */
export class InMemoryDeliveryLog implements DeliveryLog {
  readonly #byNotification = new Map<string, DeliveryAttempt[]>();
  readonly #maxNotifications: number;

  constructor(options: { maxNotifications?: number } = {}) {
    this.#maxNotifications = options.maxNotifications ?? 10_000;
  }

  async record(attempt: DeliveryAttempt): Promise<void> {
    let list = this.#byNotification.get(attempt.notificationId);
    if (list === undefined) {
      list = [];
      this.#byNotification.set(attempt.notificationId, list);
      while (this.#byNotification.size > this.#maxNotifications) {
        const oldest = this.#byNotification.keys().next().value;
        if (oldest === undefined) break;
        this.#byNotification.delete(oldest);
      }
    }
    list.push({ ...attempt });
  }

  async attempts(notificationId: string): Promise<DeliveryAttempt[]> {
    return (this.#byNotification.get(notificationId) ?? []).map((a) => ({ ...a }));
  }
}
