// The clock the 24 h grace period is measured at, and the store's own record of when a key was
// written: deleting an old model version must not rest on the caller's clock alone (a machine whose
// clock runs ahead would end grace periods early).
import type { Kv, KvWriteTimes } from "@relevance/settings";

export const hasWriteTimes = (kv: Kv): kv is Kv & KvWriteTimes =>
  typeof (kv as Partial<KvWriteTimes>).writeTimes === "function" &&
  typeof (kv as Partial<KvWriteTimes>).putStamped === "function";

/** Differences below this are clock resolution (the Cloudflare API's `Date` has whole seconds), not skew. */
const SKEW_TOLERANCE_MS = 2_000;

export interface GraceClock {
  /** The time grace periods are measured at. */
  at: Date;
  /** Where it came from, for the operator. */
  source: "RELEVANCE_NOW" | "this machine" | "the store";
  /** One line when the store's clock was used (it is behind this machine's), else null. */
  note: string | null;
}

/**
 * The caller's time, but never later than the store's own clock when the store tells it: of two
 * clocks that disagree, the earlier one keeps models longer, which is the safe side of a delete.
 * RELEVANCE_NOW (accepted on `local` only, for tests and rehearsals) is taken as it is.
 */
export function graceClock(callerNow: Date, storeNow: Date | null, overridden: boolean): GraceClock {
  if (overridden) return { at: callerNow, source: "RELEVANCE_NOW", note: null };
  if (storeNow === null || storeNow.getTime() >= callerNow.getTime() - SKEW_TOLERANCE_MS)
    return { at: callerNow, source: "this machine", note: null };
  const behindS = Math.round((callerNow.getTime() - storeNow.getTime()) / 1000);
  return {
    at: storeNow,
    source: "the store",
    note: `measuring the 24 h grace period at ${storeNow.toISOString()}, the store's clock: this machine's clock is ${behindS} s ahead of it`,
  };
}

/** The store's write times under `prefix` and its clock; nothing when the KV keeps none. */
export async function storeTimes(
  kv: Kv,
  prefix: string,
): Promise<{ times: Map<string, string>; storeNow: Date | null }> {
  return hasWriteTimes(kv) ? kv.writeTimes(prefix) : { times: new Map(), storeNow: null };
}
