// A collector that never ran is `new` during its grace (2 × its expected interval after its
// registration) and is alerted on only after it; an account never scanned likewise for 24 h after it
// was first known as active. All clocks here are plain numbers: `now` is passed in.
import { describe, expect, it } from "vitest";
import { evaluateConditions } from "./alerts/rules.ts";
import { coverage } from "./coverage.ts";
import { freshnessList } from "./freshness.ts";
import { collectorHealth, collectorsHealth, overallHealth } from "./health.ts";
import { type CollectorSpec, DEFAULT_COLLECTORS, HOUR_MS, MINUTE_MS, type RunRecord } from "./records.ts";
import { account, EC2, hours, min, NOW, run } from "./test-support.ts";

/** config_ec2 (15 min interval, so a 30 min grace), registered `ago` ms before NOW. */
const registered = (ago: number, spec: CollectorSpec = EC2): CollectorSpec => ({
  ...spec,
  registered_at: NOW - ago,
  registered_by: "config",
});

function staleAlerts(specs: readonly CollectorSpec[], runs: readonly RunRecord[], now = NOW): string[] {
  const conditions = evaluateConditions(
    {
      collectors: collectorsHealth(specs, runs, now),
      streaks: [],
      accounts: [],
      unscanned: [],
      dead_letter_queues: [],
      disk_used_ratio: 0.1,
    },
    now,
  );
  return conditions.filter((c) => c.rule === "collector_stale").map((c) => c.subject);
}

describe("a collector that never ran", () => {
  it("is new within its grace, and raises no alert", () => {
    const spec = registered(MINUTE_MS);
    const h = collectorHealth(spec, [], NOW);
    expect(h).toMatchObject({
      health: "new",
      last_run: null,
      status: null,
      minutes_ago: null,
      registered_at: NOW - MINUTE_MS,
      new_until: NOW - MINUTE_MS + 30 * MINUTE_MS,
    });
    expect(h.reasons[0]).toContain("waiting for its first run (registered 1 min ago");
    expect(staleAlerts([spec], [])).toEqual([]);
  });

  it("is still new at exactly 2 × interval after registration (within is inclusive)", () => {
    expect(collectorHealth(registered(30 * MINUTE_MS), [], NOW).health).toBe("new");
  });

  it("is red and raises the stale alert 1 ms past its grace", () => {
    const spec = registered(30 * MINUTE_MS + 1);
    const h = collectorHealth(spec, [], NOW);
    expect(h.health).toBe("red");
    expect(h.new_until).toBeNull();
    expect(h.reasons[0]).toBe("never ran: no run within 30 min (2 × 15 min) of its registration");
    expect(staleAlerts([spec], [])).toEqual(["config_ec2"]);
  });

  it("gets a grace of its own interval: hierarchy_builder (30 min) waits 60 min", () => {
    const hb = DEFAULT_COLLECTORS[3] as CollectorSpec;
    const specs = [registered(45 * MINUTE_MS), registered(45 * MINUTE_MS, hb)];
    expect(collectorsHealth(specs, [], NOW).map((h) => h.health)).toEqual(["red", "new"]);
    expect(staleAlerts(specs, [])).toEqual(["config_ec2"]);
  });

  it("registered in the future (a clock behind) is new, not red", () => {
    expect(collectorHealth(registered(-5 * MINUTE_MS), [], NOW).health).toBe("new");
  });
});

describe("the freshness check of a collector that never ran", () => {
  it("lists it only once its registration is older than its threshold (60 min)", () => {
    expect(freshnessList([registered(60 * MINUTE_MS + 59_999)], [], NOW)).toEqual([]);
    expect(freshnessList([registered(61 * MINUTE_MS)], [], NOW).map((e) => e.name)).toEqual(["config_ec2"]);
    // unknown registration: listed as before
    expect(freshnessList([EC2], [], NOW).map((e) => e.minutes)).toEqual([null]);
  });
});

describe("after its first run, the normal freshness rules apply", () => {
  it("a success makes it green, whatever its registration", () => {
    const spec = registered(MINUTE_MS);
    const h = collectorHealth(spec, [run({ at: min(0.5) })], NOW);
    expect(h.health).toBe("green");
    expect(h.new_until).toBeNull();
  });

  it("a first run that failed is failing at once (amber: an explicit failure is not waiting), stale only after its grace", () => {
    const spec = registered(MINUTE_MS);
    const failed = [run({ status: "failed", at: min(0.5) })];
    const h = collectorHealth(spec, failed, NOW);
    expect(h.health).toBe("amber");
    expect(h.reasons[0]).toMatch(/^failing: no run has succeeded yet/);
    expect(staleAlerts([spec], failed)).toEqual([]);
    // 2 × interval after its registration with still no success: stale.
    expect(staleAlerts([spec], failed, NOW - MINUTE_MS + 30 * MINUTE_MS + 1)).toEqual(["config_ec2"]);
  });

  it("a success older than 2 × interval is stale even if registered a minute ago", () => {
    const spec = registered(MINUTE_MS);
    expect(collectorHealth(spec, [run({ at: min(31) })], NOW).health).toBe("red");
  });

  it("runs completed after now do not end the grace", () => {
    expect(collectorHealth(registered(MINUTE_MS), [run({ at: NOW + 1 })], NOW).health).toBe("new");
  });
});

describe("dependencies: waiting for a new upstream is not a failure", () => {
  const hb = DEFAULT_COLLECTORS[3] as CollectorSpec;
  const fresh = DEFAULT_COLLECTORS.map((s) => registered(10 * MINUTE_MS, s));
  const gated = run({
    collector: "hierarchy_builder",
    status: "failed",
    at: min(5),
    error:
      "dependency not met: no succeeded run of config_ec2, config_ebs, config_network completed in the last 20 min (none ever)",
  });

  it("hierarchy_builder gated while its upstream collectors are new is new, and raises no alert", () => {
    const all = collectorsHealth(fresh, [gated], NOW);
    expect(all.map((h) => h.health)).toEqual(["new", "new", "new", "new"]);
    const h = all[3];
    expect(h?.status).toBe("failed");
    expect(h?.reasons[0]).toContain(
      "waiting for its upstream collectors (config_ec2, config_ebs, config_network have not run yet)",
    );
    expect(h?.new_until).toBe(NOW - 10 * MINUTE_MS + 60 * MINUTE_MS);
    expect(staleAlerts(fresh, [gated])).toEqual([]);
  });

  it("its gated failures raise no failure alert while it waits, even 3 in a row", () => {
    const hb5: CollectorSpec = { ...hb, expected_interval_minutes: 5, registered_at: NOW - 9 * MINUTE_MS };
    const specs = [...fresh.slice(0, 3), hb5];
    const runs = [8, 5, 2].map((m) => ({
      ...gated,
      run_id: `00000000-0000-4000-8000-00000000000${m % 10}`,
      completed_at: min(m),
    }));
    const streak = {
      collector: "hierarchy_builder",
      cloud_account_id: gated.cloud_account_id,
      cloud_region: gated.cloud_region,
      consecutive_failures: 3,
      last_success_at: null,
      last_error: gated.error,
    };
    const input = {
      collectors: collectorsHealth(specs, runs, NOW),
      streaks: [streak],
      accounts: [],
      unscanned: [],
      dead_letter_queues: [],
      disk_used_ratio: 0.1,
    };
    expect(input.collectors[3]?.health).toBe("new");
    expect(evaluateConditions(input, NOW)).toEqual([]);
    // Once the upstream collectors are no longer new, the same streak fires.
    const late = DEFAULT_COLLECTORS.slice(0, 3).map((s) => registered(31 * MINUTE_MS, s));
    const after = { ...input, collectors: collectorsHealth([...late, hb5], runs, NOW) };
    expect(evaluateConditions(after, NOW).map((c) => c.key)).toContain(
      "collector_failure|hierarchy_builder/111111111111/us-east-1",
    );
  });

  it("once an upstream collector has succeeded, a failing hierarchy_builder is failing again (amber within its grace)", () => {
    const upstreamOk = run({ collector: "config_ebs", at: min(2) });
    const h = collectorsHealth(fresh, [gated, upstreamOk], NOW)[3];
    expect(h?.health).toBe("amber");
    expect(h?.reasons[0]).toMatch(/^failing: no run has succeeded yet/);
  });

  it("once the upstream collectors are past their grace, the gated collector is failing, then red after its own", () => {
    const late = DEFAULT_COLLECTORS.map((s) => registered(31 * MINUTE_MS, s));
    const all = collectorsHealth(late, [gated], NOW);
    expect(all.map((h) => h.health)).toEqual(["red", "red", "red", "amber"]);
    // hierarchy_builder's grace is 2 × 30 min after its registration.
    const later = collectorsHealth(late, [gated], NOW + 29 * MINUTE_MS + 1);
    expect(later.map((h) => h.health)).toEqual(["red", "red", "red", "red"]);
  });

  it("without a registration time there is no grace for the dependent either", () => {
    const unknown = DEFAULT_COLLECTORS.map((s) => ({ ...s }));
    expect(collectorsHealth(unknown, [gated], NOW)[3]?.health).toBe("red");
    expect(hb.registered_at).toBeUndefined();
  });
});

describe("overall health: new never makes the system unhealthy", () => {
  it.each([
    [["new", "new"], "new"],
    [["new", "green"], "green"],
    [["new", "amber"], "amber"],
    [["green", "red", "new"], "red"],
    [[], "new"],
  ] as const)("%j → %s", (states, overall) => {
    expect(overallHealth(states.map((health) => ({ health })))).toBe(overall);
  });
});

describe("an account never scanned", () => {
  const T = NOW;

  it("is new for 24 h after it was first known as active, and not unscanned", () => {
    const c = coverage([account("1", "active", hours(2))], [], T);
    expect(c.unscanned).toEqual([]);
    expect(c.new_accounts).toEqual([
      {
        account_id: "1",
        account_name: "acct-1",
        first_active_at: hours(2),
        new_until: hours(2) + 24 * HOUR_MS,
      },
    ]);
  });

  it("is new at exactly 24 h, unscanned 1 ms later", () => {
    expect(coverage([account("1", "active", hours(24))], [], T).new_accounts).toHaveLength(1);
    const late = coverage([account("1", "active", hours(24) - 1)], [], T);
    expect(late.new_accounts).toEqual([]);
    expect(late.unscanned).toEqual([{ account_id: "1", account_name: "acct-1", last_scanned_at: null }]);
  });

  it("takes its grace from its first active version: pending for days, activated an hour ago", () => {
    const versions = [account("1", "pending_setup", hours(72)), account("1", "active", hours(1))];
    expect(coverage(versions, [], T).new_accounts.map((a) => a.first_active_at)).toEqual([hours(1)]);
    // a later re-activation does not restart it
    const flapped = [
      account("1", "active", hours(30)),
      account("1", "no_access", hours(10)),
      account("1", "active", hours(1)),
    ];
    expect(coverage(flapped, [], T).unscanned.map((a) => a.account_id)).toEqual(["1"]);
  });

  it("once scanned, the 24 h rule applies as before", () => {
    const c = coverage(
      [account("1", "active", hours(2))],
      [run({ account: "1", status: "failed", at: hours(1) })],
      T,
    );
    expect(c.new_accounts).toHaveLength(1);
    const scanned = coverage([account("1", "active", hours(30))], [run({ account: "1", at: hours(25) })], T);
    expect(scanned.new_accounts).toEqual([]);
    expect(scanned.unscanned.map((a) => a.last_scanned_at)).toEqual([hours(25)]);
  });

  it("raises no unscanned alert while new", () => {
    const c = coverage([account("1", "active", hours(2))], [], T);
    const conditions = evaluateConditions(
      {
        collectors: [],
        streaks: [],
        accounts: c.accounts,
        unscanned: c.unscanned,
        dead_letter_queues: [],
        disk_used_ratio: 0.1,
      },
      T,
    );
    expect(conditions).toEqual([]);
  });
});
