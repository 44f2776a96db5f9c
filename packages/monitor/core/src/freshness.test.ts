import { describe, expect, it } from "vitest";
import { freshnessList } from "./freshness.ts";
import { DEFAULT_COLLECTORS, type RunRecord } from "./records.ts";
import { min, NOW, run } from "./test-support.ts";

const all = (at: number) => DEFAULT_COLLECTORS.map((s) => run({ collector: s.name, at }));

describe("freshnessList", () => {
  it.each<[string, RunRecord[], [string, number | null][]]>([
    ["all fresh", all(min(5)), []],
    ["exactly 60 whole minutes: not over the threshold", all(min(60)), []],
    ["60 min 59.999 s is still 60 whole minutes", all(min(61) + 1), []],
    [
      "61 minutes: listed",
      [...all(min(5)).slice(1), run({ collector: "config_ec2", at: min(61) })],
      [["config_ec2", 61]],
    ],
    [
      "oldest first, never ran first of all",
      [
        run({ collector: "config_ec2", at: min(70) }),
        run({ collector: "config_ebs", at: min(90) }),
        run({ collector: "hierarchy_builder", at: min(10) }),
      ],
      [
        ["config_network", null],
        ["config_ebs", 90],
        ["config_ec2", 70],
      ],
    ],
    [
      "the latest run counts whatever its status",
      [
        ...all(min(5)).slice(1),
        run({ collector: "config_ec2", status: "failed", at: min(1) }),
        run({ at: min(100) }),
      ],
      [],
    ],
    [
      "nothing ran: every collector, by name",
      [],
      DEFAULT_COLLECTORS.map((s) => [s.name, null] as [string, null]).sort(),
    ],
  ])("%s", (_name, runs, expected) => {
    expect(freshnessList(DEFAULT_COLLECTORS, runs, NOW).map((e) => [e.name, e.minutes])).toEqual(expected);
  });

  it("carries status and error of the latest run", () => {
    const runs = [
      ...all(min(5)).slice(1),
      run({ collector: "config_ec2", at: min(200) }),
      run({ collector: "config_ec2", status: "failed", at: min(80), error: "AccessDenied" }),
    ];
    expect(freshnessList(DEFAULT_COLLECTORS, runs, NOW)).toEqual([
      {
        name: "config_ec2",
        threshold_minutes: 60,
        last_run: min(80),
        minutes: 80,
        status: "failed",
        error: "AccessDenied",
      },
    ]);
  });

  it("never ran → minutes, status, error null", () => {
    expect(freshnessList(DEFAULT_COLLECTORS.slice(0, 1), [], NOW)).toEqual([
      { name: "config_ec2", threshold_minutes: 60, last_run: null, minutes: null, status: null, error: null },
    ]);
  });
});
