/**
 * The `queryUid` of a search: a UUID version 7 (RFC 9562), as Meilisearch answers it in
 * `metadata.queryUid`. The first 48 bits are the milliseconds since the epoch, so uids sort by time
 * and a store can find a search's day from its uid alone. Pure: the clock and the random bytes are
 * parameters (the default draws them from `crypto.getRandomValues`, in Node and in workerd).
 */

/** `xxxxxxxx-xxxx-7xxx-[89ab]xxx-xxxxxxxxxxxx`, lower case. */
export const QUERY_UID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A UUID v7 from a time in ms and 10 random bytes (74 of their bits are used). */
export function uuidV7(nowMs: number, random: Uint8Array): string {
  if (random.length < 10) throw new RangeError("uuidV7 needs 10 random bytes");
  const ms = Math.max(0, Math.min(Math.floor(nowMs), 2 ** 48 - 1));
  const bytes = new Uint8Array(16);
  // 48-bit big-endian milliseconds (split: bit operations in JS are 32-bit).
  const high = Math.floor(ms / 2 ** 16);
  bytes[0] = (high >>> 24) & 0xff;
  bytes[1] = (high >>> 16) & 0xff;
  bytes[2] = (high >>> 8) & 0xff;
  bytes[3] = high & 0xff;
  bytes[4] = (ms >>> 8) & 0xff;
  bytes[5] = ms & 0xff;
  bytes.set(random.subarray(0, 10), 6);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f); // version 7
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f); // variant 10
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A new queryUid at `nowMs`. */
export function newQueryUid(
  nowMs: number,
  randomBytes: (bytes: Uint8Array) => Uint8Array = (b) => crypto.getRandomValues(b),
): string {
  return uuidV7(nowMs, randomBytes(new Uint8Array(10)));
}

/** The milliseconds a queryUid was made at (its first 48 bits); null for a string that is not one. */
export function queryUidTime(uid: string): number | null {
  if (!QUERY_UID.test(uid)) return null;
  return Number.parseInt(uid.slice(0, 8) + uid.slice(9, 13), 16);
}
