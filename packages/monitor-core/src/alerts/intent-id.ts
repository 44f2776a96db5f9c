/**
 * Content-derived ids of notification intents. An id must stay the same when the same owed items are
 * emitted again (a retry, a restart after a crash), so a persistent delivery log can tell which
 * channels already accepted it; and it must not come back for other items, even after the alert state
 * was lost and episode numbers start again at 1 (the delivery log outlives that).
 */
import type { AlertRule } from "./types.ts";

/**
 * 64-bit string hash (cyrb53 by bryc, public domain, with both 32-bit lanes kept) as 16 hex digits.
 * Not cryptographic: ids are not secrets, they only need to be distinct.
 */
export function hash64(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, "0") + (h1 >>> 0).toString(16).padStart(8, "0");
}

/**
 * `<rule>:<hash of the items' identities>`. An item's identity is its alert key, kind, episode and
 * the instant it is about (see `step`); the order of `identities` does not matter.
 */
export function notificationIntentId(rule: AlertRule, identities: readonly string[]): string {
  return `${rule}:${hash64([...identities].sort().join("\n"))}`;
}
