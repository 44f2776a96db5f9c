/**
 * Alert state machine, modelled on healthchecks.io's Flip + Notification: `step` turns the
 * conditions of one evaluation into status changes (flips) and notification intents (an outbox);
 * the caller delivers the intents and confirms each with `markDelivered` or `markFailed`.
 * Pure: no I/O, `now` is a parameter, and the state is plain JSON (persist it after every call).
 */
import { type EpochMs, HOUR_MS, MINUTE_MS } from "../records.ts";
import { notificationIntentId } from "./intent-id.ts";
import { type AlertRule, alertFingerprint, type Condition, type MutedBy, type Severity } from "./types.ts";

export type AlertStatus = "firing" | "resolved";
export type NotificationKind = "start" | "reminder" | "resolve";

export const REMIND_EVERY_MS: Record<Severity, number> = { warning: 4 * HOUR_MS, critical: HOUR_MS };
export const RETRY_BASE_MS = 30_000;
export const RETRY_CAP_MS = 30 * MINUTE_MS;
/** Resolved alerts with nothing owed are dropped from the state after this long. */
export const RESOLVED_RETENTION_MS = 7 * 24 * HOUR_MS;

export interface DeliveryAttempt {
  kind: NotificationKind;
  episode: number;
  /** Attempts made so far for this kind in this episode (1 after the first emission). */
  attempt: number;
  /** The item is not emitted again before this time (backoff; also a lease while in flight). */
  nextAttemptAt: EpochMs;
  lastError: string | null;
}

export interface AlertRecord {
  rule: AlertRule;
  subject: string;
  severity: Severity;
  detail: string;
  status: AlertStatus;
  /** When the current status began. */
  since: EpochMs;
  /** Firing episodes so far; a re-fire after a resolve starts a new episode. */
  episode: number;
  muted: boolean;
  /** What holds it back, while muted (absent in states saved before it existed). */
  mutedBy?: MutedBy | null;
  /** Why it is muted, in words, while muted. */
  mutedReason?: string | null;
  /** Its being held back was reported (`StepResult.muted`) in this episode; reset when unmuted. */
  mutedNoted?: boolean;
  /**
   * When the current (or, once resolved, the last) firing episode started: the notifications'
   * `startsAt`, kept across restarts. Absent in states saved before it existed.
   */
  startedAt?: EpochMs;
  /** The last error text of the failing collector behind it, when known. */
  lastError?: string | null;
  /** A start notification of this episode was emitted (it may have reached someone). */
  startEmitted: boolean;
  /** The start notification of this episode was confirmed delivered. */
  notifiedStart: boolean;
  /** The resolve notification of this episode was confirmed delivered. */
  notifiedResolve: boolean;
  /** Last confirmed delivery of this episode (start, reminder or resolve); null if none. */
  lastNotifiedAt: EpochMs | null;
  /**
   * A firing notification (start or reminder) of this episode was confirmed sent after the episode
   * resolved, at this time: it may have reached a receiver after the resolve did, which an
   * Alertmanager reads as the alert firing again. The resolve is owed again, as a new notification
   * about this instant. Absent otherwise.
   */
  resolveAfter?: EpochMs;
  delivery: DeliveryAttempt | null;
}

export interface IntentItem {
  key: string;
  subject: string;
  kind: NotificationKind;
  episode: number;
  detail: string;
  /** `alertFingerprint(rule, subject)`: the same in the alert's firing, reminder and resolve items. */
  fingerprint: string;
  /** When the episode started firing (null: unknown, an alert stored before this was kept). */
  startsAt: EpochMs | null;
  /** When it resolved (resolve items only; null otherwise). */
  endsAt: EpochMs | null;
  /** The last error text of the failing collector behind the alert, when known. */
  lastError: string | null;
  /**
   * The instant the item is about: the status change (start, resolve) or, for a reminder, the delivery
   * it counts from. With key, kind and episode it is the item's identity (`itemIdentity`). Absent in
   * intents stored before it existed.
   */
  about?: EpochMs;
}

/**
 * An item's identity: the same when the item is emitted again (a retry, another evaluator, another
 * grouping), different for the next reminder or a re-owed resolve. Notification ids hash these, and
 * the alert engine claims each one before sending it.
 */
export function itemIdentity(item: Pick<IntentItem, "key" | "kind" | "episode" | "about">): string {
  return `${item.key}|${item.kind}|${item.episode}|${item.about ?? ""}`;
}

/**
 * A firing alert that owes a notification but is muted: reported once per episode (again after it was
 * unmuted and muted again), so the caller can record that it was held back, not sent.
 */
export interface MutedNotice {
  /** The id its notification would have had (the same id a later, unmuted start of it alone gets). */
  id: string;
  key: string;
  rule: AlertRule;
  subject: string;
  severity: Severity;
  kind: "start" | "reminder";
  episode: number;
  fingerprint: string;
  startsAt: EpochMs | null;
  detail: string;
  mutedBy: MutedBy | null;
  reason: string | null;
}

/** One notification to send: all owed items of one rule in one step. */
export interface NotificationIntent {
  /**
   * `<rule>:<hash>` of the items (`notificationIntentId`): the same items emitted again (a retry, a
   * re-emission after a crash) get the same id, so it can serve as the notification's idempotency key.
   */
  id: string;
  rule: AlertRule;
  severity: Severity;
  createdAt: EpochMs;
  items: IntentItem[];
}

export interface Flip {
  key: string;
  rule: AlertRule;
  subject: string;
  severity: Severity;
  from: AlertStatus | null;
  to: AlertStatus;
  at: EpochMs;
  muted: boolean;
}

export interface AlertState {
  version: 1;
  /** Intents emitted so far (ids are content-derived, see `NotificationIntent.id`). */
  seq: number;
  alerts: Record<string, AlertRecord>;
  /** Emitted and not yet confirmed (delivered or failed) intents, by id. */
  outbox: Record<string, NotificationIntent>;
}

export interface StepResult {
  state: AlertState;
  flips: Flip[];
  notifications: NotificationIntent[];
  /** Alerts held back by a mute in this step (record them: muted, not sent). */
  muted: MutedNotice[];
}

/**
 * What an engine that has no notification channel reported as the failure of a notification. Such a
 * failure was no attempt of any channel: an item that failed only this way is owed at once, from a
 * first attempt, when a channel exists (states saved before `StepOptions.deliver` held it back).
 */
export const NO_CHANNEL_ERROR = "no notification channel configured";

export interface StepOptions {
  /**
   * False when there is nowhere to deliver (no notification channel is configured): flips, mutes and
   * the alerts' status are computed as always, but nothing is emitted. Owed items stay owed with no
   * attempt counted and no backoff, so the first step with a channel emits them at once; a start never
   * emitted owes no resolve. Default true.
   */
  deliver?: boolean;
}

export function emptyState(): AlertState {
  return { version: 1, seq: 0, alerts: {}, outbox: {} };
}

/** Exponential backoff: 30 s, 1 min, 2 min, … capped at 30 min. `attempt` counts from 1. */
export function nextRetryAt(
  attempt: number,
  now: EpochMs,
  baseMs: number = RETRY_BASE_MS,
  capMs: number = RETRY_CAP_MS,
): EpochMs {
  const n = Math.max(1, Math.floor(attempt));
  return now + Math.min(capMs, baseMs * 2 ** Math.min(n - 1, 30));
}

/** What the alert owes at `now`, ignoring backoff; null when nothing. */
export function owedKind(a: AlertRecord, now: EpochMs): NotificationKind | null {
  if (a.status === "firing") {
    if (a.muted) return null;
    if (!a.notifiedStart) return "start";
    const last = a.lastNotifiedAt ?? a.since;
    return now - last >= REMIND_EVERY_MS[a.severity] ? "reminder" : null;
  }
  if (!a.startEmitted || a.notifiedResolve) return null;
  // Resolved during a maintenance window that muted it: the resolve waits for the window's end.
  return a.muted && a.mutedBy?.kind === "maintenance" && now < a.mutedBy.endsAt ? null : "resolve";
}

function clone(state: AlertState): AlertState {
  return structuredClone(state);
}

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One evaluation: apply `conditions` (the complete set holding at `now`) to `previous`, returning the
 * new state, the status changes and the intents to deliver now. `previous` is not modified.
 */
export function step(
  previous: AlertState,
  conditions: readonly Condition[],
  now: EpochMs,
  options: StepOptions = {},
): StepResult {
  const deliver = options.deliver ?? true;
  const state = clone(previous);
  const flips: Flip[] = [];
  const holding = new Map<string, Condition>();
  for (const c of conditions) if (!holding.has(c.key)) holding.set(c.key, c);

  for (const [key, c] of holding) {
    const a = state.alerts[key];
    if (a === undefined || a.status === "resolved") {
      state.alerts[key] = {
        rule: c.rule,
        subject: c.subject,
        severity: c.severity,
        detail: c.detail,
        status: "firing",
        since: now,
        episode: (a?.episode ?? 0) + 1,
        muted: c.muted,
        mutedBy: c.muted ? (c.mutedBy ?? null) : null,
        mutedReason: c.muted ? (c.mutedReason ?? null) : null,
        mutedNoted: false,
        startedAt: now,
        lastError: c.lastError ?? null,
        startEmitted: false,
        notifiedStart: false,
        notifiedResolve: false,
        lastNotifiedAt: null,
        delivery: null,
      };
      flips.push(flip(key, c, a?.status ?? null, "firing", now, c.muted));
    } else {
      a.detail = c.detail;
      a.muted = c.muted;
      a.mutedBy = c.muted ? (c.mutedBy ?? null) : null;
      a.mutedReason = c.muted ? (c.mutedReason ?? null) : null;
      if (!c.muted) a.mutedNoted = false;
      a.startedAt ??= a.since;
      // A round that does not know the error (another run is the collector's latest) keeps the last one.
      a.lastError = c.lastError ?? a.lastError ?? null;
    }
  }
  for (const key of Object.keys(state.alerts).sort(byKey)) {
    const a = state.alerts[key] as AlertRecord;
    if (a.status !== "firing" || holding.has(key)) continue;
    a.startedAt ??= a.since;
    a.status = "resolved";
    a.since = now;
    flips.push(flip(key, a, "firing", "resolved", now, a.muted));
  }

  // Muted alerts that would owe a notification: reported once per episode (and after an unmute).
  const muted: MutedNotice[] = [];
  for (const key of Object.keys(state.alerts).sort(byKey)) {
    const a = state.alerts[key] as AlertRecord;
    if (a.status !== "firing" || !a.muted || a.mutedNoted === true) continue;
    const kind = a.notifiedStart ? "reminder" : "start";
    const about = kind === "reminder" ? (a.lastNotifiedAt ?? a.since) : a.since;
    a.mutedNoted = true;
    muted.push({
      id: notificationIntentId(a.rule, [`${key}|${kind}|${a.episode}|${about}`]),
      key,
      rule: a.rule,
      subject: a.subject,
      severity: a.severity,
      kind,
      episode: a.episode,
      fingerprint: alertFingerprint(a.rule, a.subject),
      startsAt: a.startedAt ?? a.since,
      detail: a.detail,
      mutedBy: a.mutedBy ?? null,
      reason: a.mutedReason ?? null,
    });
  }

  // Owed items, grouped per rule; an item in backoff (or in flight) waits for its nextAttemptAt.
  const groups = new Map<AlertRule, IntentItem[]>();
  const identities = new Map<AlertRule, string[]>();
  for (const key of Object.keys(state.alerts).sort(byKey)) {
    const a = state.alerts[key] as AlertRecord;
    const kind = owedKind(a, now);
    if (kind === null) {
      a.delivery = null;
      if (a.status === "resolved" && now - a.since >= RESOLVED_RETENTION_MS) delete state.alerts[key];
      continue;
    }
    // Nowhere to deliver: owed, not attempted (no lease, no backoff, startEmitted unchanged).
    if (!deliver) continue;
    const d = a.delivery;
    // A failure for want of a channel was no attempt: due now, counted from 1.
    const same = d !== null && d.kind === kind && d.episode === a.episode && d.lastError !== NO_CHANNEL_ERROR;
    if (same && now < d.nextAttemptAt) continue;
    const attempt = same ? d.attempt + 1 : 1;
    a.delivery = {
      kind,
      episode: a.episode,
      attempt,
      nextAttemptAt: nextRetryAt(attempt, now),
      lastError: same ? d.lastError : null,
    };
    if (kind === "start") a.startEmitted = true;
    // The instant the item is about: the status change (start, resolve) or, for a reminder, the
    // delivery it counts from. Stable while the item is retried; new for the next reminder, and for a
    // resolve owed again after a late firing notification.
    const about = aboutInstant(a, kind);
    const items = groups.get(a.rule) ?? [];
    items.push({
      key,
      subject: a.subject,
      kind,
      episode: a.episode,
      detail: a.detail,
      fingerprint: alertFingerprint(a.rule, a.subject),
      startsAt: a.startedAt ?? (a.status === "firing" ? a.since : null),
      endsAt: a.status === "resolved" ? a.since : null,
      lastError: a.lastError ?? null,
      about,
    });
    groups.set(a.rule, items);
    const ids = identities.get(a.rule) ?? [];
    ids.push(itemIdentity({ key, kind, episode: a.episode, about }));
    identities.set(a.rule, ids);
  }

  // An item re-emitted now supersedes its copy in an older, unconfirmed intent.
  const emitted = new Set<string>();
  for (const items of groups.values()) for (const i of items) emitted.add(i.key);
  for (const [id, intent] of Object.entries(state.outbox)) {
    intent.items = intent.items.filter((i) => !emitted.has(i.key));
    if (intent.items.length === 0) delete state.outbox[id];
  }

  const notifications: NotificationIntent[] = [];
  for (const rule of [...groups.keys()].sort(byKey)) {
    const items = groups.get(rule) as IntentItem[];
    state.seq += 1;
    const intent: NotificationIntent = {
      id: notificationIntentId(rule, identities.get(rule) as string[]),
      rule,
      severity: (state.alerts[(items[0] as IntentItem).key] as AlertRecord).severity,
      createdAt: now,
      items,
    };
    state.outbox[intent.id] = intent;
    notifications.push(structuredClone(intent));
  }
  return { state, flips, notifications, muted };
}

function flip(
  key: string,
  a: { rule: AlertRule; subject: string; severity: Severity },
  from: AlertStatus | null,
  to: AlertStatus,
  at: EpochMs,
  muted: boolean,
): Flip {
  return { key, rule: a.rule, subject: a.subject, severity: a.severity, from, to, at, muted };
}

function aboutInstant(a: AlertRecord, kind: NotificationKind): EpochMs {
  if (kind === "reminder") return a.lastNotifiedAt ?? a.since;
  if (kind === "resolve") return a.resolveAfter ?? a.since;
  return a.since;
}

/**
 * The caller confirms that intent `intentId` reached its channel. Items that still match their
 * alert's episode are marked notified. An unknown id (already confirmed, superseded) is a no-op.
 */
export function markDelivered(previous: AlertState, intentId: string, now: EpochMs): AlertState {
  const intent = previous.outbox[intentId];
  if (intent === undefined) return previous;
  return confirmSent(previous, intent, now);
}

/**
 * The caller sent `intent` (all its items, or those whose identity is in `only`) and knows it reached
 * its channel; the intent need not be in the outbox any more (another evaluator superseded it while it
 * was in flight). Items left out of `only` stay owed and are emitted again after their backoff.
 *
 * A firing item (start or reminder) confirmed after its episode resolved may have arrived after the
 * resolve: the resolve is owed again, about `now`, so the receiver's last word is "resolved".
 */
export function confirmSent(
  previous: AlertState,
  intent: NotificationIntent,
  now: EpochMs,
  only?: ReadonlySet<string>,
): AlertState {
  const state = clone(previous);
  delete state.outbox[intent.id];
  for (const item of intent.items) {
    if (only !== undefined && !only.has(itemIdentity(item))) continue;
    const a = state.alerts[item.key];
    if (a === undefined || a.episode !== item.episode) continue;
    if (item.kind === "resolve") {
      // A resolve about an earlier instant than the one now owed does not settle it.
      if (a.status !== "resolved" || (item.about ?? a.since) !== aboutInstant(a, "resolve")) continue;
      a.notifiedResolve = true;
    } else if (a.status === "resolved") {
      if (item.kind === "start") a.notifiedStart = true;
      a.notifiedResolve = false;
      // Strictly later than the resolve already sent, so the new one is a new item (and id).
      a.resolveAfter = Math.max(now, aboutInstant(a, "resolve") + 1);
      if (a.delivery?.kind === "resolve") a.delivery = null;
      continue;
    }
    if (item.kind === "start") a.notifiedStart = true;
    a.lastNotifiedAt = now;
    if (a.delivery !== null && a.delivery.kind === item.kind && a.delivery.episode === item.episode) {
      a.delivery = null;
    }
  }
  return state;
}

/**
 * The caller reports that delivering `intentId` failed. Nothing is marked notified; each item is
 * retried by a later `step` at `nextRetryAt(attempt, now)` and the error is kept on the alert.
 */
export function markFailed(previous: AlertState, intentId: string, now: EpochMs, error: string): AlertState {
  const intent = previous.outbox[intentId];
  if (intent === undefined) return previous;
  const state = clone(previous);
  delete state.outbox[intentId];
  for (const item of intent.items) {
    const d = state.alerts[item.key]?.delivery;
    if (d == null || d.kind !== item.kind || d.episode !== item.episode) continue;
    d.nextAttemptAt = nextRetryAt(d.attempt, now);
    d.lastError = error;
  }
  return state;
}
