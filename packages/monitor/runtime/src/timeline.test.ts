// A timeline keeps what is about its subject, in time order (a run before the flip it caused, the flip
// before its notification), and the newest events when there are more than its limit.
import type { CollectorRunRow, Flip, NotificationIntent, Silence } from "@monitor/core";
import { describe, expect, it } from "vitest";
import { buildTimeline, type TimelineQuery, type TimelineSources } from "./timeline.ts";

const T = Date.UTC(2026, 10, 2, 12);
const MIN = 60_000;

const runRow = (at: number, over: Partial<CollectorRunRow> = {}): CollectorRunRow => ({
  run_id: `r-${at}`,
  collector: "backup",
  cloud_account_id: "111",
  cloud_region: "eu-west-1",
  started_at: at - 2000,
  completed_at: at,
  status: "succeeded",
  events_produced: 0,
  rows_inserted: 0,
  error: "",
  duration_ms: 2000,
  ...over,
});
const flip = (at: number, rule: Flip["rule"], subject: string, to: Flip["to"], muted = false): Flip => ({
  key: `${rule}|${subject}`,
  rule,
  subject,
  severity: "critical",
  from: to === "firing" ? null : "firing",
  to,
  at,
  muted,
});
const intent = (id: string, rule: NotificationIntent["rule"], subjects: string[]): NotificationIntent => ({
  id,
  rule,
  severity: "critical",
  createdAt: T,
  items: subjects.map((subject) => ({
    key: `${rule}|${subject}`,
    subject,
    kind: "start",
    episode: 1,
    detail: "",
    fingerprint: "f",
    startsAt: T,
  })) as NotificationIntent["items"],
});
const silence = (startsAt: number, endsAt: number, subject: string): Silence => ({
  id: `s-${startsAt}`,
  matchers: { rule: null, subject: { op: "eq", value: subject } },
  author: "ops",
  reason: "planned work",
  startsAt,
  endsAt,
  createdAt: startsAt,
});

const sources: TimelineSources = {
  runs: [
    runRow(T + 10 * MIN, { status: "failed", error: "disk full", cloud_region: "us-east-1" }),
    runRow(T),
    runRow(T - 3 * 24 * 60 * MIN),
    runRow(T, { collector: "other" }),
  ],
  flips: [
    flip(T + 10 * MIN, "collector_failure", "backup/111/us-east-1", "firing"),
    flip(T + 5 * MIN, "collector_stale", "backup", "firing", true),
    flip(T + 6 * MIN, "collector_stale", "backupx", "firing"),
    flip(T + 7 * MIN, "account_no_access", "111", "firing"),
  ],
  notifications: [
    {
      intent: intent("collector_failure:1", "collector_failure", ["backup/111/us-east-1", "other/1/r"]),
      at: T + 10 * MIN,
      attempts: [
        {
          notificationId: "collector_failure:1",
          channel: "ops-hook",
          attempt: 1,
          at: new Date(T + 10 * MIN).toISOString(),
          ok: false,
          error: "HTTP 502",
          durationMs: 20,
        },
        {
          notificationId: "collector_failure:1",
          channel: "ops-hook",
          attempt: 2,
          at: new Date(T + 11 * MIN).toISOString(),
          ok: true,
          durationMs: 20,
        },
      ],
    },
    { intent: intent("collector_stale:2", "collector_stale", ["backupx"]), at: T + 6 * MIN, attempts: [] },
  ],
  silences: [silence(T + 4 * MIN, T + 20 * MIN, "backup"), silence(T, T + MIN, "unrelated")],
};

const query = (about: TimelineQuery["about"], limit = 100): TimelineQuery => ({
  about,
  since: T - 24 * 60 * MIN,
  until: T + 60 * MIN,
  limit,
});

describe("buildTimeline", () => {
  it("tells a collector's story: its runs, every alert about it, deliveries and silences, in time order", () => {
    const { events, truncated } = buildTimeline(query({ collector: "backup" }), sources);
    expect(truncated).toBe(false);
    expect(events.map((e) => [e.kind, e.at - T, e.summary])).toEqual([
      ["run", 0, "run succeeded on 111/eu-west-1 in 2.0 s"],
      ["silence", 4 * MIN, "silence starts (ops: planned work)"],
      ["flip", 5 * MIN, "collector_stale backup: new → firing (muted: not notified)"],
      ["run", 10 * MIN, "run failed on 111/us-east-1 in 2.0 s: disk full"],
      ["flip", 10 * MIN, "collector_failure backup/111/us-east-1: new → firing"],
      [
        "notification",
        10 * MIN,
        "collector_failure start notification: delivered to ops-hook (1 failed attempt)",
      ],
      ["silence", 20 * MIN, "silence ends (ops: planned work)"],
    ]);
    const n = events.find((e) => e.kind === "notification");
    expect(n?.kind === "notification" && n.items).toEqual([
      { subject: "backup/111/us-east-1", kind: "start" },
    ]);
  });

  it("tells one alert's story: only that series' runs and that alert's flips and notifications", () => {
    const { events } = buildTimeline(
      query({ rule: "collector_failure", subject: "backup/111/us-east-1" }),
      sources,
    );
    expect(events.map((e) => e.kind)).toEqual(["run", "flip", "notification"]);
  });

  it("keeps the newest events past its limit and says it cut", () => {
    const { events, truncated } = buildTimeline(query({ collector: "backup" }, 2), sources);
    expect(truncated).toBe(true);
    expect(events.map((e) => e.kind)).toEqual(["notification", "silence"]);
  });

  it("leaves out what is outside its span", () => {
    const { events } = buildTimeline({ ...query({ collector: "backup" }), until: T + 5 * MIN }, sources);
    expect(events.map((e) => e.at - T)).toEqual([0, 4 * MIN, 5 * MIN]);
  });
});
