/**
 * `hierarchy_builder` dependency gate: open when a `succeeded` run of an upstream
 * collector (config_ec2, config_ebs, config_network) completed within the last `windowMinutes`,
 * i.e. `now − window ≤ completed_at ≤ now` (inclusive at exactly 20 minutes).
 */
import {
  DEPENDENCY_WINDOW_MINUTES,
  type EpochMs,
  lastOf,
  MINUTE_MS,
  type RunRecord,
  runsAsOf,
  UPSTREAM_COLLECTORS,
  wholeMinutes,
} from "./records.ts";

export type GateResult = { ok: true } | { ok: false; reason: string };

export function dependencyGate(
  runs: readonly RunRecord[],
  now: EpochMs,
  windowMinutes: number = DEPENDENCY_WINDOW_MINUTES,
  upstream: readonly string[] = UPSTREAM_COLLECTORS,
): GateResult {
  const successes = runsAsOf(runs, now).filter(
    (r) => r.status === "succeeded" && upstream.includes(r.collector),
  );
  const latest = lastOf(successes);
  if (latest !== null && latest.completed_at >= now - windowMinutes * MINUTE_MS) return { ok: true };
  const last =
    latest === null
      ? "none ever"
      : `latest: ${latest.collector} ${wholeMinutes(now - latest.completed_at)} min ago`;
  return {
    ok: false,
    reason: `dependency not met: no succeeded run of ${upstream.join(", ")} completed in the last ${windowMinutes} min (${last})`,
  };
}
