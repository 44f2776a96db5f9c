/**
 * Content-derived ids of notification intents. An id must stay the same when the same owed items are
 * emitted again (a retry, a restart after a crash), so a persistent delivery log can tell which
 * channels already accepted it; and it must not come back for other items, even after the alert state
 * was lost and episode numbers start again at 1 (the delivery log outlives that).
 */
import { hash64 } from "./hash.ts";
import type { AlertRule } from "./types.ts";

export { hash64 } from "./hash.ts";

/**
 * `<rule>:<hash of the items' identities>`. An item's identity is its alert key, kind, episode and
 * the instant it is about (see `step`); the order of `identities` does not matter.
 */
export function notificationIntentId(rule: AlertRule, identities: readonly string[]): string {
  return `${rule}:${hash64([...identities].sort().join("\n"))}`;
}
