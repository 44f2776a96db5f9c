/**
 * The drift check's bounds and its environment (DRIFT_PSI_THRESHOLD, DRIFT_CHECK_INTERVAL_MS),
 * apart from the runner (drift-check.ts) so the package's index carries no notification code.
 */
import { PSI_DRIFT_THRESHOLD } from "./psi.ts";

/** (account, index, model) triples one run checks at most: each is one store query and maybe an artifact read. */
export const MAX_DRIFT_CHECK_MODELS = 1000;
/** The interval of npm start's check (DRIFT_CHECK_INTERVAL_MS): hourly, so a day's verdict is out early on the next. */
export const DEFAULT_DRIFT_CHECK_INTERVAL_MS = 3_600_000;
export const MIN_DRIFT_CHECK_INTERVAL_MS = 10_000;
export const MAX_DRIFT_CHECK_INTERVAL_MS = 86_400_000;
/** The largest DRIFT_PSI_THRESHOLD: beyond it nothing short of a total change would ever fire. */
export const MAX_DRIFT_PSI_THRESHOLD = 10;

export interface DriftCheckEnv {
  threshold: number;
  intervalMs: number;
}

/** DRIFT_PSI_THRESHOLD and DRIFT_CHECK_INTERVAL_MS, checked; a problem names the variable and its bound. */
export function driftCheckEnv(
  env: Record<string, string | undefined>,
): { ok: true; value: DriftCheckEnv } | { ok: false; error: string } {
  const t = env.DRIFT_PSI_THRESHOLD?.trim() ?? "";
  const threshold = t === "" ? PSI_DRIFT_THRESHOLD : Number(t);
  if (!(Number.isFinite(threshold) && threshold > 0 && threshold <= MAX_DRIFT_PSI_THRESHOLD))
    return {
      ok: false,
      error: `DRIFT_PSI_THRESHOLD must be a number above 0 and at most ${MAX_DRIFT_PSI_THRESHOLD}, got ${JSON.stringify(t)}`,
    };
  const i = env.DRIFT_CHECK_INTERVAL_MS?.trim() ?? "";
  const intervalMs = i === "" ? DEFAULT_DRIFT_CHECK_INTERVAL_MS : Number(i);
  if (
    !(
      Number.isInteger(intervalMs) &&
      intervalMs >= MIN_DRIFT_CHECK_INTERVAL_MS &&
      intervalMs <= MAX_DRIFT_CHECK_INTERVAL_MS
    )
  )
    return {
      ok: false,
      error: `DRIFT_CHECK_INTERVAL_MS must be a whole number of ms from ${MIN_DRIFT_CHECK_INTERVAL_MS} to ${MAX_DRIFT_CHECK_INTERVAL_MS}, got ${JSON.stringify(i)}`,
    };
  return { ok: true, value: { threshold, intervalMs } };
}
