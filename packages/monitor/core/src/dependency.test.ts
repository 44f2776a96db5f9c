import { describe, expect, it } from "vitest";
import { dependencyGate } from "./dependency.ts";
import type { RunRecord } from "./records.ts";
import { min, NOW, run } from "./test-support.ts";

describe("dependencyGate", () => {
  it.each<[string, RunRecord[], boolean]>([
    ["config_ec2 succeeded 19 min ago", [run({ collector: "config_ec2", at: min(19) })], true],
    ["config_network succeeded 1 min ago", [run({ collector: "config_network", at: min(1) })], true],
    [
      "config_ebs succeeded exactly 20 min ago (inclusive)",
      [run({ collector: "config_ebs", at: min(20) })],
      true,
    ],
    ["succeeded 20 min + 1 ms ago", [run({ collector: "config_ebs", at: min(20) - 1 })], false],
    ["succeeded 21 min ago", [run({ collector: "config_ec2", at: min(21) })], false],
    [
      "a failed run does not open it",
      [run({ collector: "config_ec2", status: "failed", at: min(1) })],
      false,
    ],
    [
      "a partial run does not open it",
      [run({ collector: "config_ec2", status: "partial", at: min(1) })],
      false,
    ],
    [
      "hierarchy_builder's own success does not count",
      [run({ collector: "hierarchy_builder", at: min(1) })],
      false,
    ],
    ["a success completed after now does not count", [run({ collector: "config_ec2", at: NOW + 1 })], false],
    ["nothing ran", [], false],
    [
      "an old success and a fresh failure",
      [
        run({ collector: "config_ec2", at: min(21) }),
        run({ collector: "config_ec2", status: "failed", at: min(1) }),
      ],
      false,
    ],
  ])("%s → ok %s", (_name, runs, ok) => {
    const gate = dependencyGate(runs, NOW);
    expect(gate.ok).toBe(ok);
    if (ok) expect(gate).toEqual({ ok: true });
    else if (!gate.ok) expect(gate.reason).toMatch(/^dependency not met: /);
  });

  it("explains the latest success in the reason", () => {
    expect(dependencyGate([run({ collector: "config_ebs", at: min(21) })], NOW)).toEqual({
      ok: false,
      reason:
        "dependency not met: no succeeded run of config_ec2, config_ebs, config_network completed in the last 20 min (latest: config_ebs 21 min ago)",
    });
    expect(dependencyGate([], NOW)).toMatchObject({ reason: expect.stringContaining("(none ever)") });
  });

  it("window is a parameter", () => {
    expect(dependencyGate([run({ at: min(21) })], NOW, 30).ok).toBe(true);
  });
});
