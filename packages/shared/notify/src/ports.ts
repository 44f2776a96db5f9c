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

/** `firing` while it holds, `resolved` once it ended (Alertmanager's alert `status`). */
export type AlertStatus = "firing" | "resolved";

/**
 * One alert of a notification, in the shape of Alertmanager's alert model (labels, annotations,
 * startsAt/endsAt, generatorURL, fingerprint) plus the facts a person acts on, spelled out.
 */
export interface NotificationAlert {
  /** Stable key of the alert: the same in its firing, reminder and resolved messages. */
  fingerprint: string;
  status: AlertStatus;
  /** What this message says about it: it started, it is still firing, it ended. */
  kind: NotificationKind;
  /** ISO 8601: when it started firing (kept across restarts); null when unknown. */
  startsAt: string | null;
  /** ISO 8601: when it resolved; null while firing. */
  endsAt: string | null;
  severity: Severity;
  rule: string;
  subject: string;
  /** One line for humans. */
  summary: string;
  /** The last error text of the failing job behind the alert; null when there is none. */
  lastError: string | null;
  /** Where to look: the status page anchored at the subject; null when no public URL is known. */
  generatorURL: string | null;
  /** Identifying labels (`alertname` = rule, `severity`, `subject`, …): what an Alertmanager groups on. */
  labels: Record<string, string>;
  /** Descriptive annotations (`summary`, `last_error`, …). */
  annotations: Record<string, string>;
}

/** `resolved` only when every alert is resolved (none: `firing`, the notification's own kind decides). */
export function overallStatus(alerts: readonly Pick<NotificationAlert, "status">[]): AlertStatus {
  return alerts.length > 0 && alerts.every((a) => a.status === "resolved") ? "resolved" : "firing";
}

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
  /**
   * Overall status: `resolved` only when every alert in `alerts` is resolved (`overallStatus`).
   * Producers that send alerts set it; absent otherwise.
   */
  status?: AlertStatus;
  /** Each alert the notification is about, with its own status; absent for producers without alerts. */
  alerts?: NotificationAlert[];
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
  /**
   * Set when the notification was held back by a mute, not sent: then `channel` is `*` (no channel),
   * `attempt` 0, `ok` false, `durationMs` 0. `by` names what muted it (e.g. the alert
   * `account_no_access|<account>`), `reason` says why.
   */
  muted?: { by: string; reason: string };
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
    list.push(structuredClone(attempt));
  }

  async attempts(notificationId: string): Promise<DeliveryAttempt[]> {
    return (this.#byNotification.get(notificationId) ?? []).map((a) => structuredClone(a));
  }
}
