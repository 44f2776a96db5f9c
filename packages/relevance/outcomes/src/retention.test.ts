import { afterEach, describe, expect, it, vi } from "vitest";
import { checkRetentionDays, retentionDaysFromEnv, startRetentionPurge } from "./retention.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("retention", () => {
  it("reads OUTCOME_RETENTION_DAYS: 90 by default, whole days from 1 to 3650", () => {
    expect(retentionDaysFromEnv({})).toBe(90);
    expect(retentionDaysFromEnv({ OUTCOME_RETENTION_DAYS: " 30 " })).toBe(30);
    for (const bad of ["0", "3651", "x", "2.5", "-1"])
      expect(() => retentionDaysFromEnv({ OUTCOME_RETENTION_DAYS: bad })).toThrow(/OUTCOME_RETENTION_DAYS/);
    expect(() => checkRetentionDays(Number.NaN)).toThrow(RangeError);
  });

  it("purges at start and every interval, with the cut-off retention days before now, until stopped", async () => {
    vi.useFakeTimers();
    let now = 100 * 86_400_000;
    const cutoffs: number[] = [];
    const purge = startRetentionPurge({
      store: { purge: async (before) => void cutoffs.push(before) },
      retentionDays: 30,
      now: () => now,
      log: { warn() {} },
      intervalMs: 1000,
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(cutoffs).toEqual([70 * 86_400_000]);
    now += 86_400_000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(cutoffs).toEqual([70 * 86_400_000, 71 * 86_400_000]);
    await purge.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(cutoffs).toHaveLength(2);
  });

  it("logs a failed purge and tries again at the next tick", async () => {
    vi.useFakeTimers();
    const warnings: unknown[] = [];
    let calls = 0;
    const purge = startRetentionPurge({
      store: {
        purge: async () => {
          calls += 1;
          if (calls === 1) throw new Error("ClickHouse at http://ch unreachable");
        },
      },
      retentionDays: 1,
      now: () => 0,
      log: { warn: (m, f) => warnings.push([m, f]) },
      intervalMs: 1000,
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    expect(warnings).toEqual([
      [
        "outcome retention purge failed; retried at the next tick",
        { error: "ClickHouse at http://ch unreachable" },
      ],
    ]);
    await purge.stop();
  });
});
