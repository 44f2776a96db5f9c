import { describe, expect, it } from "vitest";
import { failingSubjects, failureStreaks } from "./failures.ts";
import type { RunStatus } from "./records.ts";
import { min, NOW, run, uuid } from "./test-support.ts";

const seq = (statuses: RunStatus[]) =>
  statuses.map((status, i) => run({ status, at: min(100 - i * 10), error: `e${i}` }));

describe("failureStreaks", () => {
  it.each<[string, RunStatus[], number, boolean]>([
    ["no failures", ["succeeded", "succeeded"], 0, true],
    ["three failures since the last success", ["succeeded", "failed", "failed", "failed"], 3, true],
    ["two failures since the last success", ["succeeded", "failed", "failed"], 2, true],
    ["failures before the last success do not count", ["failed", "failed", "failed", "succeeded"], 0, true],
    ["never succeeded: every failure counts", ["failed", "failed", "failed", "failed"], 4, false],
    ["partial breaks the streak", ["succeeded", "failed", "failed", "partial", "failed"], 1, true],
    ["partial at the end: streak 0", ["succeeded", "failed", "failed", "failed", "partial"], 0, true],
  ])("%s → %i", (_name, statuses, expected, succeeded) => {
    const runs = seq(statuses);
    const [s] = failureStreaks(runs, NOW);
    expect(s?.consecutive_failures).toBe(expected);
    expect(s?.last_success_at !== null).toBe(succeeded);
    expect(s?.last_error).toBe(expected > 0 ? `e${statuses.length - 1}` : "");
  });

  it("keys by collector, account and region, sorted", () => {
    const runs = [
      run({ collector: "config_ebs", account: "B", status: "failed" }),
      run({ collector: "config_ebs", account: "A", region: "eu-west-1", status: "failed" }),
      run({ collector: "config_ec2", account: "A", status: "succeeded" }),
    ];
    expect(failureStreaks(runs, NOW).map((s) => [s.collector, s.cloud_account_id, s.cloud_region])).toEqual([
      ["config_ebs", "A", "eu-west-1"],
      ["config_ebs", "B", "us-east-1"],
      ["config_ec2", "A", "us-east-1"],
    ]);
  });

  it("duplicate run_id counted once; runs after now ignored", () => {
    const id = uuid(7777);
    const runs = [
      run({ at: min(60) }),
      run({ status: "failed", at: min(30), run_id: id }),
      run({ status: "failed", at: min(30), run_id: id }),
      run({ status: "failed", at: min(20) }),
      run({ status: "failed", at: NOW + 1 }),
    ];
    expect(failureStreaks(runs, NOW)[0]?.consecutive_failures).toBe(2);
    expect(failingSubjects(runs, NOW)).toEqual([]);
    expect(failingSubjects(runs, NOW + 1)).toHaveLength(1);
  });
});
