/** Hand-built scenarios for the rule tests: a fixed `now` and terse record builders. */
import type { AccountRecord, AccountStatus, CollectorSpec, RunRecord, RunStatus } from "./records.ts";
import { HOUR_MS, MINUTE_MS } from "./records.ts";

export const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
export const min = (m: number): number => NOW - m * MINUTE_MS;
export const hours = (h: number): number => NOW - h * HOUR_MS;

let seq = 0;
export function uuid(n: number = ++seq): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
}

export interface RunSketch {
  status?: RunStatus;
  /** `completed_at` as epoch ms; defaults to `now`. */
  at?: number;
  collector?: string;
  account?: string;
  region?: string;
  error?: string;
  run_id?: string;
}

export function run(s: RunSketch = {}): RunRecord {
  const completed = s.at ?? NOW;
  const status = s.status ?? "succeeded";
  return {
    run_id: s.run_id ?? uuid(),
    collector: s.collector ?? "config_ec2",
    cloud_account_id: s.account ?? "111111111111",
    cloud_region: s.region ?? "us-east-1",
    started_at: completed - 30_000,
    completed_at: completed,
    status,
    events_produced: 10,
    rows_inserted: 10,
    error: s.error ?? (status === "failed" ? "boom" : ""),
    duration_ms: 30_000,
  };
}

export const EC2: CollectorSpec = {
  name: "config_ec2",
  expected_interval_minutes: 15,
  freshness_threshold_minutes: 60,
};

export function account(
  id: string,
  svc_status: AccountStatus,
  updated_at: number,
  name = `acct-${id}`,
): AccountRecord {
  return { account_id: id, account_name: name, svc_status, updated_at };
}
