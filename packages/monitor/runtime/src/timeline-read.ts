/**
 * Reads what one timeline needs (timeline.ts) from the stores that already hold it: the collector's
 * runs from the run store, flips and notifications from the transition store (the rows the alert
 * engine claims before sending), each notification's delivery attempts from the delivery log, and the
 * silences. Every read is bounded; a store that is not configured leaves its part out and says so.
 */

import {
  type Flip,
  failureSubjectParts,
  type MaintenanceStore,
  maintenanceCovers,
  maintenanceCoversCollector,
  type NotificationIntent,
  type RunStore,
  type SilenceStore,
  type TransitionStore,
} from "@monitor/core";
import { nextWindow, windowActiveAt } from "@monitor/jobs";
import type { DeliveryLog } from "@shared/notify";
import {
  alertBelongs,
  buildTimeline,
  MAX_TIMELINE_NOTIFICATIONS,
  type TimelineEvent,
  type TimelineQuery,
  type TimelineSources,
} from "./timeline.ts";

/** Transition rows read for one timeline, at most (flips and notifications of every alert in the span). */
export const MAX_TIMELINE_TRANSITIONS = 5000;
/** Runs of the collector read for one timeline, at most (the run store's own bound). */
export const TIMELINE_RUNS = 200;

export interface TimelineReadDeps {
  store: RunStore;
  /** Flips and notifications; absent: the timeline has runs and silences only. */
  transitions?: TransitionStore;
  deliveryLog?: DeliveryLog;
  silences?: SilenceStore;
  /** Maintenance windows' occurrences about the subject in the span; absent: none. */
  windows?: (query: TimelineQuery) => Promise<NonNullable<TimelineSources["windows"]>>;
}

export interface Timeline {
  events: TimelineEvent[];
  /** More events than the limit: the newest are kept. */
  truncated: boolean;
  /** Which sources were read: without the transition store there are no flips nor notifications. */
  sources: { runs: boolean; alerts: boolean; deliveries: boolean; silences: boolean; maintenance: boolean };
}

export async function readTimeline(deps: TimelineReadDeps, query: TimelineQuery): Promise<Timeline> {
  const about = query.about;
  const runsOf =
    "collector" in about
      ? about.collector
      : about.rule.startsWith("collector_")
        ? failureSubjectParts(about.subject).collector
        : undefined;
  const [runs, rows, silences, windows] = await Promise.all([
    runsOf === undefined ? [] : deps.store.recentRuns(runsOf, { limit: TIMELINE_RUNS }),
    deps.transitions?.list({ since: query.since, limit: MAX_TIMELINE_TRANSITIONS }) ?? [],
    deps.silences?.list() ?? [],
    deps.windows?.(query) ?? [],
  ]);
  const flips: Flip[] = [];
  const intents: { intent: NotificationIntent; at: number }[] = [];
  for (const row of rows) {
    if (row.at > query.until) continue;
    if (row.kind === "flip") flips.push(row.data as Flip);
    else if (row.kind === "notification") {
      const intent = row.data as NotificationIntent;
      if (intent.items.some((i) => alertBelongs(about, intent.rule, i.subject)))
        intents.push({ intent, at: row.sentAt ?? row.at });
    }
  }
  const newest = intents.slice(-MAX_TIMELINE_NOTIFICATIONS);
  const log = deps.deliveryLog;
  const notifications = await Promise.all(
    newest.map(async (n) => ({ ...n, attempts: log === undefined ? [] : await log.attempts(n.intent.id) })),
  );
  const built = buildTimeline(query, { runs, flips, notifications, silences, windows });
  return {
    ...built,
    truncated: built.truncated || rows.length >= MAX_TIMELINE_TRANSITIONS,
    sources: {
      runs: runsOf !== undefined,
      alerts: deps.transitions !== undefined,
      deliveries: log !== undefined,
      silences: deps.silences !== undefined,
      maintenance: deps.windows !== undefined,
    },
  };
}

/** Occurrences of one window read for a timeline, at most (a window every hour for a month is 744). */
export const MAX_TIMELINE_OCCURRENCES = 100;

/**
 * The maintenance windows' occurrences in a timeline's span that cover its subject (a collector
 * scope naming it, or everything; for one alert, the windows that would mute it), for `windows`.
 */
export function maintenanceOccurrences(store: MaintenanceStore): NonNullable<TimelineReadDeps["windows"]> {
  return async (query) => {
    const about = query.about;
    const out: { id: string; start: number; end: number; reason: string }[] = [];
    for (const w of await store.list()) {
      const covers =
        "collector" in about
          ? maintenanceCoversCollector(w.scope, about.collector)
          : maintenanceCovers(w.scope, { rule: about.rule, subject: about.subject });
      if (!covers) continue;
      let span = windowActiveAt(w, query.since) ?? nextWindow(w, query.since);
      for (let n = 0; span !== null && span.startsAt <= query.until && n < MAX_TIMELINE_OCCURRENCES; n++) {
        out.push({ id: w.id, start: span.startsAt, end: span.endsAt, reason: w.reason });
        span = nextWindow(w, span.startsAt);
      }
    }
    return out;
  };
}
