/**
 * The alert engine loop (docs/monitor-alerts.md "The engine loop"): every tick it reads the
 * same data as the status endpoint, runs the pure rules and state machine of `@monitor/core`, saves
 * the state, delivers the owed intents through `@shared/notify` and saves the confirmations.
 */

import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import {
  type AlertRecord,
  type AlertRule,
  type AlertState,
  type AlertStateStore,
  alertLink,
  applyMaintenance,
  applySilences,
  type CollectorRegistry,
  confirmSent,
  DEFAULT_CLAIM_LEASE_MS,
  deliveryTransition,
  type EngineTickStore,
  errorText,
  evaluateConditions,
  type Flip,
  failureSubjectParts,
  flipTransition,
  freshnessAnchors,
  type IntentItem,
  intentTransition,
  itemIdentity,
  Limiter,
  type MaintenanceStore,
  type MaintenanceWindow,
  type MutedNotice,
  markFailed,
  type NotificationIntent,
  notificationIntentId,
  owedKind,
  type QueueHealth,
  type RunStore,
  type Silence,
  type SilenceStore,
  type StepResult,
  type StoreHealth,
  step,
  type TransitionStore,
} from "@monitor/core";
import type { Logger } from "@shared/kernel";
import {
  type Channel,
  channelsFromEnv,
  createChannels,
  type DeliveryLog,
  deliver,
  InMemoryDeliveryLog,
  type Notification,
  type NotificationAlert,
  overallStatus,
} from "@shared/notify";
import { alertInput, type FiringAlertJson, firingAlerts, readSnapshot } from "./evaluate.ts";
import type { Heartbeat } from "./heartbeat.ts";
import { SilenceMatchMemo } from "./silence-matches.ts";

export const DEFAULT_ALERT_EVAL_INTERVAL_MS = 60_000;
/** Ticks are never closer than this, even when a retry is due sooner. */
const MIN_DELAY_MS = 1000;

/** The kernel's Logger port, under the name this engine's callers know. */
export type AlertEngineLogger = Logger;

export interface AlertEngineDeps {
  store: RunStore;
  registry: CollectorRegistry;
  stateStore: AlertStateStore;
  /**
   * None configured: alerts are still evaluated, stored and shown, and nothing is sent or attempted;
   * what they owe is sent at the first tick of an engine that has a channel.
   */
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
  /**
   * Base URL of the monitor's web UI (`MONITOR_PUBLIC_URL`): each alert of a notification links to
   * `<publicUrl>/system#<subject>`. A function is asked at each delivery (e.g. a server's own URL,
   * known once it listens). Absent or null: the alerts carry `generatorURL: null`.
   */
  publicUrl?: string | null | (() => string | null);
  /**
   * Status changes and notifications as rows, claimed before sending, and the alert state under
   * optimistic concurrency (docs/monitor-alerts.md "Transitions"). With it, several engines may tick
   * over the same stores at once: each notification is sent by the one that claimed it. `stateStore`
   * then only mirrors the state for readers (and seeds it once, when the transition store has none).
   */
  transitions?: TransitionStore;
  /**
   * Silences: an alert a silence matches is muted by it (not sent) while the silence is in
   * effect; at its end (or expired early), if still firing and its start was not sent, it is notified
   * at the next tick. A store that cannot be read keeps the silences last read.
   */
  silences?: SilenceStore;
  /**
   * Maintenance windows: while one is in effect, the alerts it covers are muted by it (as by a
   * silence), and after it ends the collectors it covered count their freshness from its end. A
   * store that cannot be read keeps the windows last read.
   */
  maintenance?: MaintenanceStore;
  /** This engine's name in claims. Default `<host>:<pid>:<random>`. */
  claimant?: string;
  /** How long a claim holds before another engine may take it (a crash between claim and send). */
  claimLeaseMs?: number;
  /**
   * Where each round is recorded once it completed (start, end, ok or its error, this engine's
   * claimant), for the status body's `alert_engine` (docs/monitor-alerts.md "The monitor watched").
   * A record that cannot be written is logged; the round's outcome is unchanged.
   */
  ticks?: EngineTickStore;
  /**
   * The outbound heartbeat (MONITOR_HEARTBEAT_URL): `start` as a round begins, `success` after a
   * healthy one, `fail` with the reason after a failed one. A ping never fails the round; each is
   * bounded by its timeout.
   */
  heartbeat?: Heartbeat;
}

export interface TickResult {
  flips: Flip[];
  /** Intent ids delivered / failed in this tick. */
  delivered: string[];
  failed: string[];
  /** Intent ids not sent here because another engine holds their claim (with `transitions`). */
  claimedElsewhere?: string[];
  /**
   * With no channel configured: the alerts (keys) that owe a notification, held until a channel is
   * configured (nothing was attempted). Empty with a channel.
   */
  held: string[];
}

/** Per-alert transition writes (record, claim, mark sent, release) in flight at once. */
const ITEM_WRITES_IN_FLIGHT = 16;

/** Saves of the state retried after a version conflict before the tick gives up. */
const MAX_STATE_CONFLICTS = 5;

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

/** Longest `summary` of one alert (one line). */
const MAX_SUMMARY_CHARS = 300;
/** Longest `lastError` of one alert (as the delivery log's errors). */
const MAX_LAST_ERROR_CHARS = 500;

function clip(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join("")}…`;
}
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Alertmanager-style labels: what identifies the alert (rule = `alertname`, subject and its parts). */
function alertLabels(rule: AlertRule, subject: string, severity: string): Record<string, string> {
  const labels: Record<string, string> = { alertname: rule, rule, subject, severity, source: "monitor" };
  if (rule === "collector_failure" || rule === "collector_hung") {
    const p = failureSubjectParts(subject);
    Object.assign(labels, { collector: p.collector, cloud_account_id: p.account, cloud_region: p.region });
  } else if (rule === "collector_stale") labels.collector = subject;
  else if (rule === "account_no_access" || rule === "account_unscanned") labels.cloud_account_id = subject;
  else if (rule === "dead_letter_queue") labels.queue = subject;
  return labels;
}

/** One alert of a notification (`Notification.alerts`, docs/notifications.md). */
export function notificationAlert(
  intent: Pick<NotificationIntent, "rule" | "severity">,
  item: IntentItem,
  publicUrl: string | null = null,
): NotificationAlert {
  const status = item.kind === "resolve" ? "resolved" : "firing";
  const detail = clip(oneLine(item.detail), MAX_SUMMARY_CHARS);
  const summary =
    status === "resolved"
      ? clip(`${intent.rule} ${item.subject} resolved (was: ${detail})`, MAX_SUMMARY_CHARS)
      : detail;
  const lastError =
    item.lastError === null || item.lastError === undefined || item.lastError === ""
      ? null
      : clip(item.lastError, MAX_LAST_ERROR_CHARS);
  const generatorURL = alertLink(publicUrl, intent.rule, item.subject);
  return {
    fingerprint: item.fingerprint,
    status,
    kind: KIND[item.kind],
    startsAt: isoOrNull(item.startsAt ?? null),
    endsAt: isoOrNull(item.endsAt ?? null),
    severity: intent.severity,
    rule: intent.rule,
    subject: item.subject,
    summary,
    lastError,
    generatorURL,
    labels: alertLabels(intent.rule, item.subject, intent.severity),
    annotations: {
      summary,
      ...(lastError === null ? {} : { last_error: lastError }),
      ...(generatorURL === null ? {} : { link: generatorURL }),
    },
  };
}

/**
 * One notification per intent: rule, severity, the subject (or a count), every item in `details`,
 * and each alert (`alerts`: fingerprint, status, startsAt/endsAt, summary, last error, link) with the
 * overall `status` (`resolved` only when every alert is).
 */
export function intentNotification(
  intent: NotificationIntent,
  options: { publicUrl?: string | null } = {},
): Notification {
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
  const alerts = items.map((i) => notificationAlert(intent, i, options.publicUrl ?? null));
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
    status: overallStatus(alerts),
    alerts,
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

/** The delivery-log record of an alert held back by a mute: channel `*`, attempt 0, not ok, `muted`. */
export function mutedAttempt(notice: MutedNotice, at: number) {
  const m = notice.mutedBy;
  const by =
    m === null
      ? "mute"
      : m.kind === "silence" || m.kind === "maintenance"
        ? `${m.kind}|${m.id}`
        : `${m.rule}|${m.subject}`;
  return {
    notificationId: notice.id,
    channel: "*",
    attempt: 0,
    at: new Date(at).toISOString(),
    ok: false,
    durationMs: 0,
    muted: { by, reason: clip(notice.reason ?? `muted by ${by}`, MAX_LAST_ERROR_CHARS) },
  };
}

export class AlertEngine {
  readonly #d: AlertEngineDeps;
  #silences: readonly Silence[] = [];
  #maintenance: readonly MaintenanceWindow[] = [];
  /** Which silence regexes match which subjects, kept from one tick to the next. */
  readonly #silenceMatches = new SilenceMatchMemo();
  readonly #intervalMs: number;
  #running: Promise<TickResult> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = true;
  #abort = new AbortController();
  /** Earliest retry time seen by the last tick, for scheduling. */
  #nextDue: number | null = null;
  readonly #claimant: string;
  readonly #leaseMs: number;
  readonly #itemWrites = new Limiter(ITEM_WRITES_IN_FLIGHT);

  constructor(deps: AlertEngineDeps) {
    this.#d = deps;
    this.#intervalMs = deps.intervalMs ?? DEFAULT_ALERT_EVAL_INTERVAL_MS;
    this.#claimant = deps.claimant ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.#leaseMs = deps.claimLeaseMs ?? DEFAULT_CLAIM_LEASE_MS;
  }

  /** This engine's name in the claims it takes. */
  get claimant(): string {
    return this.#claimant;
  }

  /** One evaluation and delivery round. Concurrent calls share the round in progress. */
  tick(): Promise<TickResult> {
    if (this.#running !== null) return this.#running;
    const p = this.#watchedTick().finally(() => {
      this.#running = null;
    });
    this.#running = p;
    return p;
  }

  /**
   * The round, watched: the heartbeat's `start` goes out beside it (awaited before the round's
   * outcome is pinged, so the switch sees them in order), then the round is recorded and its outcome
   * pinged. Neither may change the round's result or error.
   */
  async #watchedTick(): Promise<TickResult> {
    const { heartbeat, ticks, log } = this.#d;
    const tickAt = this.#d.now();
    const started = heartbeat?.ping("start");
    let result: TickResult | undefined;
    let failure: { error: unknown } | null = null;
    try {
      result = await this.#tick();
    } catch (error) {
      failure = { error };
    }
    const completedAt = this.#d.now();
    const reason = failure === null ? null : errorText(failure.error);
    await Promise.all([
      ticks
        ?.record({
          tick_at: tickAt,
          completed_at: completedAt,
          duration_ms: Math.max(0, completedAt - tickAt),
          ok: failure === null,
          error: reason,
          claimant: this.#claimant,
          interval_ms: this.#intervalMs,
        })
        .catch((err: unknown) => log.warn("alerts: engine tick not recorded", { error: String(err) })),
      heartbeat === undefined
        ? undefined
        : started
            ?.then(() => (failure === null ? heartbeat.ping("success") : heartbeat.ping("fail", reason)))
            .catch((err: unknown) => log.warn("alerts: heartbeat", { error: String(err) })),
    ]);
    if (failure !== null) throw failure.error;
    return result as TickResult;
  }

  /** The interval between this engine's rounds (ms). */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  async #readSilences(): Promise<readonly Silence[]> {
    const store = this.#d.silences;
    if (store === undefined) return [];
    try {
      this.#silences = await store.list();
    } catch (err) {
      this.#d.log.warn("alerts: silences unavailable, the last read apply", { error: String(err) });
    }
    return this.#silences;
  }

  async #readMaintenance(): Promise<readonly MaintenanceWindow[]> {
    const store = this.#d.maintenance;
    if (store === undefined) return [];
    try {
      this.#maintenance = await store.list();
    } catch (err) {
      this.#d.log.warn("alerts: maintenance windows unavailable, the last read apply", {
        error: String(err),
      });
    }
    return this.#maintenance;
  }

  async #tick(): Promise<TickResult> {
    const { store, registry, channels, deliveryLog, log } = this.#d;
    const transitions = this.#d.transitions;
    const now = this.#d.now();
    const specs = await registry.list();
    // The independent reads at once: the alert state (for the first attempt of the save below), the
    // status queries, the database's health, the queues and the silences.
    const stateRead = this.#readState();
    stateRead.catch(() => {}); // awaited by #stepAndSave; a failure there fails the tick as before
    const [snapshot, db, queues, silences, windows] = await Promise.all([
      readSnapshot(store, specs, now),
      store.dbHealth().catch((err: unknown): StoreHealth | null => {
        log.warn("alerts: disk usage unavailable", { error: String(err) });
        return null;
      }),
      this.#d.queues === undefined
        ? ([] as QueueHealth[])
        : this.#d.queues().catch((err: unknown): QueueHealth[] | null => {
            log.warn("alerts: queue health unavailable", { error: String(err) });
            return null;
          }),
      this.#readSilences(),
      this.#readMaintenance(),
    ]);
    const input = alertInput(specs, snapshot, db, now, queues, freshnessAnchors(windows, now));
    // With no channel nothing is emitted (nor claimed, nor backed off): what is owed stays owed, and
    // the first tick with a channel sends it.
    const canDeliver = channels.length > 0;
    // Subject regexes are tested ahead of the step, in slices that give the event loop back, against
    // the conditions of the state read first (after a conflict, a new subject is tested in the step).
    const memo = this.#silenceMatches;
    if (silences.some((s) => s.matchers.subject?.op === "regex")) {
      const first = await stateRead.catch(() => null);
      if (first !== null) await memo.warm(silences, evaluateConditions(input, now, first.state), now);
    }
    // Saved before delivering: the leases and startEmitted survive a crash mid-delivery.
    const saved = await this.#stepAndSave(
      (previous) =>
        step(
          previous,
          applySilences(
            applyMaintenance(evaluateConditions(input, now, previous), windows, now),
            silences,
            now,
            memo.matches,
          ),
          now,
          { deliver: canDeliver },
        ),
      stateRead,
    ).finally(() => memo.endTick());
    if (saved === null) return { flips: [], delivered: [], failed: [], claimedElsewhere: [], held: [] };
    const result = saved.result;
    const held = canDeliver
      ? []
      : Object.keys(result.state.alerts).filter(
          (key) => owedKind(result.state.alerts[key] as AlertRecord, now) !== null,
        );
    for (const f of result.flips) {
      log.info("alert flip", { key: f.key, from: f.from, to: f.to, severity: f.severity, muted: f.muted });
    }
    if (transitions !== undefined) {
      // Each status change and each owed notification is a row (idempotent by its id).
      for (const f of result.flips) {
        await transitions.record(flipTransition(f, result.state.alerts[f.key]?.episode ?? 0));
      }
      for (const intent of result.notifications) {
        await transitions.record(intentTransition(intent));
        await this.#eachItem(intent.items, (item) => transitions.record(deliveryTransition(intent, item)));
      }
      // Never sent under their own id any more: out of `unsent` (a no-op when already sent). Those the
      // step dropped from the outbox, and unsent ones (a failed send, released) whose items this step
      // emitted again under another id.
      const retire = new Set(saved.superseded);
      if (result.notifications.length > 0) {
        const ids = new Set(result.notifications.map((n) => n.id));
        const items = new Set(result.notifications.flatMap((n) => n.items.map(owedSlot)));
        for (const row of await transitions.unsent(now)) {
          const owed = (row.data as Partial<NotificationIntent> | null)?.items ?? [];
          if (!ids.has(row.id) && owed.some((i) => items.has(owedSlot(i)))) retire.add(row.id);
        }
      }
      for (const id of retire) await transitions.retire(id, now);
    }
    // Held back by a mute: the delivery log says so (muted, not sent), once per episode.
    for (const m of result.muted) {
      const attempt = mutedAttempt(m, now);
      log.info("alert muted", {
        key: m.key,
        kind: m.kind,
        by: attempt.muted.by,
        reason: attempt.muted.reason,
      });
      try {
        await deliveryLog.record(attempt);
      } catch (err) {
        log.warn("alerts: delivery log", { error: `recording muted ${m.key}: ${String(err)}` });
      }
    }

    const delivered: string[] = [];
    const failed: string[] = [];
    const claimedElsewhere: string[] = [];
    const confirmations: Confirmation[] = [];
    for (const intent of result.notifications) {
      let send = intent;
      /** Items another engine confirmed sent: settled here without sending. */
      let settled: string[] = [];
      if (transitions !== undefined) {
        // Claimed before sending: exactly one engine wins the conditional write.
        const claim = await transitions.claim(intent.id, this.#claimant, this.#d.now(), this.#leaseMs);
        if (!claim.ok) {
          claimedElsewhere.push(intent.id);
          // Sent already (by another engine, or before a crash that lost the confirmation).
          if (claim.sent) confirmations.push({ intent, at: this.#d.now(), error: null });
          log.info("alerts: notification claimed by another sender", {
            id: intent.id,
            heldBy: claim.heldBy,
            sent: claim.sent,
          });
          continue;
        }
        // Then each alert's item: another engine may hold the same item in a notification it grouped
        // differently (it saw one more alert, or retried on another schedule).
        const items = await this.#claimItems(transitions, intent);
        settled = items.settled;
        if (items.won.length < intent.items.length) {
          log.info("alerts: items of a notification claimed by another sender", {
            id: intent.id,
            sending: items.won.length,
            sentElsewhere: items.settled.length,
            heldElsewhere: intent.items.length - items.won.length - items.settled.length,
          });
        }
        if (items.won.length === 0) {
          claimedElsewhere.push(intent.id);
          if (settled.length === intent.items.length)
            await transitions.markSent(intent.id, this.#claimant, this.#d.now());
          else await transitions.release(intent.id, this.#claimant);
          if (settled.length > 0)
            confirmations.push({ intent, at: this.#d.now(), error: null, only: new Set(settled) });
          continue;
        }
        if (items.won.length < intent.items.length) {
          // Its own id, as the idempotency key of what this message carries.
          send = {
            ...intent,
            id: notificationIntentId(intent.rule, items.won.map(itemIdentity)),
            items: items.won,
          };
        }
      }
      let error: string | null = null;
      const p = this.#d.publicUrl;
      const publicUrl = typeof p === "function" ? p() : (p ?? null);
      const outcome = await deliver(intentNotification(send, { publicUrl }), channels, deliveryLog, {
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
      const at = this.#d.now();
      const partial = send !== intent;
      if (error === null) {
        delivered.push(intent.id);
        if (transitions !== undefined) {
          const marked = await this.#eachItem(send.items, (item) =>
            transitions.markSent(deliveryTransition(intent, item).id, this.#claimant, at),
          );
          let held = marked.every(Boolean);
          if (partial && settled.length + send.items.length < intent.items.length)
            await transitions.release(intent.id, this.#claimant);
          else held &&= await transitions.markSent(intent.id, this.#claimant, at);
          if (!held) log.warn("alerts: sent after the claim's lease was taken over", { id: intent.id });
        }
      } else {
        failed.push(intent.id);
        if (transitions !== undefined) {
          await this.#eachItem(send.items, (item) =>
            transitions.release(deliveryTransition(intent, item).id, this.#claimant),
          );
          await transitions.release(intent.id, this.#claimant);
        }
        log.warn("alert delivery failed", { id: intent.id, rule: intent.rule, error });
      }
      confirmations.push({
        intent,
        at,
        error,
        ...(partial ? { only: new Set([...send.items.map(itemIdentity), ...settled]) } : {}),
      });
    }
    let state = result.state;
    if (confirmations.length > 0)
      state = await this.#saveConfirmations(confirmations, result.state, saved.version);
    this.#nextDue = earliestRetry(state);
    return {
      flips: result.flips,
      delivered,
      failed,
      ...(transitions !== undefined ? { claimedElsewhere } : {}),
      held,
    };
  }

  /**
   * Claims each item of a claimed notification: `won` are this engine's to send, `settled` (their
   * identities) were confirmed sent by another engine; the rest are under another engine's live lease.
   */
  async #claimItems(
    transitions: TransitionStore,
    intent: NotificationIntent,
  ): Promise<{ won: IntentItem[]; settled: string[] }> {
    const claims = await this.#eachItem(intent.items, (item) =>
      transitions.claim(deliveryTransition(intent, item).id, this.#claimant, this.#d.now(), this.#leaseMs),
    );
    return {
      won: intent.items.filter((_, i) => claims[i]?.ok === true),
      settled: intent.items.filter((_, i) => claims[i]?.ok === false && claims[i].sent).map(itemIdentity),
    };
  }

  /**
   * `write` for each item, at most ITEM_WRITES_IN_FLIGHT at once, results in the items' order: a
   * storm of alerts is one conditional write per alert, which one after another would take seconds
   * on DynamoDB.
   */
  #eachItem<T>(items: readonly IntentItem[], write: (item: IntentItem) => Promise<T>): Promise<T[]> {
    return Promise.all(items.map((item) => this.#itemWrites.run(() => write(item))));
  }

  /** The stored state and its version (0 without a transition store, or before its first save). */
  async #readState(): Promise<{ state: AlertState; version: number }> {
    const t = this.#d.transitions;
    if (t === undefined) return { state: await this.#d.stateStore.load(), version: 0 };
    const read = await t.readState();
    // Seeded once from the state document kept before the transition store existed.
    return read.version === 0 ? { state: await this.#d.stateStore.load(), version: 0 } : read;
  }

  /** Writes the state's copy for readers (the status endpoint); the transition store's is the truth. */
  async #mirror(state: AlertState): Promise<void> {
    try {
      await this.#d.stateStore.save(state);
    } catch (err) {
      this.#d.log.warn("alerts: state mirror not saved", { error: String(err) });
    }
  }

  /**
   * One evaluation saved: with a transition store, against the version it was computed from; on a
   * conflict (another engine saved in between) it is computed again from the newer state. Null when
   * the state kept changing.
   */
  async #stepAndSave(
    evaluate: (previous: AlertState) => StepResult,
    firstRead?: Promise<{ state: AlertState; version: number }>,
  ): Promise<{ result: StepResult; version: number; superseded: string[] } | null> {
    const t = this.#d.transitions;
    if (t === undefined) {
      const result = evaluate((await (firstRead ?? this.#readState())).state);
      await this.#d.stateStore.save(result.state);
      return { result, version: 0, superseded: [] };
    }
    for (let i = 0; i < MAX_STATE_CONFLICTS; i++) {
      // The state read at the start of the tick first; after a conflict, a fresh read.
      const { state: previous, version } = await (i === 0 && firstRead !== undefined
        ? firstRead
        : this.#readState());
      const result = evaluate(previous);
      const put = await t.putState(result.state, version);
      if (put.ok) {
        await this.#mirror(result.state);
        // Intents the step dropped from the outbox: their items were re-emitted in a newer intent.
        const superseded = Object.keys(previous.outbox).filter((id) => result.state.outbox[id] === undefined);
        return { result, version: put.version, superseded };
      }
      this.#d.log.info("alerts: state saved by another engine meanwhile; evaluating again", {
        expected: version,
        stored: put.version,
      });
    }
    this.#d.log.warn("alerts: state kept changing under this tick; skipped", { tries: MAX_STATE_CONFLICTS });
    return null;
  }

  /** Applies the tick's confirmations to the latest state (again after each conflict) and saves it. */
  async #saveConfirmations(
    confirmations: Confirmation[],
    state: AlertState,
    version: number,
  ): Promise<AlertState> {
    const apply = (s: AlertState) =>
      confirmations.reduce(
        (acc, c) =>
          c.error === null
            ? confirmSent(acc, c.intent, c.at, c.only)
            : markFailed(acc, c.intent.id, c.at, c.error),
        s,
      );
    const t = this.#d.transitions;
    if (t === undefined) {
      const next = apply(state);
      await this.#d.stateStore.save(next);
      return next;
    }
    let base = { state, version };
    for (let i = 0; i < MAX_STATE_CONFLICTS; i++) {
      const next = apply(base.state);
      const put = await t.putState(next, base.version);
      if (put.ok) {
        await this.#mirror(next);
        return next;
      }
      base = await this.#readState();
    }
    throw new Error("alerts: delivery confirmations not saved: the state kept changing");
  }

  /** The firing alerts of the stored state (the status body's `alerts`). */
  async firingAlerts(): Promise<FiringAlertJson[]> {
    return firingAlerts((await this.#readState()).state);
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

/** An owed item regardless of the instant it is about: the same slot retried under a newer id. */
const owedSlot = (i: Pick<IntentItem, "key" | "kind" | "episode">) => `${i.key}|${i.kind}|${i.episode}`;

interface Confirmation {
  intent: NotificationIntent;
  at: number;
  /** Null: delivered. */
  error: string | null;
  /** Identities of the items confirmed; absent: all (the others stay owed). */
  only?: ReadonlySet<string>;
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
