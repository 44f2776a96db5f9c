/**
 * The alert engine loop (spec §6, docs/monitor-alerts.md "The engine loop"): every tick it reads the
 * same data as the status endpoint, runs the pure rules and state machine of `@svcmon/core`, saves
 * the state, delivers the owed intents through `@svcmon/notify` and saves the confirmations.
 */
import {
  type AlertState,
  type AlertStateStore,
  type CollectorRegistry,
  type DbHealth,
  evaluateConditions,
  type Flip,
  type IntentItem,
  markDelivered,
  markFailed,
  type NotificationIntent,
  type QueueHealth,
  type RunStore,
  step,
} from "@svcmon/core";
import {
  type Channel,
  channelsFromEnv,
  createChannels,
  type DeliveryLog,
  deliver,
  InMemoryDeliveryLog,
  type Notification,
} from "@svcmon/notify";
import { alertInput, type FiringAlertJson, firingAlerts, readSnapshot } from "./evaluate.ts";

export const DEFAULT_ALERT_EVAL_INTERVAL_MS = 60_000;
/** Ticks are never closer than this, even when a retry is due sooner. */
const MIN_DELAY_MS = 1000;

export interface AlertEngineLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface AlertEngineDeps {
  store: RunStore;
  registry: CollectorRegistry;
  stateStore: AlertStateStore;
  /** None configured: alerts are still evaluated, stored and shown, and stay un-notified. */
  channels: readonly Channel[];
  deliveryLog: DeliveryLog;
  now: () => number;
  /** Between ticks (ALERT_EVAL_INTERVAL_S). Default 60 s; a due retry brings the next tick forward. */
  intervalMs?: number;
  log: AlertEngineLogger;
  /** Per-channel timeout of one delivery is the channel's own; this bounds tries per tick. Default 1. */
  attemptsPerTick?: number;
  /**
   * Queue health (`queueHealthReader(source)`) for the dead-letter rule; none when absent. A queue that
   * cannot be read keeps its dead-letter alert as it was.
   */
  queues?: () => Promise<QueueHealth[]>;
}

export interface TickResult {
  flips: Flip[];
  /** Intent ids delivered / failed in this tick. */
  delivered: string[];
  failed: string[];
}

/** `ALERT_EVAL_INTERVAL_S` in ms; default 60 s; rejects anything but a positive number. */
export function alertIntervalFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ALERT_EVAL_INTERVAL_S?.trim();
  if (raw === undefined || raw === "") return DEFAULT_ALERT_EVAL_INTERVAL_MS;
  const s = Number(raw);
  if (!Number.isFinite(s) || s <= 0)
    throw new Error(`ALERT_EVAL_INTERVAL_S must be a positive number, got "${raw}"`);
  return Math.round(s * 1000);
}

const KIND = { start: "firing", reminder: "reminder", resolve: "resolved" } as const;

/** One notification per intent: rule, severity, the subject (or a count) and every item in `details`. */
export function intentNotification(intent: NotificationIntent): Notification {
  const items = intent.items;
  const kinds = new Set(items.map((i) => i.kind));
  const kind = kinds.has("start") ? "firing" : kinds.has("reminder") ? "reminder" : "resolved";
  const one = items.length === 1 ? (items[0] as IntentItem) : null;
  const subject = one !== null ? one.subject : `${items.length} subjects`;
  const title =
    one !== null
      ? `[${intent.severity}] ${intent.rule} ${KIND[one.kind]}: ${one.subject}`
      : `[${intent.severity}] ${intent.rule}: ${items.length} alerts (${[...kinds].map((k) => KIND[k]).join(", ")})`;
  const shown = items.slice(0, 50);
  const text = [
    ...shown.map((i) => `${KIND[i.kind]} ${i.subject}: ${i.detail}`),
    ...(items.length > shown.length ? [`… and ${items.length - shown.length} more`] : []),
  ].join("\n");
  return {
    id: intent.id,
    source: "monitor",
    rule: intent.rule,
    subject,
    severity: intent.severity,
    kind,
    title,
    text,
    at: new Date(intent.createdAt).toISOString(),
    details: {
      items: items.map((i) => ({
        subject: i.subject,
        kind: KIND[i.kind],
        episode: i.episode,
        detail: i.detail,
      })),
    },
  };
}

export class AlertEngine {
  readonly #d: AlertEngineDeps;
  readonly #intervalMs: number;
  #running: Promise<TickResult> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = true;
  #abort = new AbortController();
  /** Earliest retry time seen by the last tick, for scheduling. */
  #nextDue: number | null = null;

  constructor(deps: AlertEngineDeps) {
    this.#d = deps;
    this.#intervalMs = deps.intervalMs ?? DEFAULT_ALERT_EVAL_INTERVAL_MS;
  }

  /** One evaluation and delivery round. Concurrent calls share the round in progress. */
  tick(): Promise<TickResult> {
    if (this.#running !== null) return this.#running;
    const p = this.#tick().finally(() => {
      this.#running = null;
    });
    this.#running = p;
    return p;
  }

  async #tick(): Promise<TickResult> {
    const { store, registry, stateStore, channels, deliveryLog, log } = this.#d;
    const now = this.#d.now();
    const previous = await stateStore.load();
    const specs = await registry.list();
    const snapshot = await readSnapshot(store, specs, now);
    let db: DbHealth | null = null;
    try {
      db = await store.dbHealth();
    } catch (err) {
      log.warn("alerts: disk usage unavailable", { error: String(err) });
    }
    let queues: QueueHealth[] | null = [];
    if (this.#d.queues !== undefined) {
      try {
        queues = await this.#d.queues();
      } catch (err) {
        queues = null;
        log.warn("alerts: queue health unavailable", { error: String(err) });
      }
    }
    const conditions = evaluateConditions(alertInput(specs, snapshot, db, now, queues), now, previous);
    const result = step(previous, conditions, now);
    let state = result.state;
    // Saved before delivering: the leases and startEmitted survive a crash mid-delivery.
    await stateStore.save(state);
    for (const f of result.flips) {
      log.info("alert flip", { key: f.key, from: f.from, to: f.to, severity: f.severity, muted: f.muted });
    }

    const delivered: string[] = [];
    const failed: string[] = [];
    for (const intent of result.notifications) {
      let error: string | null = null;
      if (channels.length === 0) {
        error = "no notification channel configured";
      } else {
        const outcome = await deliver(intentNotification(intent), channels, deliveryLog, {
          attempts: this.#d.attemptsPerTick ?? 1,
          baseDelayMs: 1000,
          maxDelayMs: 5000,
          signal: this.#abort.signal,
        });
        for (const e of outcome.logErrors) log.warn("alerts: delivery log", { error: e });
        if (!outcome.delivered) {
          error = outcome.channels
            .filter((c) => !c.ok)
            .map((c) => `${c.channel}: ${c.error ?? "failed"}`)
            .join("; ");
        }
      }
      const at = this.#d.now();
      if (error === null) {
        state = markDelivered(state, intent.id, at);
        delivered.push(intent.id);
      } else {
        state = markFailed(state, intent.id, at, error);
        failed.push(intent.id);
        if (channels.length > 0)
          log.warn("alert delivery failed", { id: intent.id, rule: intent.rule, error });
      }
    }
    if (result.notifications.length > 0) await stateStore.save(state);
    this.#nextDue = earliestRetry(state);
    return { flips: result.flips, delivered, failed };
  }

  /** The firing alerts of the stored state (the status body's `alerts`). */
  async firingAlerts(): Promise<FiringAlertJson[]> {
    return firingAlerts(await this.#d.stateStore.load());
  }

  /** Ticks now, then every interval (sooner when a retry is due). */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#abort = new AbortController();
    this.#schedule(0);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.tick()
        .catch((err: unknown) => this.#d.log.error("alert tick failed", { error: String(err) }))
        .finally(() => {
          const now = this.#d.now();
          const due = this.#nextDue === null ? this.#intervalMs : this.#nextDue - now;
          this.#schedule(Math.max(MIN_DELAY_MS, Math.min(this.#intervalMs, due)));
        });
    }, delayMs);
    this.#timer.unref?.();
  }

  /** Stops the timer, aborts a delivery in flight and waits for the round in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#abort.abort();
    await this.#running?.catch(() => {});
  }
}

function earliestRetry(state: AlertState): number | null {
  let min: number | null = null;
  for (const a of Object.values(state.alerts)) {
    const t = a.delivery?.nextAttemptAt;
    if (t !== undefined && (min === null || t < min)) min = t;
  }
  return min;
}

/**
 * The channels of `ALERT_WEBHOOK_URL` (`channelsFromEnv`); an empty list when it is unset (alerts are
 * then stored and shown, not notified). Throws on an invalid value.
 */
export function alertChannelsFromEnv(env: Record<string, string | undefined>): Channel[] {
  const configs = channelsFromEnv(env);
  if (!configs.ok) {
    throw new Error(`alert channels: ${configs.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  }
  return createChannels(configs.value);
}

/** A delivery log kept in memory (lost on restart; the alert state itself is persisted). */
export function memoryDeliveryLog(): DeliveryLog {
  return new InMemoryDeliveryLog();
}
