/**
 * The status body's `alert_engine` (docs/monitor-api.md): the alert engine's health from the round
 * it recorded last and `now` (@monitor/jobs `engineHealth`), with times as ISO text. Read by the
 * status endpoint, which may run in another process than the engine (another Lambda).
 */
import type { EngineTickStore } from "@monitor/core";
import { type EngineState, engineHealth } from "@monitor/jobs";

export interface AlertEngineStatusJson {
  last_tick_at: string | null;
  last_completed_at: string | null;
  lag_s: number | null;
  interval_s: number | null;
  state: EngineState;
  last_error: string | null;
}

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export async function alertEngineStatus(ticks: EngineTickStore, now: number): Promise<AlertEngineStatusJson> {
  const h = engineHealth(await ticks.latest(), now);
  return {
    last_tick_at: isoOrNull(h.last_tick_at),
    last_completed_at: isoOrNull(h.last_completed_at),
    lag_s: h.lag_s,
    interval_s: h.interval_s,
    state: h.state,
    last_error: h.last_error,
  };
}
