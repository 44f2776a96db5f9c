import { describe, expect, it } from "vitest";
import { firstRunSpec } from "../auto-register.ts";
import { type FailureStreak, failureStreaks } from "../failures.ts";
import { type CollectorHealth, collectorsHealth } from "../health.ts";
import { type AccountRecord, HOUR_MS } from "../records.ts";
import { min, NOW, run } from "../test-support.ts";
import { type AlertInput, evaluateConditions } from "./rules.ts";
import { emptyState, step } from "./state-machine.ts";

const health = (name: string, h: CollectorHealth["health"]): CollectorHealth => ({
  name,
  last_run: null,
  status: null,
  minutes_ago: null,
  health: h,
  reasons: h === "green" ? [] : [`${h} reason`],
  registered_at: null,
  new_until: null,
});
const streak = (account: string, n: number, collector = "config_ec2"): FailureStreak => ({
  collector,
  cloud_account_id: account,
  cloud_region: "us-east-1",
  consecutive_failures: n,
  last_success_at: null,
  last_error: n > 0 ? "AccessDenied" : "",
});
const account = (id: string, svc_status: AccountRecord["svc_status"]): AccountRecord => ({
  account_id: id,
  account_name: `acct-${id}`,
  svc_status,
  updated_at: NOW - 1,
});
const input = (over: Partial<AlertInput> = {}): AlertInput => ({
  collectors: [],
  streaks: [],
  accounts: [],
  unscanned: [],
  dead_letter_queues: [],
  disk_used_ratio: 0.5,
  ...over,
});

describe("evaluateConditions: one rule each", () => {
  it.each<[string, Partial<AlertInput>, string[]]>([
    [
      "3 consecutive failures fire",
      { streaks: [streak("A", 3)] },
      ["collector_failure|config_ec2/A/us-east-1 warning"],
    ],
    [
      "5 consecutive failures fire",
      { streaks: [streak("A", 5)] },
      ["collector_failure|config_ec2/A/us-east-1 warning"],
    ],
    ["2 consecutive failures do not", { streaks: [streak("A", 2)] }, []],
    [
      "red collector is stale",
      { collectors: [health("config_ec2", "red")] },
      ["collector_stale|config_ec2 critical"],
    ],
    ["amber collector is not stale", { collectors: [health("config_ec2", "amber")] }, []],
    ["green collector is not stale", { collectors: [health("config_ec2", "green")] }, []],
    ["no_access account", { accounts: [account("A", "no_access")] }, ["account_no_access|A warning"]],
    ["failing role assumption", { role_assumption_failing: ["B"] }, ["account_no_access|B warning"]],
    [
      "no_access and failing role: one alert",
      { accounts: [account("A", "no_access")], role_assumption_failing: ["A"] },
      ["account_no_access|A warning"],
    ],
    ["pending_setup account does not alert", { accounts: [account("A", "pending_setup")] }, []],
    ["active account does not alert", { accounts: [account("A", "active")] }, []],
    [
      "unscanned account",
      { unscanned: [{ account_id: "A", account_name: "a", last_scanned_at: null }] },
      ["account_unscanned|A warning"],
    ],
    [
      "dead-letter queue with 1 message",
      { dead_letter_queues: [{ queue: "q-dlq", depth: 1 }] },
      ["dead_letter_queue|q-dlq critical"],
    ],
    ["empty dead-letter queue", { dead_letter_queues: [{ queue: "q-dlq", depth: 0 }] }, []],
    ["disk 81 %", { disk_used_ratio: 0.81 }, ["disk_high|analytics_db warning"]],
    ["disk exactly 80 % does not fire", { disk_used_ratio: 0.8 }, []],
    ["disk unknown, never fired", { disk_used_ratio: null }, []],
  ])("%s", (_name, over, expected) => {
    const got = evaluateConditions(input(over), NOW).map((c) => `${c.key} ${c.severity}`);
    expect(got).toEqual(expected);
  });
});

describe("evaluateConditions: no_access mutes that account's collector failures", () => {
  it.each<[string, Partial<AlertInput>, Record<string, boolean>]>([
    [
      "svc_status no_access mutes only that account",
      {
        accounts: [account("A", "no_access"), account("B", "active")],
        streaks: [streak("A", 3), streak("B", 3)],
      },
      { "collector_failure|config_ec2/A/us-east-1": true, "collector_failure|config_ec2/B/us-east-1": false },
    ],
    [
      "failing role assumption mutes too",
      { role_assumption_failing: ["A"], streaks: [streak("A", 4)] },
      { "collector_failure|config_ec2/A/us-east-1": true },
    ],
    [
      "access restored (active) unmutes",
      { accounts: [account("A", "active")], streaks: [streak("A", 3)] },
      { "collector_failure|config_ec2/A/us-east-1": false },
    ],
    [
      "the no_access alert itself and stale are never muted",
      { accounts: [account("A", "no_access")], collectors: [health("config_ec2", "red")] },
      { "account_no_access|A": false, "collector_stale|config_ec2": false },
    ],
  ])("%s", (_name, over, expected) => {
    const got = Object.fromEntries(
      evaluateConditions(input(over), NOW)
        .filter((c) => c.key in expected)
        .map((c) => [c.key, c.muted]),
    );
    expect(got).toEqual(expected);
  });
});

describe("disk hysteresis (fires above 80 %, resolves below 75 %)", () => {
  it.each<[string, (number | null)[], ("firing" | "resolved" | "none")[]]>([
    [
      "81 fires, 78 stays, 74 resolves, 78 stays resolved",
      [0.81, 0.78, 0.74, 0.78],
      ["firing", "firing", "resolved", "resolved"],
    ],
    ["75 exactly keeps firing; 74.9 resolves", [0.85, 0.75, 0.749], ["firing", "firing", "resolved"]],
    [
      "re-fires above 80 after resolve",
      [0.81, 0.7, 0.79, 0.801],
      ["firing", "resolved", "resolved", "firing"],
    ],
    ["unknown ratio keeps firing", [0.9, null, 0.7], ["firing", "firing", "resolved"]],
    ["78 from the start never fires", [0.78, 0.8], ["none", "none"]],
  ])("%s", (_name, ratios, statuses) => {
    let state = emptyState();
    const seen: string[] = [];
    ratios.forEach((ratio, i) => {
      const now = NOW + i * 60_000;
      state = step(state, evaluateConditions(input({ disk_used_ratio: ratio }), now, state), now).state;
      seen.push(state.alerts["disk_high|analytics_db"]?.status ?? "none");
    });
    expect(seen).toEqual(statuses);
  });
});

describe("dead-letter depth unknown (dead_letter_unread): neither raises nor resolves", () => {
  type Round = Pick<AlertInput, "dead_letter_queues" | "dead_letter_unread">;
  const read = (depth: number): Round => ({ dead_letter_queues: [{ queue: "q-dlq", depth }] });
  const unread: Round = { dead_letter_queues: [], dead_letter_unread: "q: AccessDenied" };
  it.each<[string, Round[], ("firing" | "resolved" | "none")[]]>([
    [
      "held while unread, resolved by a read at 0",
      [read(2), unread, read(0)],
      ["firing", "firing", "resolved"],
    ],
    ["an unread round raises nothing", [unread, read(1)], ["none", "firing"]],
    [
      "without a reason, a queue gone from the reads resolves",
      [read(1), { dead_letter_queues: [] }],
      ["firing", "resolved"],
    ],
  ])("%s", (_name, rounds, statuses) => {
    let state = emptyState();
    const seen: string[] = [];
    rounds.forEach((r, i) => {
      const now = NOW + i * 60_000;
      state = step(state, evaluateConditions(input(r), now, state), now).state;
      seen.push(state.alerts["dead_letter_queue|q-dlq"]?.status ?? "none");
    });
    expect(seen).toEqual(statuses);
  });

  it("the held condition says why the depth is unknown", () => {
    const state = step(emptyState(), evaluateConditions(input(read(3)), NOW, emptyState()), NOW).state;
    const [held] = evaluateConditions(input(unread), NOW + 60_000, state);
    expect(held).toMatchObject({
      key: "dead_letter_queue|q-dlq",
      severity: "critical",
      detail: "dead-letter queue q-dlq: depth unknown (q: AccessDenied); last read held messages",
    });
  });
});

describe("a collector registered by its first run that has never succeeded", () => {
  // Three failed runs of a job the registry did not know: it registered itself at its first run with
  // the defaults (24 h interval).
  const spec = {
    ...firstRunSpec("nightly_export"),
    registered_at: min(30),
    registered_by: "first_run" as const,
  };
  const runs = [min(30), min(20), min(10)].map((at) =>
    run({ collector: "nightly_export", account: "A", status: "failed", at, error: "exit code 2" }),
  );
  const conditionsAt = (now: number) =>
    evaluateConditions(
      input({ collectors: collectorsHealth([spec], runs, now), streaks: failureStreaks(runs, now) }),
      now,
    ).map((c) => `${c.key} ${c.severity}: ${c.detail}`);

  it("is reported once, as failing: the failure warning, no stale alert", () => {
    expect(conditionsAt(NOW)).toEqual([
      "collector_failure|nightly_export/A/us-east-1 warning: 3 consecutive failed runs: exit code 2",
    ]);
  });

  it("still failing 2 × its interval after its registration: stale as well (critical), in those words", () => {
    expect(conditionsAt(min(30) + 48 * HOUR_MS + 1)).toEqual([
      "collector_failure|nightly_export/A/us-east-1 warning: 3 consecutive failed runs: exit code 2",
      "collector_stale|nightly_export critical: stale: no succeeded run within 2880 min (2 × 1440 min) of its registration; it has run but never succeeded",
    ]);
  });
});
