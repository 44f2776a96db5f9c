/**
 * Runs seen while they run: a collector's run that has started (its start recorded, no final record
 * of the same run_id yet) is `running` until its collector's max duration has passed, then `hung`.
 * The max duration is the collector's own `max_duration_minutes` when set, else one learned from its
 * duration baseline, else a default from its schedule. Pure: `now` is a parameter.
 */
import type { DurationBaseline } from "./duration-baseline.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * A start without a final record is forgotten after this many hours (7 days): older starts are
 * neither shown nor alerted on. A collector killed before it could report would otherwise stay
 * "hung" for ever; a week covers the longest job a max duration of the registry may describe
 * beyond any daily or weekly schedule.
 */
export const MAX_OPEN_RUN_HOURS = 7 * 24;
export const MAX_OPEN_RUN_MS = MAX_OPEN_RUN_HOURS * HOUR_MS;
/** The most open runs one read returns (the newest starts first); the status body lists at most these. */
export const MAX_OPEN_RUNS_READ = 1000;

/**
 * The learned limit is the larger of 3 × the 90th percentile and the median + 30 minutes. The
 * multiple follows a collector whose runs are long (a 2-hour job may take 6 before it is hung); the
 * added half hour keeps a job of seconds from turning hung on one slow API call or a cold start.
 */
export const LEARNED_P90_FACTOR = 3;
export const LEARNED_MEDIAN_SLACK_MS = 30 * MINUTE_MS;
/** With neither a set nor a learned limit: this many expected intervals (the stale rule's span). */
export const DEFAULT_INTERVAL_FACTOR = 2;
/** ...or, for a collector with no expected interval (cron-only or unknown), 24 hours. */
export const DEFAULT_MAX_DURATION_MS = 24 * HOUR_MS;

/** A recorded start that has no final record yet. */
export interface OpenRun {
  run_id: string;
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  started_at: number;
}

/** What the hung rule reads of a collector's registry entry. */
export interface MaxDurationSpec {
  max_duration_minutes?: number | null;
  expected_interval_minutes?: number | null;
}

export type MaxDurationSource = "set" | "learned" | "default";
export type OpenRunStateName = "running" | "hung";

export interface OpenRunState extends OpenRun {
  state: OpenRunStateName;
  /** now − started_at (0 when the start lies ahead of `now`). */
  elapsed_ms: number;
  /** The max duration the run is judged against, and where it came from. */
  limit_ms: number;
  limit_source: MaxDurationSource;
}

/** The max duration learned from a baseline: max(3 × p90, median + 30 min). */
export function learnedMaxDurationMs(baseline: DurationBaseline): number {
  return Math.max(LEARNED_P90_FACTOR * baseline.p90_ms, baseline.median_ms + LEARNED_MEDIAN_SLACK_MS);
}

/** A collector's max duration: set, else learned (when it has a baseline), else the default. */
export function maxDurationOf(
  spec: MaxDurationSpec | undefined,
  baseline: DurationBaseline | null | undefined,
): { limit_ms: number; limit_source: MaxDurationSource } {
  const set = spec?.max_duration_minutes;
  if (set !== undefined && set !== null && set > 0) return { limit_ms: set * MINUTE_MS, limit_source: "set" };
  if (baseline !== undefined && baseline !== null)
    return { limit_ms: learnedMaxDurationMs(baseline), limit_source: "learned" };
  const interval = spec?.expected_interval_minutes;
  const limit =
    interval !== undefined && interval !== null && interval > 0
      ? DEFAULT_INTERVAL_FACTOR * interval * MINUTE_MS
      : DEFAULT_MAX_DURATION_MS;
  return { limit_ms: limit, limit_source: "default" };
}

/**
 * The state of each open run at `now`, oldest start first: `hung` once strictly more than its
 * collector's max duration has passed since it started. Starts older than `MAX_OPEN_RUN_MS` are
 * dropped (expired). `specs` and `baselines` are by collector name; a collector absent from `specs`
 * gets the 24-hour default (or its baseline's limit).
 */
export function openRunStates(
  runs: readonly OpenRun[],
  specs: ReadonlyMap<string, MaxDurationSpec>,
  baselines: ReadonlyMap<string, DurationBaseline | null>,
  now: number,
): OpenRunState[] {
  const out: OpenRunState[] = [];
  for (const r of runs) {
    const elapsed = Math.max(0, now - r.started_at);
    if (now - r.started_at > MAX_OPEN_RUN_MS) continue;
    const { limit_ms, limit_source } = maxDurationOf(specs.get(r.collector), baselines.get(r.collector));
    out.push({
      ...r,
      state: elapsed > limit_ms ? "hung" : "running",
      elapsed_ms: elapsed,
      limit_ms,
      limit_source,
    });
  }
  return out.sort(
    (a, b) => a.started_at - b.started_at || (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0),
  );
}

/** "2 h 5 min", "45 min", "30 s": a span for people (alert details, the page). */
export function formatSpan(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}
