// What the state machine hands the notifications: a fingerprint shared by an alert's messages, the
// start of its episode (kept when it resolves), its end, its last error; and a muted alert reported
// once per episode as held back, with what mutes it and why.
import { describe, expect, it } from "vitest";
import { evaluateConditions } from "./rules.ts";
import { emptyState, markDelivered, step } from "./state-machine.ts";
import { alertFingerprint, alertLink } from "./types.ts";

const MIN = 60_000;
const T0 = Date.parse("2025-01-31T11:40:00.000Z");
const streak = (account: string, error = "AccessDenied") => ({
  collector: "config_ec2",
  cloud_account_id: account,
  cloud_region: "us-east-1",
  consecutive_failures: 3,
  last_success_at: null,
  last_error: error,
});
const input = (streaks: ReturnType<typeof streak>[], noAccess: string[] = []) => ({
  collectors: [],
  streaks,
  accounts: noAccess.map((id) => ({
    account_id: id,
    account_name: "legacy",
    svc_status: "no_access" as const,
    updated_at: T0,
  })),
  unscanned: [],
  dead_letter_queues: [],
  disk_used_ratio: null,
});

describe("intent items carry the alert's facts", () => {
  it("start and resolve share the fingerprint and startsAt; the resolve has endsAt and the last error", () => {
    const subject = "config_ec2/111111111111/us-east-1";
    const r1 = step(emptyState(), evaluateConditions(input([streak("111111111111")]), T0), T0);
    const start = r1.notifications[0]?.items[0];
    expect(start).toMatchObject({
      kind: "start",
      fingerprint: alertFingerprint("collector_failure", subject),
      startsAt: T0,
      endsAt: null,
      lastError: "AccessDenied",
    });
    const s1 = markDelivered(r1.state, r1.notifications[0]?.id as string, T0);
    const T1 = T0 + 25 * MIN;
    // JSON round trip: the state as stored and loaded after a restart.
    const r2 = step(JSON.parse(JSON.stringify(s1)), evaluateConditions(input([]), T1), T1);
    expect(r2.notifications[0]?.items[0]).toMatchObject({
      kind: "resolve",
      fingerprint: start?.fingerprint,
      startsAt: T0,
      endsAt: T1,
      lastError: "AccessDenied",
    });
  });

  it("the fingerprint is 16 hex digits of rule and subject; the link anchors the subject on /system", () => {
    expect(alertFingerprint("collector_stale", "config_ec2")).toMatch(/^[0-9a-f]{16}$/);
    expect(alertFingerprint("collector_stale", "config_ec2")).not.toBe(
      alertFingerprint("collector_stale", "config_ebs"),
    );
    expect(alertLink("https://m.example/", "collector_failure", "config_ec2/1/us-east-1")).toBe(
      "https://m.example/system#collector-config_ec2",
    );
    expect(alertLink("https://m.example", "account_no_access", "1")).toBe(
      "https://m.example/system#account-1",
    );
    expect(alertLink("https://m.example", "dead_letter_queue", "events dlq")).toBe(
      "https://m.example/system#queue-events%20dlq",
    );
    expect(alertLink("https://m.example", "disk_high", "analytics_db")).toBe(
      "https://m.example/system#analytics-db",
    );
    expect(alertLink(null, "disk_high", "analytics_db")).toBeNull();
  });
});

describe("a muted alert is reported held back, once per episode", () => {
  it("says what mutes it and why; not again next step; again after an unmute and a new mute", () => {
    const account = "111111111111";
    const subject = `config_ec2/${account}/us-east-1`;
    const r1 = step(emptyState(), evaluateConditions(input([streak(account)], [account]), T0), T0);
    expect(r1.notifications.map((n) => n.rule)).toEqual(["account_no_access"]);
    expect(r1.muted).toEqual([
      expect.objectContaining({
        key: `collector_failure|${subject}`,
        kind: "start",
        fingerprint: alertFingerprint("collector_failure", subject),
        startsAt: T0,
        mutedBy: {
          kind: "alert",
          rule: "account_no_access",
          subject: account,
          fingerprint: alertFingerprint("account_no_access", account),
        },
        reason: expect.stringMatching(/^account legacy is no_access: /),
      }),
    ]);
    const r2 = step(r1.state, evaluateConditions(input([streak(account)], [account]), T0 + MIN), T0 + MIN);
    expect(r2.muted).toEqual([]);
    // Access back: unmuted, its start is owed, under the id the muted record had.
    const r3 = step(r2.state, evaluateConditions(input([streak(account)]), T0 + 2 * MIN), T0 + 2 * MIN);
    expect(r3.notifications.find((n) => n.rule === "collector_failure")?.id).toBe(r1.muted[0]?.id);
    expect(r3.state.alerts[`collector_failure|${subject}`]).toMatchObject({ muted: false, mutedBy: null });
    // Muted again: reported again.
    const r4 = step(
      r3.state,
      evaluateConditions(input([streak(account)], [account]), T0 + 3 * MIN),
      T0 + 3 * MIN,
    );
    expect(r4.muted.map((m) => m.key)).toEqual([`collector_failure|${subject}`]);
  });
});
