/**
 * The only form in which a shopper's id (`userId` of an event, `X-MS-USER-ID` of a search) is kept:
 * SHA-256 over the account and the id, lower-case hex. Keyed by the account so the same id sent to
 * two accounts cannot be joined across them; the id itself is never stored nor logged. Uses
 * crypto.subtle, present in Node and in workerd.
 */

/** Longest user id accepted (an event's `userId` or the `X-MS-USER-ID` header), in characters. */
export const MAX_USER_ID_CHARS = 256;

export async function hashUserId(account: string, userId: string): Promise<string> {
  const bytes = new TextEncoder().encode(`${account}\u0000${userId}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}
