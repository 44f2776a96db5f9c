import { describe, expect, it } from "vitest";
import { coverage, latestAccounts } from "./coverage.ts";
import type { AccountRecord, AccountStatus, RunRecord } from "./records.ts";
import { account, hours, NOW, run } from "./test-support.ts";

describe("latestAccounts: account status versions", () => {
  it.each<[string, AccountRecord[], AccountStatus | undefined, string?]>([
    ["single version", [account("1", "active", hours(5))], "active"],
    [
      "older active, newer no_access → no_access",
      [account("1", "active", hours(5)), account("1", "no_access", hours(1))],
      "no_access",
    ],
    [
      "newer first in input: latest still wins",
      [account("1", "active", hours(1)), account("1", "pending_setup", hours(5))],
      "active",
    ],
    [
      "pending_setup then active",
      [account("1", "pending_setup", hours(48)), account("1", "active", hours(2))],
      "active",
    ],
    [
      "tie on updated_at: more severe status wins",
      [account("1", "no_access", hours(1)), account("1", "active", hours(1))],
      "no_access",
    ],
    [
      "tie on updated_at and status: greater name wins",
      [account("1", "active", hours(1), "b"), account("1", "active", hours(1), "a")],
      "active",
      "b",
    ],
    [
      "version updated after now is ignored",
      [account("1", "active", hours(1)), account("1", "no_access", NOW + 1)],
      "active",
    ],
    ["only a future version: account not yet known", [account("1", "active", NOW + 1)], undefined],
  ])("%s", (_name, versions, status, name) => {
    for (const input of [versions, [...versions].reverse()]) {
      const [latest] = latestAccounts(input, NOW);
      expect(latest?.svc_status).toBe(status);
      if (name !== undefined) expect(latest?.account_name).toBe(name);
    }
  });
});

describe("coverage", () => {
  const accounts = [
    account("1", "active", hours(100)),
    account("2", "active", hours(100)),
    account("2", "no_access", hours(10)),
    account("3", "pending_setup", hours(10)),
    account("4", "active", hours(100)),
    account("5", "active", hours(100)),
  ];

  it("counts by latest status and warns for pending_setup and no_access", () => {
    const c = coverage(accounts, [], NOW);
    expect(c.counts).toEqual({ active: 3, pending_setup: 1, no_access: 1 });
    expect(c.accounts.map((a) => a.account_id)).toEqual(["1", "2", "3", "4", "5"]);
    expect(c.warnings).toEqual([
      { account_id: "2", account_name: "acct-2", svc_status: "no_access" },
      { account_id: "3", account_name: "acct-3", svc_status: "pending_setup" },
    ]);
  });

  it.each<[string, RunRecord[], boolean]>([
    [
      "succeeded 1 h ago (any collector)",
      [run({ account: "1", collector: "hierarchy_builder", at: hours(1) })],
      false,
    ],
    ["succeeded exactly 24 h ago (inclusive)", [run({ account: "1", at: hours(24) })], false],
    ["succeeded 24 h + 1 ms ago", [run({ account: "1", at: hours(24) - 1 })], true],
    [
      "only failed and partial runs in 24 h",
      [
        run({ account: "1", status: "failed", at: hours(1) }),
        run({ account: "1", status: "partial", at: hours(2) }),
      ],
      true,
    ],
    ["never scanned", [], true],
    ["another account's success does not count", [run({ account: "4", at: hours(1) })], true],
    ["success completed after now does not count", [run({ account: "1", at: NOW + 1 })], true],
  ])("account 1: %s → unscanned %s", (_name, runs, unscanned) => {
    const c = coverage(accounts, runs, NOW);
    expect(c.unscanned.some((u) => u.account_id === "1")).toBe(unscanned);
  });

  it("lists only active accounts as unscanned, with the last scan time", () => {
    const runs = [
      run({ account: "1", at: hours(1) }),
      run({ account: "4", at: hours(30) }),
      run({ account: "4", status: "failed", at: hours(1) }),
    ];
    expect(coverage(accounts, runs, NOW).unscanned).toEqual([
      { account_id: "4", account_name: "acct-4", last_scanned_at: hours(30) },
      { account_id: "5", account_name: "acct-5", last_scanned_at: null },
    ]);
  });
});
