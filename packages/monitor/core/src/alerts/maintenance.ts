/**
 * Maintenance windows: planned work during which the alerts of the collectors or accounts in scope
 * (or of everything) are held back, like a silence (`silences.ts`): a muted alert keeps its state and
 * shows as muted (`mutedBy.kind === "maintenance"`, shown as "in maintenance"), and when the window
 * ends what still fires owes its start and is notified once. Unlike a silence, a window also moves a
 * collector's freshness: staleness accrued during it is not held against the collector
 * (`freshnessAnchors`). Its time arithmetic (one-off or recurring cron occurrences) is
 * `@monitor/jobs`' maintenance-window.ts. Pure: `now` is a parameter.
 */
import {
  freshnessAnchor,
  lastWindowEnd,
  type MaintenanceTiming,
  nextWindow,
  type WindowSpan,
  windowActiveAt,
  windowOver,
} from "@monitor/jobs";
import type { EpochMs } from "../records.ts";
import { type AlertRule, type Condition, failureSubjectParts, type MutedByMaintenance } from "./types.ts";

/** What a window covers: named collectors, named accounts, or every alert. */
export type MaintenanceScope = { collectors: string[] } | { accounts: string[] } | { all: true };

export interface MaintenanceWindow {
  id: string;
  scope: MaintenanceScope;
  author: string;
  reason: string;
  createdAt: EpochMs;
  timing: MaintenanceTiming;
  /** Ended early (`DELETE /api/system/maintenance/{id}`); null while it runs its course. */
  endedAt: EpochMs | null;
}

export const MAINTENANCE_REASON_MAX = 500;
export const MAINTENANCE_AUTHOR_MAX = 100;
/** Collectors or accounts named by one window's scope. */
export const MAINTENANCE_SCOPE_MAX = 100;
/** A one-off window ends at most 30 days after it is created (as a silence). */
export const MAINTENANCE_MAX_ONCE_MS = 30 * 24 * 3600 * 1000;
/** A recurring occurrence lasts at most a day. */
export const MAINTENANCE_MAX_RECURRING_MINUTES = 24 * 60;
/** Windows not over (active, pending or recurring) at once. */
export const MAINTENANCE_MAX_LIVE = 50;
/** Windows over are kept this long (listed, and their end still anchors freshness), then pruned. */
export const MAINTENANCE_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** Not over at `now`: what counts towards `MAINTENANCE_MAX_LIVE`. */
export function maintenanceLive(w: MaintenanceWindow, now: EpochMs): boolean {
  return !windowOver(w, now);
}

/** The collector an alert is about, or null (a rule about an account, a queue or the disk). */
function alertCollector(rule: AlertRule, subject: string): string | null {
  if (rule === "collector_failure") return failureSubjectParts(subject).collector;
  return rule.startsWith("collector_") ? subject : null;
}

/** The account an alert is about, or null. */
function alertAccount(rule: AlertRule, subject: string): string | null {
  if (rule === "collector_failure") return failureSubjectParts(subject).account;
  return rule.startsWith("account_") ? subject : null;
}

/** Whether a window's scope covers an alert (at any time; `windowActiveAt` says when). */
export function maintenanceCovers(
  scope: MaintenanceScope,
  alert: { rule: AlertRule; subject: string },
): boolean {
  if ("all" in scope) return true;
  if ("collectors" in scope) {
    const c = alertCollector(alert.rule, alert.subject);
    return c !== null && scope.collectors.includes(c);
  }
  const a = alertAccount(alert.rule, alert.subject);
  return a !== null && scope.accounts.includes(a);
}

/** Whether a window's scope covers a collector's freshness (its collectors, or everything). */
export function maintenanceCoversCollector(scope: MaintenanceScope, collector: string): boolean {
  return "all" in scope || ("collectors" in scope && scope.collectors.includes(collector));
}

/** The windows in effect at `now`, each with its current occurrence. */
export function activeMaintenance(
  windows: readonly MaintenanceWindow[],
  now: EpochMs,
): { window: MaintenanceWindow; span: WindowSpan }[] {
  const out: { window: MaintenanceWindow; span: WindowSpan }[] = [];
  for (const w of windows) {
    const span = windowActiveAt(w, now);
    if (span !== null) out.push({ window: w, span });
  }
  return out;
}

/**
 * Conditions with the active windows applied: an unmuted condition a window covers becomes muted by
 * it (of several, the one ending last, then the smallest id). A condition muted by another alert
 * stays so. Applied before the silences, so an alert in maintenance shows as such.
 */
export function applyMaintenance(
  conditions: readonly Condition[],
  windows: readonly MaintenanceWindow[],
  now: EpochMs,
): Condition[] {
  const active = activeMaintenance(windows, now);
  if (active.length === 0) return [...conditions];
  return conditions.map((c) => {
    if (c.muted) return c;
    let best: { window: MaintenanceWindow; span: WindowSpan } | null = null;
    for (const a of active) {
      if (!maintenanceCovers(a.window.scope, c)) continue;
      if (
        best === null ||
        a.span.endsAt > best.span.endsAt ||
        (a.span.endsAt === best.span.endsAt && a.window.id < best.window.id)
      )
        best = a;
    }
    if (best === null) return c;
    const mutedBy: MutedByMaintenance = {
      kind: "maintenance",
      id: best.window.id,
      author: best.window.author,
      reason: best.window.reason,
      endsAt: best.span.endsAt,
    };
    return {
      ...c,
      muted: true,
      mutedBy,
      mutedReason: `in maintenance until ${new Date(best.span.endsAt).toISOString()} (${best.window.author}): ${best.window.reason}`,
    };
  });
}

/**
 * Per collector, where its freshness counts from: given to the health rules, it replaces a last
 * success older than the end of a window that covered the collector (`freshnessAnchor`). Each
 * window's last end is computed once, whatever the number of collectors.
 */
export function freshnessAnchors(
  windows: readonly MaintenanceWindow[],
  now: EpochMs,
): (collector: string, lastSuccessAt: EpochMs) => EpochMs {
  const ended = windows
    .map((w) => ({ scope: w.scope, end: lastWindowEnd(w, now) }))
    .filter((e): e is { scope: MaintenanceScope; end: number } => e.end !== null);
  if (ended.length === 0) return (_collector, lastSuccessAt) => lastSuccessAt;
  return (collector, lastSuccessAt) =>
    freshnessAnchor(
      lastSuccessAt,
      ended.filter((e) => maintenanceCoversCollector(e.scope, collector)).map((e) => e.end),
      now,
    );
}

/** A window as the API and the page show it at `now`. */
export interface MaintenanceView {
  window: MaintenanceWindow;
  active: boolean;
  /** The occurrence in effect, else the next one; null when none is left. */
  current: WindowSpan | null;
  /** The next occurrence's start after `now` (not the one in effect); null when none. */
  nextStart: EpochMs | null;
}

export function maintenanceView(w: MaintenanceWindow, now: EpochMs): MaintenanceView {
  const active = windowActiveAt(w, now);
  const next = nextWindow(w, now);
  return { window: w, active: active !== null, current: active ?? next, nextStart: next?.startsAt ?? null };
}
