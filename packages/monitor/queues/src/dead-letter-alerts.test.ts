import {
  type AlertInput,
  type AlertState,
  alertKey,
  emptyState,
  evaluateConditions,
  type QueueHealth,
  step,
} from "@monitor/core";
import { describe, expect, it } from "vitest";
import { deadLetterDepths, deadLetterUnread } from "./dead-letter-alerts.ts";

const NOW = Date.UTC(2025, 3, 1, 10, 0, 0);
const KEY = alertKey("dead_letter_queue", "events-dlq");

const q = (p: Partial<QueueHealth> = {}): QueueHealth => ({
  name: "events",
  source: "test",
  read_at: NOW,
  depth: 0,
  in_flight: 0,
  dead_letter_queue: "events-dlq",
  dead_letter_depth: 0,
  error: null,
  ...p,
});

const unreadable = (name = "events"): QueueHealth =>
  q({
    name,
    depth: null,
    in_flight: null,
    dead_letter_queue: null,
    dead_letter_depth: null,
    error: "AccessDenied: no",
  });

function input(queues: readonly QueueHealth[] | null): AlertInput {
  return {
    collectors: [],
    streaks: [],
    accounts: [],
    unscanned: [],
    dead_letter_queues: deadLetterDepths(queues),
    dead_letter_unread: deadLetterUnread(queues),
    disk_used_ratio: null,
  };
}

/** One evaluation round as the engine runs it. */
function round(state: AlertState, queues: readonly QueueHealth[] | null, now: number) {
  return step(state, evaluateConditions(input(queues), now, state), now);
}

describe("deadLetterDepths", () => {
  it("known depths only, one per dead-letter queue (the larger when shared), sorted", () => {
    expect(deadLetterDepths(null)).toEqual([]);
    expect(
      deadLetterDepths([
        q({ name: "b", dead_letter_queue: "shared-dlq", dead_letter_depth: 1 }),
        q({ name: "a", dead_letter_queue: "shared-dlq", dead_letter_depth: 3 }),
        q({ name: "c", dead_letter_queue: "c-dlq", dead_letter_depth: 0 }),
        q({ name: "d", dead_letter_queue: null, dead_letter_depth: null }),
        q({
          name: "e",
          dead_letter_queue: "e-dlq",
          dead_letter_depth: null,
          error: "dead-letter queue e-dlq: timeout",
        }),
        unreadable("f"),
      ]),
    ).toEqual([
      { queue: "c-dlq", depth: 0 },
      { queue: "shared-dlq", depth: 3 },
    ]);
  });
});

describe("the dead-letter alert over rounds (rules + state machine)", () => {
  it("fires (critical) when the dead-letter queue holds messages and resolves when a read shows it empty", () => {
    const r1 = round(emptyState(), [q({ dead_letter_depth: 2 })], NOW);
    expect(r1.flips).toEqual([expect.objectContaining({ key: KEY, to: "firing", severity: "critical" })]);
    expect(r1.state.alerts[KEY]?.detail).toBe("dead-letter queue events-dlq holds 2 message(s)");
    const r2 = round(r1.state, [q({ dead_letter_depth: 0 })], NOW + 60_000);
    expect(r2.flips).toEqual([expect.objectContaining({ key: KEY, from: "firing", to: "resolved" })]);
  });

  it("an unreadable queue keeps a firing alert firing, with the reason, and does not raise a new one", () => {
    const r1 = round(emptyState(), [q({ dead_letter_depth: 2 })], NOW);
    const r2 = round(r1.state, [unreadable()], NOW + 60_000);
    expect(r2.flips).toEqual([]);
    expect(r2.state.alerts[KEY]).toMatchObject({ status: "firing", since: NOW });
    expect(r2.state.alerts[KEY]?.detail).toBe(
      "dead-letter queue events-dlq: depth unknown (events: AccessDenied: no); last read held messages",
    );
    // The whole read failing (null) keeps it too.
    expect(round(r2.state, null, NOW + 120_000).flips).toEqual([]);
    // Nothing was firing: an unreadable queue raises nothing.
    expect(round(emptyState(), [unreadable()], NOW).flips).toEqual([]);
    // Readable again and empty: resolves.
    expect(round(r2.state, [q()], NOW + 180_000).flips).toEqual([
      expect.objectContaining({ key: KEY, to: "resolved" }),
    ]);
  });

  it("a dead-letter queue that is unreadable while its source queue reads keeps its alert", () => {
    const r1 = round(emptyState(), [q({ dead_letter_depth: 5 })], NOW);
    const dlqDown = q({ depth: 3, dead_letter_depth: null, error: "dead-letter queue events-dlq: timeout" });
    expect(round(r1.state, [dlqDown], NOW + 60_000).state.alerts[KEY]?.status).toBe("firing");
  });

  it("another queue's failure does not hold an alert whose dead-letter queue was read empty", () => {
    const r1 = round(
      emptyState(),
      [q({ dead_letter_depth: 1 }), q({ name: "other", dead_letter_queue: "other-dlq" })],
      NOW,
    );
    const r2 = round(r1.state, [q({ dead_letter_depth: 0 }), unreadable("other")], NOW + 60_000);
    expect(r2.flips).toEqual([expect.objectContaining({ key: KEY, to: "resolved" })]);
  });

  it("with every queue read, an alert whose dead-letter queue left the configuration resolves", () => {
    const r1 = round(emptyState(), [q({ dead_letter_depth: 1 })], NOW);
    const r2 = round(r1.state, [q({ name: "new", dead_letter_queue: "new-dlq" })], NOW + 60_000);
    expect(r2.flips).toEqual([expect.objectContaining({ key: KEY, to: "resolved" })]);
  });

  it("a failure queue (its own dead-letter queue, SqsQueueHealth deadLetterQueueUrls) raises, holds and resolves the alert under its name", () => {
    const FAILURES = alertKey("dead_letter_queue", "svcmon-cur-ingest-dlq");
    // The entry SqsQueueHealth makes for a listed failure queue (sqs.test.ts reads it from the double).
    const failures = (visible: number, inFlight: number): QueueHealth =>
      q({
        name: "svcmon-cur-ingest-dlq",
        source: "sqs",
        depth: visible,
        in_flight: inFlight,
        dead_letter_queue: "svcmon-cur-ingest-dlq",
        dead_letter_depth: visible + inFlight,
      });
    expect(round(emptyState(), [q(), failures(0, 0)], NOW).flips).toEqual([]);
    const r1 = round(emptyState(), [q(), failures(1, 1)], NOW);
    expect(r1.flips).toEqual([
      expect.objectContaining({
        key: FAILURES,
        rule: "dead_letter_queue",
        subject: "svcmon-cur-ingest-dlq",
        to: "firing",
        severity: "critical",
      }),
    ]);
    expect(r1.state.alerts[FAILURES]?.detail).toBe(
      "dead-letter queue svcmon-cur-ingest-dlq holds 2 message(s)",
    );
    // Unreadable (the adapter's error entry): kept firing, as any dead-letter queue.
    const r2 = round(r1.state, [q(), unreadable("svcmon-cur-ingest-dlq")], NOW + 60_000);
    expect(r2.flips).toEqual([]);
    expect(r2.state.alerts[FAILURES]?.status).toBe("firing");
    // Replayed and deleted: resolves.
    expect(round(r2.state, [q(), failures(0, 0)], NOW + 120_000).flips).toEqual([
      expect.objectContaining({ key: FAILURES, to: "resolved" }),
    ]);
  });

  it("keeps the rules' order (sorted by key) and adds nothing the rules already hold", () => {
    const previous = round(emptyState(), [q({ dead_letter_depth: 1 })], NOW).state;
    // The disk fires beside the held dead-letter alert: both come back once, sorted by key.
    const kept = evaluateConditions({ ...input([unreadable()]), disk_used_ratio: 0.9 }, NOW, previous);
    expect(kept.map((c) => c.key)).toEqual([KEY, "disk_high|analytics_db"]);
    // Read holding messages while another queue is unreadable: one condition, from the read.
    const already = evaluateConditions(
      { ...input([q({ dead_letter_depth: 2 }), unreadable("other")]), disk_used_ratio: 0.9 },
      NOW,
      previous,
    );
    expect(already.map((c) => c.key)).toEqual([KEY, "disk_high|analytics_db"]);
    expect(already[0]?.detail).toBe("dead-letter queue events-dlq holds 2 message(s)");
  });
});
