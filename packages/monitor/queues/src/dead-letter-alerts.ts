import type { QueueHealth } from "@monitor/core";
/**
 * From queue health to the "Dead-letter queue non-empty" rule (critical). Pure.
 *
 * The subject of the alert is the dead-letter queue's name. The rules of `@monitor/core` take the known
 * depths and the reason some are unknown; an unknown depth must neither raise nor resolve the alert, as for the analytics DB's
 * disk (`disk_used_ratio: null` keeps the previous status). So a firing dead-letter alert that no read
 * of this round confirmed (a queue or dead-letter queue was unreadable, or the whole read failed) is
 * kept firing by the rules when `deadLetterUnread` gives them the reason; with every queue read, an
 * alert whose dead-letter queue is gone from the configuration resolves.
 */

/** Known dead-letter depths, one per dead-letter queue (two queues may share one: the larger depth). */
export function deadLetterDepths(queues: readonly QueueHealth[] | null): { queue: string; depth: number }[] {
  const depth = new Map<string, number>();
  for (const q of queues ?? []) {
    if (q.dead_letter_queue === null || q.dead_letter_depth === null) continue;
    depth.set(q.dead_letter_queue, Math.max(depth.get(q.dead_letter_queue) ?? 0, q.dead_letter_depth));
  }
  return [...depth].map(([queue, d]) => ({ queue, depth: d })).sort((a, b) => (a.queue < b.queue ? -1 : 1));
}

/**
 * Why some dead-letter depth of this round is unknown (`null` queues: the whole read failed), or null
 * when every queue was read: the rules' `dead_letter_unread`.
 */
export function deadLetterUnread(queues: readonly QueueHealth[] | null): string | null {
  if (queues === null) return "the queues could not be read";
  const bad = queues.find(
    (q) => q.error !== null && (q.dead_letter_queue === null || q.dead_letter_depth === null),
  );
  return bad === undefined ? null : `${bad.name}: ${bad.error}`;
}
