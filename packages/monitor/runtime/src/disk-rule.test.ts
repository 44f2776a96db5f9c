// The disk rule (fires above 80 %, resolves below 75 %) is pure in the core; this proves it reads the
// same figure whichever adapter measured the disk: a ClickHouse server (system.disks) or the embedded
// chDB stack (its data folder on the filesystem statfs reports). Figures are injected.
import type { StoreHealth } from "@monitor/core";
import { emptyState, evaluateConditions, step } from "@monitor/core";
import { describe, expect, it } from "vitest";
import { alertInput, analyticsDb, diskUsedRatio, type StoreSnapshot } from "./evaluate.ts";

const NOW = Date.UTC(2026, 10, 25, 12);
const GB = 1e9;
const empty: StoreSnapshot = { latest: [], successes: [], streaks: [], accounts: [], scans: [] };

function health(source: StoreHealth["sources"]["disk"], usedFraction: number): StoreHealth {
  const total = 100 * GB;
  return {
    disk_used_bytes: 3 * GB,
    svc_disk_used_bytes: 2 * GB,
    disk_total_bytes: total,
    disk_free_bytes: Math.round(total * (1 - usedFraction)),
    active_queries: 0,
    query_p50_ms: 1,
    query_p95_ms: 2,
    query_p99_ms: 3,
    query_samples: 10,
    sources: { disk: source, active_queries: "system.processes", query_latency: "client-timings" },
  };
}

describe.each(["system.parts+system.disks", "data-folder+statfs"] as const)(
  "the disk rule over %s",
  (source) => {
    it("81 % fires disk_high, 77 % keeps it, 74 % resolves it", () => {
      let state = emptyState();
      const seen: string[] = [];
      [0.81, 0.77, 0.74].forEach((fraction, i) => {
        const now = NOW + i * 60_000;
        const input = alertInput([], empty, health(source, fraction), now);
        state = step(state, evaluateConditions(input, now, state), now).state;
        seen.push(state.alerts["disk_high|analytics_db"]?.status ?? "none");
      });
      expect(seen).toEqual(["firing", "firing", "resolved"]);
    });

    it("the status body carries the figure the rule reads, and names its source", () => {
      const db = analyticsDb(health(source, 0.81));
      expect(db.disk_used_ratio).toBe(0.81);
      expect(db.disk_used_ratio).toBe(diskUsedRatio(health(source, 0.81)));
      expect(db.source.disk).toBe(source);
      expect(db.disk_total_gb).toBe(100);
    });
  },
);

it("an unknown disk (no total) is null in the body and keeps the rule as it was", () => {
  const h = { ...health("data-folder+statfs", 0.5), disk_total_bytes: null, disk_free_bytes: null };
  expect(analyticsDb(h).disk_used_ratio).toBeNull();
  expect(alertInput([], empty, h, NOW).disk_used_ratio).toBeNull();
});
