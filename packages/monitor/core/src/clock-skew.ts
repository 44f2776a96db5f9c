/**
 * Time sanity: a reported time more than `maxSkewMs` ahead of the server's clock
 * is refused, naming the field and the skew. A record dated far in the future would otherwise make its
 * collector look fresh until the clock catches up. Pure: the caller reads `now` and passes it.
 */
import { at, type Issue } from "./result.ts";

/** Default allowance for a reporter's clock running ahead of the server's: 15 minutes. */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 15 * 60_000;

/** "15 min", "2 h 3 min", "200 d", "45 s": how far ahead, for people. */
export function formatSkew(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d`;
}

/** The message of a time too far ahead: names how far ahead it is and the allowance. */
export function clockSkewMessage(aheadMs: number, maxSkewMs: number): string {
  return `is ${formatSkew(aheadMs)} ahead of the server clock; at most ${formatSkew(maxSkewMs)} (${Math.floor(maxSkewMs / 1000)} s) ahead is accepted`;
}

/**
 * One issue per field of `times` (epoch ms) that lies more than `maxSkewMs` after `now`, in the order
 * of `times`; exactly `maxSkewMs` ahead is accepted. `path` prefixes each field (`[3]` → `[3].started_at`).
 */
export function checkClockSkew(
  times: Readonly<Record<string, number>>,
  now: number,
  maxSkewMs: number = DEFAULT_MAX_CLOCK_SKEW_MS,
  path = "",
): Issue[] {
  const out: Issue[] = [];
  for (const [field, t] of Object.entries(times)) {
    const ahead = t - now;
    if (ahead > maxSkewMs) out.push({ path: at(path, field), message: clockSkewMessage(ahead, maxSkewMs) });
  }
  return out;
}

/**
 * `checkClockSkew` over validated run records (`started_at`, `completed_at`). Paths are bare for a
 * single record (`indexed: false`, the body was one object) and `[i].field` for an array, as in
 * `validateRunBatch`.
 */
export function checkRunsClockSkew(
  records: readonly { started_at: number; completed_at: number }[],
  now: number,
  maxSkewMs: number = DEFAULT_MAX_CLOCK_SKEW_MS,
  indexed = true,
): Issue[] {
  return records.flatMap((r, i) =>
    checkClockSkew(
      { started_at: r.started_at, completed_at: r.completed_at },
      now,
      maxSkewMs,
      indexed ? `[${i}]` : "",
    ),
  );
}

/**
 * `MAX_CLOCK_SKEW_S` (whole seconds, ≥ 0) as milliseconds; the default when unset or empty. An invalid
 * value is an error naming the variable.
 */
export function maxClockSkewFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; value: number } | { ok: false; error: string } {
  const raw = env.MAX_CLOCK_SKEW_S?.trim();
  if (raw === undefined || raw === "") return { ok: true, value: DEFAULT_MAX_CLOCK_SKEW_MS };
  if (!/^\d{1,9}$/.test(raw))
    return { ok: false, error: `MAX_CLOCK_SKEW_S must be whole seconds ≥ 0 (got ${JSON.stringify(raw)})` };
  return { ok: true, value: Number(raw) * 1000 };
}
