import { describe, expect, it } from "vitest";
import { HOUR_MS, MINUTE_MS } from "../records.ts";
import { NOW } from "../test-support.ts";
import {
  type AlertRecord,
  type AlertState,
  confirmSent,
  emptyState,
  itemIdentity,
  markDelivered,
  markFailed,
  NO_CHANNEL_ERROR,
  type NotificationIntent,
  nextRetryAt,
  owedKind,
  step,
} from "./state-machine.ts";
import { type AlertRule, alertKey, type Condition, RULE_SEVERITY } from "./types.ts";

const cond = (rule: AlertRule, subject: string, muted = false): Condition => ({
  key: alertKey(rule, subject),
  rule,
  subject,
  severity: RULE_SEVERITY[rule],
  detail: `${rule} on ${subject}`,
  muted,
  at: NOW,
});
const WARN = cond("collector_failure", "config_ec2/A/us-east-1");
const CRIT = cond("collector_stale", "config_ec2");
const kinds = (ns: NotificationIntent[]): string[] =>
  ns.flatMap((n) => n.items.map((i) => `${n.rule}:${i.subject}:${i.kind}`));
const restart = (s: AlertState): AlertState => JSON.parse(JSON.stringify(s)) as AlertState;

/** Step and confirm every intent as delivered at the same `now`. */
function tick(state: AlertState, conditions: Condition[], now: number) {
  const r = step(state, conditions, now);
  let s = r.state;
  for (const n of r.notifications) s = markDelivered(s, n.id, now);
  return { ...r, state: s };
}

describe("start and resolve", () => {
  it.each([
    ["warning", WARN],
    ["critical", CRIT],
  ])("%s: notifies once on start, once on resolve", (_sev, c) => {
    const a = tick(emptyState(), [c], NOW);
    expect(a.flips.map((f) => `${f.from}->${f.to}`)).toEqual(["null->firing"]);
    expect(kinds(a.notifications)).toEqual([`${c.rule}:${c.subject}:start`]);
    expect(a.notifications[0]?.severity).toBe(c.severity);

    const b = tick(a.state, [c], NOW + MINUTE_MS);
    expect(b.flips).toEqual([]);
    expect(b.notifications).toEqual([]);

    const r = tick(b.state, [], NOW + 2 * MINUTE_MS);
    expect(r.flips.map((f) => `${f.from}->${f.to}`)).toEqual(["firing->resolved"]);
    expect(kinds(r.notifications)).toEqual([`${c.rule}:${c.subject}:resolve`]);

    const after = tick(r.state, [], NOW + 3 * MINUTE_MS);
    expect(after.notifications).toEqual([]);
  });

  it("re-fire after resolve starts a new episode with a new start notification", () => {
    let s = tick(emptyState(), [WARN], NOW).state;
    s = tick(s, [], NOW + MINUTE_MS).state;
    const again = tick(s, [WARN], NOW + 2 * MINUTE_MS);
    expect(again.flips.map((f) => `${f.from}->${f.to}`)).toEqual(["resolved->firing"]);
    expect(kinds(again.notifications)).toEqual([`${WARN.rule}:${WARN.subject}:start`]);
    expect(again.state.alerts[WARN.key]?.episode).toBe(2);
  });

  it("duplicate conditions for one key are one alert", () => {
    const r = step(emptyState(), [WARN, { ...WARN, detail: "other" }], NOW);
    expect(Object.keys(r.state.alerts)).toEqual([WARN.key]);
    expect(r.notifications[0]?.items).toHaveLength(1);
  });
});

describe("reminders, counted from the last delivered notification", () => {
  it.each<[string, Condition, number, boolean]>([
    ["warning, 4 h − 1 ms", WARN, 4 * HOUR_MS - 1, false],
    ["warning, exactly 4 h", WARN, 4 * HOUR_MS, true],
    ["warning, 1 h", WARN, HOUR_MS, false],
    ["critical, 1 h − 1 ms", CRIT, HOUR_MS - 1, false],
    ["critical, exactly 1 h", CRIT, HOUR_MS, true],
  ])("%s → reminder %s", (_name, c, after, expected) => {
    const s = tick(emptyState(), [c], NOW).state;
    const r = step(s, [c], NOW + after);
    expect(kinds(r.notifications)).toEqual(expected ? [`${c.rule}:${c.subject}:reminder`] : []);
  });

  it("the next reminder counts from the last reminder's delivery, not the start", () => {
    let s = tick(emptyState(), [CRIT], NOW).state;
    // reminder delivered 10 min late (channel down for 10 min)
    const r1 = step(s, [CRIT], NOW + HOUR_MS);
    s = markDelivered(
      r1.state,
      (r1.notifications[0] as NotificationIntent).id,
      NOW + HOUR_MS + 10 * MINUTE_MS,
    );
    expect(step(s, [CRIT], NOW + 2 * HOUR_MS + 9 * MINUTE_MS).notifications).toEqual([]);
    expect(kinds(step(s, [CRIT], NOW + 2 * HOUR_MS + 10 * MINUTE_MS).notifications)).toEqual([
      "collector_stale:config_ec2:reminder",
    ]);
  });

  it("a start delivered late moves the first reminder", () => {
    const r = step(emptyState(), [CRIT], NOW);
    const s = markDelivered(r.state, (r.notifications[0] as NotificationIntent).id, NOW + 20 * MINUTE_MS);
    expect(step(s, [CRIT], NOW + HOUR_MS).notifications).toEqual([]);
    expect(step(s, [CRIT], NOW + HOUR_MS + 20 * MINUTE_MS).notifications).toHaveLength(1);
  });
});

describe("muting (account in no_access)", () => {
  const MUTED = { ...WARN, muted: true };
  it.each<[string, Condition[][], string[][]]>([
    [
      "muted from the start: no start, no reminder, no resolve",
      [[MUTED], [MUTED], [MUTED], []],
      [[], [], [], []],
    ],
    ["unmute while firing: start owed then", [[MUTED], [WARN]], [[], ["start"]]],
    [
      "muted after start: no reminder; resolve still sent",
      [[WARN], [MUTED], [MUTED], []],
      [["start"], [], [], ["resolve"]],
    ],
    ["unmute after a long mute: reminder resumes", [[WARN], [MUTED], [WARN]], [["start"], [], ["reminder"]]],
  ])("%s", (_name, ticks, expected) => {
    let s = emptyState();
    const seen: string[][] = [];
    ticks.forEach((cs, i) => {
      const r = tick(s, cs, NOW + i * 3 * HOUR_MS);
      s = r.state;
      seen.push(r.notifications.flatMap((n) => n.items.map((it) => it.kind)));
    });
    expect(seen).toEqual(expected);
  });
});

describe("channel failure and retries", () => {
  it.each<[number, number]>([
    [1, 30_000],
    [2, 60_000],
    [3, 120_000],
    [6, 16 * MINUTE_MS],
    [7, 30 * MINUTE_MS],
    [50, 30 * MINUTE_MS],
    [0, 30_000],
  ])("nextRetryAt(attempt %i) = now + %i ms", (attempt, delay) => {
    expect(nextRetryAt(attempt, NOW)).toBe(NOW + delay);
  });

  it("a failed delivery is owed again after backoff, never marks notified", () => {
    const r1 = step(emptyState(), [WARN], NOW);
    const id1 = (r1.notifications[0] as NotificationIntent).id;
    let s = markFailed(r1.state, id1, NOW, "smtp 503");
    expect(s.alerts[WARN.key]?.notifiedStart).toBe(false);
    expect(s.alerts[WARN.key]?.delivery?.lastError).toBe("smtp 503");
    expect(owedKind(s.alerts[WARN.key] as AlertRecord, NOW)).toBe("start");

    // in backoff: nothing yet
    expect(step(s, [WARN], NOW + 29_999).notifications).toEqual([]);
    // retry 1 at +30 s
    const r2 = step(s, [WARN], NOW + 30_000);
    expect(kinds(r2.notifications)).toEqual([`${WARN.rule}:${WARN.subject}:start`]);
    expect(r2.state.alerts[WARN.key]?.delivery?.attempt).toBe(2);
    s = markFailed(r2.state, (r2.notifications[0] as NotificationIntent).id, NOW + 30_000, "smtp 503");
    // retry 2 waits 60 s from the failure
    expect(step(s, [WARN], NOW + 89_999).notifications).toEqual([]);
    const r3 = step(s, [WARN], NOW + 90_000);
    expect(r3.notifications).toHaveLength(1);
    s = markDelivered(r3.state, (r3.notifications[0] as NotificationIntent).id, NOW + 90_000);
    expect(s.alerts[WARN.key]?.notifiedStart).toBe(true);
    expect(s.alerts[WARN.key]?.delivery).toBeNull();
    expect(step(s, [WARN], NOW + HOUR_MS).notifications).toEqual([]);
  });

  it("no confirmation at all (crash mid-delivery) → owed again when the lease expires", () => {
    const r1 = step(emptyState(), [WARN], NOW);
    expect(step(r1.state, [WARN], NOW + 10_000).notifications).toEqual([]);
    const r2 = step(r1.state, [WARN], NOW + 30_000);
    expect(kinds(r2.notifications)).toEqual([`${WARN.rule}:${WARN.subject}:start`]);
    // the re-emitted item supersedes the old unconfirmed intent
    expect(Object.keys(r2.state.outbox)).toEqual([(r2.notifications[0] as NotificationIntent).id]);
  });

  it("confirming an unknown or already confirmed intent is a no-op", () => {
    const r = tick(emptyState(), [WARN], NOW);
    expect(markDelivered(r.state, "n999", NOW)).toBe(r.state);
    expect(markFailed(r.state, "n1", NOW, "x")).toBe(r.state);
  });
});

describe("restart = JSON round-trip of the state", () => {
  it("fire, deliver, restart, step → no duplicate start", () => {
    const s = restart(tick(emptyState(), [WARN, CRIT], NOW).state);
    expect(step(s, [WARN, CRIT], NOW + MINUTE_MS).notifications).toEqual([]);
  });

  it("fire, resolve before delivery, restart → the resolve is still owed", () => {
    const r1 = step(emptyState(), [WARN], NOW); // start emitted, never confirmed
    const r2 = step(restart(r1.state), [], NOW + MINUTE_MS);
    expect(kinds(r2.notifications)).toEqual([`${WARN.rule}:${WARN.subject}:resolve`]);
    // that delivery fails too; restart again: still owed after backoff
    const s = restart(
      markFailed(r2.state, (r2.notifications[0] as NotificationIntent).id, NOW + MINUTE_MS, "down"),
    );
    expect(step(s, [], NOW + MINUTE_MS + 29_999).notifications).toEqual([]);
    const r3 = step(s, [], NOW + MINUTE_MS + 30_000);
    expect(kinds(r3.notifications)).toEqual([`${WARN.rule}:${WARN.subject}:resolve`]);
    const done = markDelivered(
      restart(r3.state),
      (r3.notifications[0] as NotificationIntent).id,
      NOW + 2 * MINUTE_MS,
    );
    expect(step(restart(done), [], NOW + HOUR_MS).notifications).toEqual([]);
  });

  it("fire, deliver, resolve, restart before the resolve is confirmed → resolve owed", () => {
    const s1 = tick(emptyState(), [CRIT], NOW).state;
    const r = step(s1, [], NOW + MINUTE_MS);
    const again = step(restart(r.state), [], NOW + MINUTE_MS + 30_000);
    expect(kinds(again.notifications)).toEqual(["collector_stale:config_ec2:resolve"]);
  });

  it("a late start confirmation after resolve does not cancel the owed resolve", () => {
    const r1 = step(emptyState(), [WARN], NOW);
    const r2 = step(r1.state, [], NOW + MINUTE_MS);
    const s = markDelivered(r2.state, (r1.notifications[0] as NotificationIntent).id, NOW + MINUTE_MS);
    expect(s).toBe(r2.state); // old intent superseded by the resolve item
    expect(owedKind(s.alerts[WARN.key] as AlertRecord, NOW + MINUTE_MS)).toBe("resolve");
  });

  it("state is plain JSON", () => {
    const s = step(emptyState(), [WARN, CRIT], NOW).state;
    expect(restart(s)).toEqual(s);
  });
});

describe("a firing notification that lands after the resolve (two evaluators)", () => {
  const only = (n: NotificationIntent | undefined) => n as NotificationIntent;

  it("owes the resolve again, as a new notification, so the receiver's last word is resolved", () => {
    // Evaluator A sends the start; meanwhile B resolves, sends and confirms the resolve.
    const start = only(step(emptyState(), [WARN], NOW).notifications[0]);
    const r = step(step(emptyState(), [WARN], NOW).state, [], NOW + MINUTE_MS);
    const resolve = only(r.notifications[0]);
    const resolved = markDelivered(r.state, resolve.id, NOW + MINUTE_MS);
    expect(owedKind(resolved.alerts[WARN.key] as AlertRecord, NOW + MINUTE_MS)).toBeNull();

    // A's start is confirmed after that: it may have reached the receiver after the resolve.
    const late = confirmSent(resolved, start, NOW + 2 * MINUTE_MS);
    expect(owedKind(late.alerts[WARN.key] as AlertRecord, NOW + 2 * MINUTE_MS)).toBe("resolve");
    const again = step(late, [], NOW + 2 * MINUTE_MS);
    expect(kinds(again.notifications)).toEqual([`${WARN.rule}:${WARN.subject}:resolve`]);
    const resend = only(again.notifications[0]);
    expect(resend.id).not.toBe(resolve.id);
    expect(resend.items[0]?.about).toBe(NOW + 2 * MINUTE_MS);
    expect(resend.items[0]?.endsAt).toBe(NOW + MINUTE_MS);

    const done = markDelivered(again.state, resend.id, NOW + 3 * MINUTE_MS);
    expect(step(done, [], NOW + HOUR_MS).notifications).toEqual([]);
  });

  it("an earlier resolve confirmed after that does not settle the resolve owed again", () => {
    const s0 = step(emptyState(), [WARN], NOW);
    const start = s0.notifications[0] as NotificationIntent;
    const r = step(s0.state, [], NOW + MINUTE_MS);
    const inFlight = r.notifications[0] as NotificationIntent;
    const late = confirmSent(r.state, start, NOW + 2 * MINUTE_MS);
    const stale = confirmSent(late, inFlight, NOW + 2 * MINUTE_MS);
    expect(owedKind(stale.alerts[WARN.key] as AlertRecord, NOW + 2 * MINUTE_MS)).toBe("resolve");
  });

  it("a start confirmed while its alert still fires is an ordinary delivery", () => {
    const s0 = step(emptyState(), [WARN], NOW);
    const s = confirmSent(s0.state, s0.notifications[0] as NotificationIntent, NOW);
    expect(s).toEqual(markDelivered(s0.state, (s0.notifications[0] as NotificationIntent).id, NOW));
  });
});

describe("confirming part of a notification (the others' items are held by another sender)", () => {
  it("items left out stay owed and come again after their backoff; the confirmed ones do not", () => {
    const other = cond("collector_failure", "config_ebs/A/us-east-1");
    const r = step(emptyState(), [WARN, other], NOW);
    const intent = r.notifications[0] as NotificationIntent;
    expect(intent.items).toHaveLength(2);
    const mine = intent.items.find((i) => i.key === WARN.key);
    const s = confirmSent(r.state, intent, NOW, new Set([itemIdentity(mine as NonNullable<typeof mine>)]));
    expect(s.outbox[intent.id]).toBeUndefined();
    expect(step(s, [WARN, other], NOW + 29_999).notifications).toEqual([]);
    const later = step(s, [WARN, other], NOW + 30_000);
    expect(kinds(later.notifications)).toEqual([`collector_failure:${other.subject}:start`]);
  });
});

describe("grouping", () => {
  it("1,000 alerts firing at once → one intent per rule listing its subjects", () => {
    const conds = [
      ...Array.from({ length: 1000 }, (_, i) => cond("collector_failure", `config_ec2/${i}/us-east-1`)),
      ...Array.from({ length: 3 }, (_, i) => cond("dead_letter_queue", `q${i}-dlq`)),
    ];
    const r = step(emptyState(), conds, NOW);
    expect(r.flips).toHaveLength(1003);
    expect(r.notifications.map((n) => [n.rule, n.severity, n.items.length])).toEqual([
      ["collector_failure", "warning", 1000],
      ["dead_letter_queue", "critical", 3],
    ]);
    let s = r.state;
    for (const n of r.notifications) s = markDelivered(s, n.id, NOW);
    const resolved = step(s, [], NOW + MINUTE_MS);
    expect(resolved.notifications.map((n) => [n.rule, n.items.length])).toEqual([
      ["collector_failure", 1000],
      ["dead_letter_queue", 3],
    ]);
  });

  it("start and resolve items of one rule share one intent", () => {
    const a = cond("dead_letter_queue", "a-dlq");
    const b = cond("dead_letter_queue", "b-dlq");
    const s = tick(emptyState(), [a], NOW).state;
    const r = step(s, [b], NOW + MINUTE_MS);
    expect(r.notifications).toHaveLength(1);
    expect(kinds(r.notifications)).toEqual([
      "dead_letter_queue:a-dlq:resolve",
      "dead_letter_queue:b-dlq:start",
    ]);
  });
});

describe("retention", () => {
  it("resolved alerts with nothing owed are dropped after 7 days", () => {
    let s = tick(emptyState(), [WARN], NOW).state;
    s = tick(s, [], NOW + MINUTE_MS).state;
    expect(step(s, [], NOW + MINUTE_MS + 7 * 24 * HOUR_MS - 1).state.alerts[WARN.key]).toBeDefined();
    expect(step(s, [], NOW + MINUTE_MS + 7 * 24 * HOUR_MS).state.alerts[WARN.key]).toBeUndefined();
  });
});

describe("intent ids (the notification's idempotency key)", () => {
  const only = (ns: NotificationIntent[]): NotificationIntent => {
    expect(ns).toHaveLength(1);
    return ns[0] as NotificationIntent;
  };

  it("are `<rule>:<16 hex digits>`", () => {
    expect(only(step(emptyState(), [WARN], NOW).notifications).id).toMatch(
      /^collector_failure:[0-9a-f]{16}$/,
    );
  });

  it("a retry after a failed delivery, and a re-emission after a crash, keep the id", () => {
    const both = [WARN, cond("collector_failure", "config_ebs/B/eu-west-1")];
    const r1 = step(emptyState(), both, NOW);
    const id = only(r1.notifications).id;
    const failed = markFailed(r1.state, id, NOW, "down");
    expect(only(step(restart(failed), both, NOW + 30_000).notifications).id).toBe(id);
    // Crash mid-delivery: no confirmation at all; the lease expires and the same items come back.
    expect(only(step(restart(r1.state), both, NOW + 30_000).notifications).id).toBe(id);
  });

  it("start, each reminder and resolve of one alert get distinct ids", () => {
    const ids: string[] = [];
    let s = emptyState();
    for (const [conds, at] of [
      [[CRIT], NOW],
      [[CRIT], NOW + HOUR_MS],
      [[CRIT], NOW + 2 * HOUR_MS],
      [[], NOW + 2 * HOUR_MS + MINUTE_MS],
    ] as const) {
      const r = tick(s, [...conds], at);
      ids.push(only(r.notifications).id);
      s = r.state;
    }
    expect(new Set(ids).size).toBe(4);
  });

  it("do not come back for a new episode, even when a lost state restarts the episode count", () => {
    const first = only(step(emptyState(), [WARN], NOW).notifications).id;
    expect(only(step(emptyState(), [WARN], NOW + MINUTE_MS).notifications).id).not.toBe(first);
    expect(only(step(emptyState(), [CRIT], NOW).notifications).id).not.toBe(first);
  });

  it("an intent with other items (one more alert of the rule) gets another id", () => {
    const a = cond("dead_letter_queue", "a-dlq");
    const b = cond("dead_letter_queue", "b-dlq");
    expect(only(step(emptyState(), [a], NOW).notifications).id).not.toBe(
      only(step(emptyState(), [a, b], NOW).notifications).id,
    );
  });
});

describe("no notification channel (step with deliver: false)", () => {
  const HOLD = { deliver: false } as const;

  it("emits nothing and counts no attempt; the first step with a channel sends the start at once", () => {
    let s = emptyState();
    // Hours of ticks with nowhere to deliver: flipped and stored, never emitted, never backed off.
    for (let m = 0; m <= 180; m += 1) {
      const r = step(s, [WARN], NOW + m * MINUTE_MS, HOLD);
      expect(r.notifications).toEqual([]);
      s = r.state;
    }
    const a = s.alerts[WARN.key] as AlertRecord;
    expect(a).toMatchObject({ status: "firing", since: NOW, startEmitted: false, delivery: null });
    expect(s.outbox).toEqual({});

    // A channel now: the very next step owes the start, attempt 1, about the episode's start.
    const later = NOW + 181 * MINUTE_MS;
    const r = step(s, [WARN], later);
    expect(kinds(r.notifications)).toEqual([`${WARN.rule}:${WARN.subject}:start`]);
    expect(r.notifications[0]?.items[0]).toMatchObject({ startsAt: NOW, about: NOW });
    expect(r.state.alerts[WARN.key]?.delivery).toMatchObject({ attempt: 1, nextAttemptAt: later + 30_000 });
  });

  it("an alert that fired and resolved while there was no channel owes nothing once there is one", () => {
    const fired = step(emptyState(), [CRIT], NOW, HOLD).state;
    const resolved = step(fired, [], NOW + MINUTE_MS, HOLD).state;
    expect(step(resolved, [], NOW + 2 * MINUTE_MS).notifications).toEqual([]);
  });

  it("a resolve owed from a start sent earlier stays owed while there is no channel, and is sent with one", () => {
    const sent = tick(emptyState(), [WARN], NOW).state;
    const held = step(sent, [], NOW + MINUTE_MS, HOLD);
    expect(held.notifications).toEqual([]);
    expect(held.state.alerts[WARN.key]).toMatchObject({ status: "resolved", notifiedResolve: false });
    expect(kinds(step(held.state, [], NOW + 2 * MINUTE_MS).notifications)).toEqual([
      `${WARN.rule}:${WARN.subject}:resolve`,
    ]);
  });

  it("a state saved while 'no channel' failures backed the start off: due at once, from attempt 1", () => {
    // What an engine without a channel used to save after two hours of ticks: each step emitted, each
    // emission failed, the backoff at its 30 min cap.
    const first = step(emptyState(), [WARN], NOW);
    const s = markFailed(first.state, first.notifications[0]?.id as string, NOW, NO_CHANNEL_ERROR);
    const now = NOW + 120 * MINUTE_MS;
    (s.alerts[WARN.key] as AlertRecord).delivery = {
      kind: "start",
      episode: 1,
      attempt: 9,
      nextAttemptAt: now + 25 * MINUTE_MS,
      lastError: NO_CHANNEL_ERROR,
    };
    const r = step(s, [WARN], now);
    expect(kinds(r.notifications)).toEqual([`${WARN.rule}:${WARN.subject}:start`]);
    expect(r.state.alerts[WARN.key]?.delivery).toMatchObject({ attempt: 1, lastError: null });
    // A real channel's failure still backs off as before.
    const failed = markFailed(r.state, r.notifications[0]?.id as string, now, "ops-hook: HTTP 503");
    expect(step(failed, [WARN], now + 10_000).notifications).toEqual([]);
  });
});
