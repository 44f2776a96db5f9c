/**
 * From queue health to the "Dead-letter queue non-empty" rule (seed §6, critical). Pure.
 *
 * The subject of the alert is the dead-letter queue's name. The rules of `@svcmon/core` take known
 * depths only; an unknown depth must neither raise nor resolve the alert, as for the analytics DB's
 * disk (`disk_used_ratio: null` keeps the previous status). So a firing dead-letter alert that no read
 * of this round confirmed (a queue or dead-letter queue was unreadable, or the whole read failed) is
 * kept firing by `keepUnreadDeadLetters`; with every queue read, an alert whose dead-letter queue is
 * gone from the configuration resolves.
 */
import { type AlertState, alertKey, type Condition, RULE_SEVERITY } from "@svcmon/core";
import type { QueueHealth } from "./queue-health.ts";

/** Known dead-letter depths, one per dead-letter queue (two queues may share one: the larger depth). */
export function deadLetterDepths(queues: readonly QueueHealth[] | null): { queue: string; depth: number }[] {
  const depth = new Map<string, number>();
  for (const q of queues ?? []) {
    if (q.dead_letter_queue === null || q.dead_letter_depth === null) continue;
    depth.set(q.dead_letter_queue, Math.max(depth.get(q.dead_letter_queue) ?? 0, q.dead_letter_depth));
  }
  return [...depth].map(([queue, d]) => ({ queue, depth: d })).sort((a, b) => (a.queue < b.queue ? -1 : 1));
}

/** Whether some dead-letter depth of this round is unknown (`null` queues: the whole read failed). */
function somethingUnread(queues: readonly QueueHealth[] | null): string | null {
  if (queues === null) return "the queues could not be read";
  const bad = queues.find(
    (q) => q.error !== null && (q.dead_letter_queue === null || q.dead_letter_depth === null),
  );
  return bad === undefined ? null : `${bad.name}: ${bad.error}`;
}

/**
 * `conditions` (from `evaluateConditions`) plus a condition for every dead-letter alert that was firing
 * in `previous` and that this round's reads could not confirm either way. Sorted by key, as the rules
 * return them.
 */
export function keepUnreadDeadLetters(
  conditions: readonly Condition[],
  queues: readonly QueueHealth[] | null,
  previous: AlertState | undefined,
  now: number,
): Condition[] {
  const why = somethingUnread(queues);
  if (why === null || previous === undefined) return [...conditions];
  const confirmed = new Set(deadLetterDepths(queues).map((d) => d.queue));
  const present = new Set(conditions.map((c) => c.key));
  const out = [...conditions];
  for (const a of Object.values(previous.alerts)) {
    if (a.rule !== "dead_letter_queue" || a.status !== "firing" || confirmed.has(a.subject)) continue;
    const key = alertKey("dead_letter_queue", a.subject);
    if (present.has(key)) continue;
    out.push({
      key,
      rule: "dead_letter_queue",
      subject: a.subject,
      severity: RULE_SEVERITY.dead_letter_queue,
      detail: `dead-letter queue ${a.subject}: depth unknown (${why}); last read held messages`,
      muted: a.muted,
      at: now,
    });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
