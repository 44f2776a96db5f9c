import type { OpenRunState } from "@monitor/jobs";
import { describe, expect, it } from "vitest";
import { evaluateConditions } from "./rules.ts";
import { alertAnchor } from "./types.ts";

const T0 = Date.UTC(2026, 10, 2, 2, 0, 0);
const MIN = 60_000;
const open = (p: Partial<OpenRunState>): OpenRunState => ({
  run_id: "00000000-0000-4000-8000-000000000001",
  collector: "backup",
  cloud_account_id: "111111111111",
  cloud_region: "us-east-1",
  started_at: T0,
  state: "hung",
  elapsed_ms: 90 * MIN,
  limit_ms: 60 * MIN,
  limit_source: "set",
  ...p,
});
const input = (open_runs: OpenRunState[]) => ({
  collectors: [],
  streaks: [],
  accounts: [],
  unscanned: [],
  dead_letter_queues: [],
  disk_used_ratio: null,
  open_runs,
});

describe("collector_hung", () => {
  it("fires a warning per collector/account/region for a hung run, naming the run, elapsed and limit", () => {
    const out = evaluateConditions(input([open({})]), T0 + 90 * MIN);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      rule: "collector_hung",
      subject: "backup/111111111111/us-east-1",
      severity: "warning",
      muted: false,
    });
    expect(out[0]?.detail).toBe(
      "run 00000000-0000-4000-8000-000000000001 started 2026-11-02T02:00:00.000Z and has not finished after 1 h 30 min; its max duration is 1 h (set)",
    );
    expect(alertAnchor("collector_hung", "backup/111111111111/us-east-1")).toBe("collector-backup");
  });

  it("does not fire for a run still within its max duration, nor twice for one subject", () => {
    expect(evaluateConditions(input([open({ state: "running" })]), T0)).toEqual([]);
    const two = evaluateConditions(
      input([open({}), open({ run_id: "00000000-0000-4000-8000-000000000002", started_at: T0 + MIN })]),
      T0 + 90 * MIN,
    );
    expect(two.map((c) => c.detail.slice(0, 40))).toEqual(["run 00000000-0000-4000-8000-000000000001"]);
  });
});
