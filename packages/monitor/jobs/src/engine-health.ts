/**
 * The alert engine's health as the status body shows it (docs/monitor-alerts.md "The monitor
 * watched"), from the round it completed last and `now` alone: whoever reads it (the status
 * endpoint, another process) needs nothing from the engine itself.
 */

/** The fields of a recorded round this reads (epoch ms). */
export interface EngineTickFacts {
  tick_at: number;
  completed_at: number;
  ok: boolean;
  error: string | null;
  interval_ms: number;
}

/**
 * - `never_ran`: no round recorded (a new deployment, or ticks kept for less than the engine's age).
 * - `late`: the last round completed more than LATE_INTERVALS × its interval ago — the loop stopped,
 *   crashes before it can record, or its schedule is disabled. Wins over `failing`: what matters
 *   then is that nothing runs at all.
 * - `failing`: the last round ran in time and threw (`last_error` says why).
 * - `ok`: the last round ran in time and completed.
 */
export type EngineState = "ok" | "late" | "failing" | "never_ran";

/**
 * Rounds missed before the engine counts as late: one missed round is a slow store or a cold start;
 * three in a row is a loop that is not running.
 */
export const LATE_INTERVALS = 3;

export interface EngineHealth {
  last_tick_at: number | null;
  last_completed_at: number | null;
  /** Seconds from the last completed round to `now` (never negative); null when none. */
  lag_s: number | null;
  interval_s: number | null;
  state: EngineState;
  last_error: string | null;
}

export function engineHealth(last: EngineTickFacts | null, now: number): EngineHealth {
  if (last === null)
    return {
      last_tick_at: null,
      last_completed_at: null,
      lag_s: null,
      interval_s: null,
      state: "never_ran",
      last_error: null,
    };
  const lagMs = Math.max(0, now - last.completed_at);
  const state: EngineState = lagMs > LATE_INTERVALS * last.interval_ms ? "late" : last.ok ? "ok" : "failing";
  return {
    last_tick_at: last.tick_at,
    last_completed_at: last.completed_at,
    lag_s: Math.round(lagMs / 1000),
    interval_s: last.interval_ms / 1000,
    state,
    last_error: last.ok ? null : last.error,
  };
}

/** Whether the engine's state should make the overall status at least amber: late or failing. */
export const engineNeedsAttention = (state: EngineState): boolean => state === "late" || state === "failing";
