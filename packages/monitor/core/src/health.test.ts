import { describe, expect, it } from "vitest";
import { collectorHealth, collectorsHealth, type Health } from "./health.ts";
import { DEFAULT_COLLECTORS, MINUTE_MS, type RunRecord } from "./records.ts";
import { EC2, min, NOW, run, uuid } from "./test-support.ts";

const A = { account: "A", region: "us-east-1" } as const;
const B = { account: "B", region: "us-east-1" } as const;
const dup = uuid(9001);

interface Scenario {
  name: string;
  runs: RunRecord[];
  health: Health;
  reason?: string;
}

const scenarios: Scenario[] = [
  { name: "fresh: success 5 min ago", runs: [run({ at: min(5) })], health: "green" },
  {
    name: "late: last success 20 min ago (> 1 × 15 min)",
    runs: [run({ at: min(20) })],
    health: "amber",
    reason: "older than the 15 min interval",
  },
  {
    name: "stale: last success 31 min ago (> 2 × 15 min)",
    runs: [run({ at: min(31) })],
    health: "red",
    reason: "stale",
  },
  { name: "never ran", runs: [], health: "red", reason: "never ran" },
  {
    name: "never ran (only other collectors' runs)",
    runs: [run({ collector: "config_ebs", at: min(1) })],
    health: "red",
    reason: "never ran",
  },
  {
    name: "partial only, registration unknown (no grace): partial is not success",
    runs: [run({ status: "partial", at: min(1) })],
    health: "red",
    reason: "stale: it has run but never succeeded (no registration time, so no grace)",
  },
  {
    name: "failed only, registration unknown (no grace)",
    runs: [run({ status: "failed", at: min(1) })],
    health: "red",
    reason: "stale: it has run but never succeeded",
  },
  {
    name: "partial latest after a fresh success",
    runs: [run({ at: min(10) }), run({ status: "partial", at: min(2), error: "throttled" })],
    health: "amber",
    reason: "latest run partial: throttled",
  },
  {
    name: "failed latest after a fresh success",
    runs: [run({ at: min(10) }), run({ status: "failed", at: min(2) })],
    health: "amber",
    reason: "latest run failed: boom",
  },
  {
    name: "stale success then partial runs: still red",
    runs: [run({ at: min(45) }), run({ status: "partial", at: min(1) })],
    health: "red",
    reason: "stale",
  },
  {
    name: "three failures since the last success on A/us-east-1 while B succeeds",
    runs: [
      run({ ...A, at: min(50) }),
      run({ ...A, status: "failed", at: min(40) }),
      run({ ...A, status: "failed", at: min(25) }),
      run({ ...A, status: "failed", at: min(10) }),
      run({ ...B, at: min(5) }),
    ],
    health: "amber",
    reason: "A/us-east-1: 3 consecutive failed runs since last success",
  },
  {
    name: "two failures since the last success: green when fresh",
    runs: [
      run({ ...A, at: min(50) }),
      run({ ...A, status: "failed", at: min(25) }),
      run({ ...A, status: "failed", at: min(10) }),
      run({ ...B, at: min(5) }),
    ],
    health: "green",
  },
  {
    name: "failures before the last success do not count",
    runs: [
      run({ ...A, status: "failed", at: min(40) }),
      run({ ...A, status: "failed", at: min(35) }),
      run({ ...A, status: "failed", at: min(30) }),
      run({ ...A, at: min(5) }),
    ],
    health: "green",
  },
  {
    name: "three failures spread over three regions: no streak",
    runs: [
      run({ account: "A", region: "us-east-1", status: "failed", at: min(12) }),
      run({ account: "A", region: "eu-west-1", status: "failed", at: min(11) }),
      run({ account: "A", region: "us-west-2", status: "failed", at: min(10) }),
      run({ ...B, at: min(5) }),
    ],
    health: "green",
  },
  {
    name: "a partial between failures breaks the streak",
    runs: [
      run({ ...A, at: min(60) }),
      run({ ...A, status: "failed", at: min(40) }),
      run({ ...A, status: "failed", at: min(30) }),
      run({ ...A, status: "partial", at: min(20) }),
      run({ ...A, status: "failed", at: min(10) }),
      run({ ...B, at: min(5) }),
    ],
    health: "green",
  },
  {
    name: "duplicate run_id counted once (2 distinct failures, not 3)",
    runs: [
      run({ ...A, at: min(50) }),
      run({ ...A, status: "failed", at: min(30), run_id: dup }),
      run({ ...A, status: "failed", at: min(30), run_id: dup }),
      run({ ...A, status: "failed", at: min(10) }),
      run({ ...B, at: min(5) }),
    ],
    health: "green",
  },
  {
    name: "boundary: success exactly 1 × interval ago → green",
    runs: [run({ at: min(15) })],
    health: "green",
  },
  {
    name: "boundary: success 1 × interval + 1 ms ago → amber",
    runs: [run({ at: min(15) - 1 })],
    health: "amber",
    reason: "older than the 15 min interval",
  },
  {
    name: "boundary: success exactly 2 × interval ago → amber (within, not stale)",
    runs: [run({ at: min(30) })],
    health: "amber",
  },
  {
    name: "boundary: success 2 × interval + 1 ms ago → red",
    runs: [run({ at: min(30) - 1 })],
    health: "red",
    reason: "stale",
  },
  {
    name: "runs completed after now are ignored",
    runs: [run({ at: min(40) }), run({ at: NOW + MINUTE_MS })],
    health: "red",
    reason: "stale",
  },
];

describe("collectorHealth", () => {
  it.each(scenarios)("$name → $health", ({ runs, health, reason }) => {
    const h = collectorHealth(EC2, runs, NOW);
    expect(h.health).toBe(health);
    if (health === "green") expect(h.reasons).toEqual([]);
    else expect(h.reasons.length).toBeGreaterThan(0);
    if (reason !== undefined) expect(h.reasons.join(" | ")).toContain(reason);
    // Order of input does not matter.
    expect(collectorHealth(EC2, [...runs].reverse(), NOW)).toEqual(h);
  });

  it("reports last_run, status and whole minutes_ago of the latest run", () => {
    const h = collectorHealth(
      EC2,
      [
        run({ at: min(10) }),
        run({ status: "partial", at: min(5) + 1 }),
        run({ collector: "config_ebs", at: NOW }),
      ],
      NOW,
    );
    expect(h).toMatchObject({ name: "config_ec2", last_run: min(5) + 1, status: "partial", minutes_ago: 4 });
  });

  it("never ran, registration unknown → nulls, red (no grace without a registration time)", () => {
    expect(collectorHealth(EC2, [], NOW)).toEqual({
      name: "config_ec2",
      last_run: null,
      status: null,
      minutes_ago: null,
      health: "red",
      reasons: ["never ran"],
      registered_at: null,
      new_until: null,
    });
  });

  it("ties on completed_at: the worse status is the latest", () => {
    const h = collectorHealth(EC2, [run({ status: "failed", at: min(3) }), run({ at: min(3) })], NOW);
    expect(h.status).toBe("failed");
  });

  it("collectorsHealth covers the registry in order", () => {
    const all = collectorsHealth(DEFAULT_COLLECTORS, [run({ at: min(1) })], NOW);
    expect(all.map((h) => [h.name, h.health])).toEqual([
      ["config_ec2", "green"],
      ["config_ebs", "red"],
      ["config_network", "red"],
      ["hierarchy_builder", "red"],
    ]);
  });
});

describe("a collector that ran and never succeeded: failing, then stale", () => {
  // Registered 10 min ago (by its first run, say), every run failed.
  const registered = { ...EC2, registered_at: min(10) };
  const failures = [min(9), min(6), min(3)].map((at) =>
    run({ ...A, status: "failed", at, error: "AccessDenied" }),
  );

  it("within 2 × interval of its registration: amber, failing (not stale), with its failures", () => {
    const h = collectorHealth(registered, failures, NOW);
    expect(h.health).toBe("amber");
    expect(h.reasons).toEqual([
      `failing: no run has succeeded yet (registered 10 min ago; stale if none succeeds by ${new Date(min(10) + 30 * MINUTE_MS).toISOString()})`,
      "latest run failed: AccessDenied",
      "A/us-east-1: 3 consecutive failed runs since last success",
    ]);
    expect(h.reasons.join(" ")).not.toMatch(/stale:|no succeeded run ever/);
  });

  it("one failed first run is failing too (amber), not waiting", () => {
    const h = collectorHealth(registered, [run({ status: "failed", at: min(9) })], NOW);
    expect(h.health).toBe("amber");
    expect(h.reasons[0]).toMatch(/^failing: no run has succeeded yet/);
  });

  it("exactly 2 × interval after its registration: still amber; 1 ms later: red, stale", () => {
    const at = (ms: number) => collectorHealth(registered, failures, min(10) + 30 * MINUTE_MS + ms);
    expect(at(0).health).toBe("amber");
    const late = at(1);
    expect(late.health).toBe("red");
    expect(late.reasons[0]).toBe(
      "stale: no succeeded run within 30 min (2 × 15 min) of its registration; it has run but never succeeded",
    );
  });
});
