/**
 * One story per collector and per alert: its runs (with durations), the alerts' status changes
 * (flips), the notifications sent for them with each channel's delivery result, and the silences and
 * maintenance that held them back, in time order. Pure: the sources are read by `readTimeline`
 * (timeline-read.ts); this module only selects what belongs to the subject and orders it.
 */
import {
  ALERT_RULES,
  type AlertRule,
  type CollectorRunRow,
  type Flip,
  failureSubjectParts,
  type NotificationIntent,
  type Silence,
  silenceMatches,
} from "@monitor/core";
import type { DeliveryAttempt } from "@shared/notify";

/** Events of one timeline, at most (the newest are kept). */
export const DEFAULT_TIMELINE_EVENTS = 200;
export const MAX_TIMELINE_EVENTS = 1000;
/** The span a timeline covers by default, and at most. */
export const DEFAULT_TIMELINE_DAYS = 7;
export const MAX_TIMELINE_DAYS = 31;
/** Notifications whose delivery results are read for one timeline, at most (the newest). */
export const MAX_TIMELINE_NOTIFICATIONS = 100;

/** A timeline is about one collector (its runs and every alert about it) or one alert. */
export type TimelineSubject = { collector: string } | { rule: AlertRule; subject: string };

export interface TimelineQuery {
  about: TimelineSubject;
  since: number;
  until: number;
  limit: number;
}

export type TimelineEvent =
  | {
      kind: "run";
      at: number;
      summary: string;
      run: {
        run_id: string;
        collector: string;
        cloud_account_id: string;
        cloud_region: string;
        status: string;
        started_at: number;
        duration_ms: number | null;
        error: string;
      };
    }
  | {
      kind: "flip";
      at: number;
      summary: string;
      rule: string;
      subject: string;
      from: string | null;
      to: string;
      muted: boolean;
    }
  | {
      kind: "notification";
      at: number;
      summary: string;
      rule: string;
      notification_id: string;
      items: { subject: string; kind: string }[];
      deliveries: { channel: string; attempt: number; at: number; ok: boolean; error: string | null }[];
    }
  | {
      kind: "silence";
      at: number;
      summary: string;
      silence_id: string;
      edge: "start" | "end";
      author: string;
      reason: string;
    }
  | {
      kind: "window";
      at: number;
      summary: string;
      window_id: string;
      edge: "start" | "end";
      reason: string;
    };

/** The rules whose alerts are about a collector: their subject is it, or `<collector>/<account>/<region>`. */
const COLLECTOR_RULES: ReadonlySet<string> = new Set(ALERT_RULES.filter((r) => r.startsWith("collector_")));

/** Whether the alert `rule|subject` is about what the timeline is about. */
export function alertBelongs(about: TimelineSubject, rule: string, subject: string): boolean {
  if ("rule" in about) return about.rule === rule && about.subject === subject;
  if (!COLLECTOR_RULES.has(rule)) return false;
  return subject === about.collector || failureSubjectParts(subject).collector === about.collector;
}

export interface TimelineSources {
  /** The collector's runs (newest first is fine); ignored for an alert's timeline that is not a collector's. */
  runs: readonly CollectorRunRow[];
  flips: readonly Flip[];
  notifications: readonly { intent: NotificationIntent; at: number; attempts: readonly DeliveryAttempt[] }[];
  silences: readonly Silence[];
  /** Maintenance windows' occurrences that cover the subject, as start and end edges. */
  windows?: readonly { id: string; start: number; end: number; reason: string }[];
}

const fmtDuration = (ms: number | null) =>
  ms === null ? "" : ms < 60_000 ? ` in ${(ms / 1000).toFixed(1)} s` : ` in ${Math.round(ms / 60_000)} min`;

/** The events of `sources` about `query.about` within [since, until], oldest first, the newest `limit` kept. */
export function buildTimeline(
  query: TimelineQuery,
  sources: TimelineSources,
): { events: TimelineEvent[]; truncated: boolean } {
  const { about, since, until } = query;
  const within = (at: number) => at >= since && at <= until;
  const events: TimelineEvent[] = [];
  const collector = "collector" in about ? about.collector : alertCollector(about);

  if (collector !== null) {
    for (const r of sources.runs) {
      if (r.collector !== collector || !within(r.completed_at)) continue;
      if ("rule" in about && !runBelongs(about, r)) continue;
      const duration = r.duration_ms ?? null;
      events.push({
        kind: "run",
        at: r.completed_at,
        summary: `run ${r.status} on ${r.cloud_account_id}/${r.cloud_region}${fmtDuration(duration)}${r.error ? `: ${r.error}` : ""}`,
        run: {
          run_id: r.run_id,
          collector: r.collector,
          cloud_account_id: r.cloud_account_id,
          cloud_region: r.cloud_region,
          status: r.status,
          started_at: r.started_at,
          duration_ms: duration,
          error: r.error,
        },
      });
    }
  }

  const alerts = new Set<string>();
  for (const f of sources.flips) {
    if (!alertBelongs(about, f.rule, f.subject)) continue;
    alerts.add(`${f.rule}|${f.subject}`);
    if (!within(f.at)) continue;
    events.push({
      kind: "flip",
      at: f.at,
      summary: `${f.rule} ${f.subject}: ${f.from ?? "new"} → ${f.to}${f.muted ? " (muted: not notified)" : ""}`,
      rule: f.rule,
      subject: f.subject,
      from: f.from,
      to: f.to,
      muted: f.muted,
    });
  }
  if ("rule" in about) alerts.add(`${about.rule}|${about.subject}`);

  for (const n of sources.notifications) {
    const items = n.intent.items.filter((i) => alertBelongs(about, n.intent.rule, i.subject));
    if (items.length === 0 || !within(n.at)) continue;
    const deliveries = n.attempts.map((a) => ({
      channel: a.channel,
      attempt: a.attempt,
      at: Date.parse(a.at),
      ok: a.ok,
      error: a.muted ? `held back: ${a.muted.reason}` : (a.error ?? null),
    }));
    const sent = deliveries.filter((d) => d.ok).map((d) => d.channel);
    const failed = deliveries.filter((d) => !d.ok).length;
    events.push({
      kind: "notification",
      at: n.at,
      summary:
        `${n.intent.rule} ${items.map((i) => i.kind).join(", ")} notification: ` +
        (sent.length > 0 ? `delivered to ${[...new Set(sent)].join(", ")}` : "not delivered") +
        (failed > 0 ? ` (${failed} failed attempt${failed === 1 ? "" : "s"})` : ""),
      rule: n.intent.rule,
      notification_id: n.intent.id,
      items: items.map((i) => ({ subject: i.subject, kind: i.kind })),
      deliveries,
    });
  }

  // A silence belongs when it matches one of the subject's alerts (or, for a collector with no alert
  // yet, its stale alert: the silence an operator sets ahead of planned work).
  const candidates = [...alerts].map((k) => {
    const [rule, subject] = k.split("|") as [AlertRule, string];
    return { rule, subject };
  });
  if (collector !== null && "collector" in about)
    candidates.push({ rule: "collector_stale", subject: collector });
  for (const s of sources.silences) {
    if (!candidates.some((c) => silenceMatches(s, c))) continue;
    const who = `${s.author}: ${s.reason}`;
    if (within(s.startsAt))
      events.push({
        kind: "silence",
        at: s.startsAt,
        summary: `silence starts (${who})`,
        silence_id: s.id,
        edge: "start",
        author: s.author,
        reason: s.reason,
      });
    if (within(s.endsAt))
      events.push({
        kind: "silence",
        at: s.endsAt,
        summary: `silence ends (${who})`,
        silence_id: s.id,
        edge: "end",
        author: s.author,
        reason: s.reason,
      });
  }

  for (const w of sources.windows ?? []) {
    if (within(w.start))
      events.push({
        kind: "window",
        at: w.start,
        summary: `maintenance starts: ${w.reason}`,
        window_id: w.id,
        edge: "start",
        reason: w.reason,
      });
    if (within(w.end))
      events.push({
        kind: "window",
        at: w.end,
        summary: `maintenance ends: ${w.reason}`,
        window_id: w.id,
        edge: "end",
        reason: w.reason,
      });
  }

  // Time order; at one instant a run before the flip it caused, the flip before its notification.
  const RANK = { run: 0, window: 1, silence: 2, flip: 3, notification: 4 } as const;
  events.sort((a, b) => a.at - b.at || RANK[a.kind] - RANK[b.kind]);
  const truncated = events.length > query.limit;
  return { events: truncated ? events.slice(events.length - query.limit) : events, truncated };
}

/** The collector an alert is about, or null (an account, a queue, the disk). */
function alertCollector(about: { rule: AlertRule; subject: string }): string | null {
  if (!COLLECTOR_RULES.has(about.rule)) return null;
  return failureSubjectParts(about.subject).collector;
}

/** A `collector/account/region` alert's runs are that series'; a collector-wide alert's, all of them. */
function runBelongs(about: { rule: AlertRule; subject: string }, r: CollectorRunRow): boolean {
  const parts = about.subject.split("/");
  if (parts.length < 3) return true;
  const { account, region } = failureSubjectParts(about.subject);
  return r.cloud_account_id === account && r.cloud_region === region;
}
