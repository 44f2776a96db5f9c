import { describe, expect, it } from "vitest";
import { parseMaintenanceInput } from "../schemas/maintenance.ts";
import {
  applyMaintenance,
  freshnessAnchors,
  MAINTENANCE_MAX_LIVE,
  type MaintenanceWindow,
  maintenanceCovers,
} from "./maintenance.ts";
import { emptyState, step } from "./state-machine.ts";
import { type AlertRule, alertKey, type Condition, RULE_SEVERITY } from "./types.ts";

const T0 = Date.UTC(2026, 2, 2, 10, 0, 0);
const MIN = 60_000;
const H = 60 * MIN;

const win = (over: Partial<MaintenanceWindow> = {}): MaintenanceWindow => ({
  id: "m1",
  scope: { collectors: ["config_ec2"] },
  author: "ann",
  reason: "upgrade",
  createdAt: T0 - H,
  timing: { kind: "once", startsAt: T0, endsAt: T0 + 2 * H },
  endedAt: null,
  ...over,
});

const cond = (rule: AlertRule, subject: string, muted = false): Condition => ({
  key: alertKey(rule, subject),
  rule,
  subject,
  severity: RULE_SEVERITY[rule],
  detail: "d",
  muted,
  at: T0,
});

describe("maintenanceCovers", () => {
  it("a collectors scope covers that collector's failures and staleness, nothing else", () => {
    const s = { collectors: ["config_ec2"] };
    expect(maintenanceCovers(s, { rule: "collector_failure", subject: "config_ec2/1111/us-east-1" })).toBe(
      true,
    );
    expect(maintenanceCovers(s, { rule: "collector_stale", subject: "config_ec2" })).toBe(true);
    expect(maintenanceCovers(s, { rule: "collector_stale", subject: "config_ebs" })).toBe(false);
    expect(maintenanceCovers(s, { rule: "disk_high", subject: "analytics_db" })).toBe(false);
  });
  it("an accounts scope covers failures in that account and the account's own alerts", () => {
    const s = { accounts: ["1111"] };
    expect(maintenanceCovers(s, { rule: "collector_failure", subject: "config_ec2/1111/us-east-1" })).toBe(
      true,
    );
    expect(maintenanceCovers(s, { rule: "collector_failure", subject: "config_ec2/2222/us-east-1" })).toBe(
      false,
    );
    expect(maintenanceCovers(s, { rule: "account_no_access", subject: "1111" })).toBe(true);
    expect(maintenanceCovers(s, { rule: "collector_stale", subject: "config_ec2" })).toBe(false);
  });
  it("all covers everything", () => {
    expect(maintenanceCovers({ all: true }, { rule: "dead_letter_queue", subject: "ingest" })).toBe(true);
  });
});

describe("applyMaintenance", () => {
  it("mutes covered conditions while the window is in effect, by the window, until its occurrence's end", () => {
    const cs = [cond("collector_stale", "config_ec2"), cond("collector_stale", "config_ebs")];
    expect(applyMaintenance(cs, [win()], T0 - 1)).toEqual(cs);
    const [a, b] = applyMaintenance(cs, [win()], T0 + H);
    expect(a?.muted).toBe(true);
    expect(a?.mutedBy).toEqual({
      kind: "maintenance",
      id: "m1",
      author: "ann",
      reason: "upgrade",
      endsAt: T0 + 2 * H,
    });
    expect(a?.mutedReason).toContain("in maintenance until");
    expect(b?.muted).toBe(false);
    expect(applyMaintenance(cs, [win()], T0 + 2 * H)).toEqual(cs);
  });
  it("leaves a condition muted by another alert as it is", () => {
    const c = { ...cond("collector_failure", "config_ec2/1111/r"), muted: true, mutedBy: null };
    expect(applyMaintenance([c], [win()], T0 + H)).toEqual([c]);
  });
  it("an ended window mutes nothing from its end on", () => {
    const cs = [cond("collector_stale", "config_ec2")];
    expect(applyMaintenance(cs, [win({ endedAt: T0 + 30 * MIN })], T0 + H)[0]?.muted).toBe(false);
  });
});

describe("freshnessAnchors", () => {
  it("a covered collector counts from the window's end after it; others from their last success", () => {
    const anchor = freshnessAnchors([win()], T0 + 3 * H);
    expect(anchor("config_ec2", T0 - 5 * MIN)).toBe(T0 + 2 * H);
    expect(anchor("config_ec2", T0 + 150 * MIN)).toBe(T0 + 150 * MIN);
    expect(anchor("config_ebs", T0 - 5 * MIN)).toBe(T0 - 5 * MIN);
    // An accounts scope does not move a collector's freshness.
    expect(freshnessAnchors([win({ scope: { accounts: ["1111"] } })], T0 + 3 * H)("config_ec2", T0)).toBe(T0);
  });
});

describe("a resolve during a window", () => {
  it("of an alert notified before the window waits for the window's end", () => {
    const c = cond("collector_stale", "config_ec2");
    let r = step(emptyState(), [c], T0 - H);
    const key = c.key;
    const a = r.state.alerts[key];
    if (a === undefined) throw new Error("no alert");
    a.notifiedStart = true;
    a.lastNotifiedAt = T0 - H;
    r = step(r.state, applyMaintenance([c], [win()], T0 + 10 * MIN), T0 + 10 * MIN);
    expect(r.notifications).toEqual([]);
    r = step(r.state, [], T0 + 20 * MIN);
    expect(r.notifications).toEqual([]);
    r = step(r.state, [], T0 + 2 * H);
    expect(r.notifications.flatMap((n) => n.items.map((i) => i.kind))).toEqual(["resolve"]);
  });
});

describe("parseMaintenanceInput", () => {
  const now = T0;
  it("reads a one-off window (start defaults to now) and a recurring one (time zone defaults to UTC)", () => {
    expect(
      parseMaintenanceInput(
        {
          scope: { collectors: ["config_ec2", "config_ec2"] },
          author: " ann ",
          reason: "r",
          ends_at: T0 + H,
        },
        now,
      ),
    ).toEqual({
      ok: true,
      value: {
        scope: { collectors: ["config_ec2"] },
        author: "ann",
        reason: "r",
        timing: { kind: "once", startsAt: now, endsAt: T0 + H },
      },
    });
    const r = parseMaintenanceInput(
      { scope: { all: true }, author: "a", reason: "r", schedule: "0 2 * * 0", duration_minutes: 120 },
      now,
    );
    expect(r.ok && r.value.timing).toEqual({
      kind: "recurring",
      schedule: "0 2 * * 0",
      timezone: "UTC",
      durationMinutes: 120,
    });
  });

  const paths = (raw: unknown, live = 0) => {
    const r = parseMaintenanceInput(raw, now, live);
    return r.ok ? [] : r.errors.map((e) => e.path);
  };

  it("names each bad field: scope, author, reason, times, schedule, duration", () => {
    expect(
      paths({ scope: { collectors: [], all: true }, author: "", reason: "x".repeat(501), ends_at: T0 - 1 }),
    ).toEqual(expect.arrayContaining(["scope.collectors", "author", "reason", "ends_at"]));
    expect(
      paths({ scope: { collectors: ["a"], accounts: ["1"] }, author: "a", reason: "r", ends_at: T0 + H }),
    ).toEqual(["scope"]);
    expect(paths({ scope: { all: true }, author: "a", reason: "r", ends_at: T0 + 31 * 24 * H })).toEqual([
      "ends_at",
    ]);
    expect(
      paths({ scope: { all: true }, author: "a", reason: "r", schedule: "not cron", duration_minutes: 1441 }),
    ).toEqual(expect.arrayContaining(["schedule", "duration_minutes"]));
    expect(
      paths({ scope: { all: true }, author: "a", reason: "r", schedule: "0 2 * * 0", timezone: "Mars/Base" }),
    ).toEqual(expect.arrayContaining(["duration_minutes", "timezone"]));
    expect(paths({ scope: { all: true }, author: "a", reason: "r" })).toEqual(["ends_at"]);
    expect(
      paths({
        scope: { collectors: Array.from({ length: 101 }, (_, i) => `c${i}`) },
        author: "a",
        reason: "r",
        ends_at: T0 + H,
      }),
    ).toEqual(["scope.collectors"]);
  });

  it("refuses a window beyond the bound on live windows", () => {
    expect(
      paths({ scope: { all: true }, author: "a", reason: "r", ends_at: T0 + H }, MAINTENANCE_MAX_LIVE),
    ).toEqual([""]);
  });
});
