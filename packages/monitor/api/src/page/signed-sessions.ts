/**
 * Stateless sessions of the `/system` page: the cookie carries its own session, signed with
 * HMAC-SHA256 (Hono's `setSignedCookie`/`getSignedCookie`), so any instance holding the keys accepts
 * it — two Lambda instances, or two `npm start` processes on one data folder. The signed payload is
 * `v1.<id>.<expires at, epoch ms>`: a random id (never the monitor token) and the expiry, which the
 * server checks itself (the cookie's Max-Age only tells the browser when to drop it).
 *
 * Keys (`MONITOR_SESSION_KEYS`, comma-separated): the first signs, every listed key verifies, so a key
 * is rotated by putting the new one first, and dropped after a session lifetime (12 h) without
 * logging anyone out.
 *
 * Sessions end for good, not only in the browser:
 * - at logout, the session id goes to an `EndedSessionStore` every instance reads (SQLite in
 *   DATA_DIR, a DynamoDB item on AWS), so a copy of the cookie taken before is refused everywhere,
 *   after a restart too;
 * - when the monitor token changes: the cookie is signed with keys derived from each listed key and
 *   the token (HMAC-SHA256 of the token under the key), so a new token makes every earlier cookie
 *   (and CSRF token) invalid, with nothing stored;
 * - when every key that signed it is dropped from the list.
 * See docs/monitor-page.md.
 */

import type { EndedSessionStore } from "@monitor/core";
import type { Context } from "hono";
import { getSignedCookie, setCookie, setSignedCookie } from "hono/cookie";
import { timingSafeEqual } from "hono/utils/buffer";
import { SESSION_COOKIE, SESSION_TTL_MS } from "./sessions.ts";

/** The environment variable of the session keys (npm start, the status Lambda). */
export const SESSION_KEYS_ENV = "MONITOR_SESSION_KEYS";
/** The shortest accepted key: 32 characters (a generated key is 43, 32 random bytes in base64url). */
export const MIN_SESSION_KEY_CHARS = 32;

const KEY_CHARS = /^[!-+\--~]+$/; // printable ASCII without space and comma

export interface SessionKeysIssue {
  path: string;
  message: string;
}

/**
 * The keys of a `MONITOR_SESSION_KEYS` value: comma-separated, blanks around them ignored, at least
 * one, each at least `MIN_SESSION_KEY_CHARS` printable characters, none repeated.
 */
export function parseSessionKeys(
  raw: string,
  name = SESSION_KEYS_ENV,
): { ok: true; value: string[] } | { ok: false; errors: SessionKeysIssue[] } {
  const keys = raw
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
  const errors: SessionKeysIssue[] = [];
  if (keys.length === 0) errors.push({ path: name, message: "lists no key" });
  keys.forEach((k, i) => {
    if (k.length < MIN_SESSION_KEY_CHARS)
      errors.push({ path: `${name}[${i}]`, message: `must be at least ${MIN_SESSION_KEY_CHARS} characters` });
    else if (!KEY_CHARS.test(k))
      errors.push({ path: `${name}[${i}]`, message: "must be printable ASCII without spaces" });
    if (keys.indexOf(k) !== i) errors.push({ path: `${name}[${i}]`, message: "repeats an earlier key" });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: keys };
}

/** A new random key (32 bytes, base64url): npm start's generated key, or a key to put in the secret. */
export function generateSessionKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** What a valid session cookie says. */
export interface SessionClaims {
  /** 128 random bits, hex (in logs, a session's name; never a credential by itself). */
  id: string;
  /** Expiry, epoch ms. */
  expiresAt: number;
}

async function hmac(key: string, data: string): Promise<string> {
  const k = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(data)));
  return btoa(String.fromCharCode(...mac))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

const PAYLOAD = /^v1\.([0-9a-f]{32})\.(\d{13})$/;
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

export interface CookieAttributes {
  /** Whether the browser reached us over HTTPS (the cookie is then `Secure`). */
  secure: boolean;
}

export interface SessionBinding {
  /**
   * The monitor token: the signing keys are derived from it, so a cookie issued under another token
   * is refused. Absent: the listed keys sign as they are.
   */
  token?: string;
  /** Where logouts are recorded and checked. Absent: a logout only clears the browser's cookie. */
  ended?: EndedSessionStore;
}

/** A signing key bound to the monitor token: HMAC-SHA256(token) under the listed key, base64url. */
function boundKey(key: string, token: string): Promise<string> {
  return hmac(key, `svcmon-session-key.${token}`);
}

export class SignedPageSessions {
  readonly #listed: readonly string[];
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #token: string | undefined;
  readonly #ended: EndedSessionStore | undefined;
  #bound: Promise<readonly string[]> | undefined;

  /** `keys`: the first signs, all verify. */
  constructor(
    keys: readonly string[],
    now: () => number = Date.now,
    ttlMs: number = SESSION_TTL_MS,
    binding: SessionBinding = {},
  ) {
    if (keys.length === 0) throw new Error("SignedPageSessions: no session key");
    for (const k of keys) {
      if (k.length < MIN_SESSION_KEY_CHARS)
        throw new Error(
          `SignedPageSessions: a session key must be at least ${MIN_SESSION_KEY_CHARS} characters`,
        );
    }
    this.#listed = [...keys];
    this.#now = now;
    this.#ttlMs = ttlMs;
    this.#token = binding.token;
    this.#ended = binding.ended;
  }

  /** The keys that sign and verify: the listed ones, bound to the token when there is one. */
  #keys(): Promise<readonly string[]> {
    const token = this.#token;
    this.#bound ??=
      token === undefined
        ? Promise.resolve(this.#listed)
        : Promise.all(this.#listed.map((k) => boundKey(k, token)));
    return this.#bound;
  }

  /** Starts a session: sets the signed cookie on the response; returns what it carries. */
  async issue(c: Context, attrs: CookieAttributes): Promise<SessionClaims> {
    const id = hex(crypto.getRandomValues(new Uint8Array(16)));
    const expiresAt = this.#now() + this.#ttlMs;
    const [signing] = await this.#keys();
    await setSignedCookie(c, SESSION_COOKIE, `v1.${id}.${expiresAt}`, signing as string, {
      path: "/",
      httpOnly: true,
      sameSite: "Strict",
      maxAge: Math.floor(this.#ttlMs / 1000),
      secure: attrs.secure,
    });
    return { id, expiresAt };
  }

  /**
   * The request's session when its cookie is signed by a listed key (bound to the current token),
   * has not expired and was not ended by a logout.
   */
  async read(c: Context): Promise<SessionClaims | undefined> {
    if (!(c.req.header("cookie") ?? "").includes(SESSION_COOKIE)) return undefined;
    for (const key of await this.#keys()) {
      const value = await getSignedCookie(c, key, SESSION_COOKIE);
      if (typeof value !== "string") continue;
      const m = PAYLOAD.exec(value);
      if (m === null) return undefined;
      const expiresAt = Number(m[2]);
      if (expiresAt <= this.#now()) return undefined;
      const id = m[1] as string;
      if (this.#ended !== undefined && (await this.#ended.ended(id))) return undefined;
      return { id, expiresAt };
    }
    return undefined;
  }

  /**
   * Ends the request's session for good: recorded in the ended-session store (every instance then
   * refuses the cookie, copies included), expired records pruned. The browser's cookie is cleared by
   * `clear`.
   */
  async end(c: Context): Promise<void> {
    if (this.#ended === undefined) return;
    const claims = await this.read(c);
    if (claims === undefined) return;
    await this.#ended.end(claims.id, claims.expiresAt);
    await this.#ended.prune(this.#now());
  }

  /**
   * The session's CSRF token: HMAC-SHA256 of its id under the signing key (base64url). The page
   * embeds it and sends it back in the `X-CSRF-Token` header (or a form field) of every write.
   */
  async csrfToken(claims: SessionClaims): Promise<string> {
    const [signing] = await this.#keys();
    return hmac(signing as string, `csrf.${claims.id}`);
  }

  /** Whether `given` is the CSRF token of the request's live session (under any listed key). */
  async csrfValid(c: Context, given: string | undefined): Promise<boolean> {
    if (given === undefined || given === "") return false;
    const claims = await this.read(c);
    if (claims === undefined) return false;
    let ok = false;
    for (const key of await this.#keys()) {
      if (await timingSafeEqual(await hmac(key, `csrf.${claims.id}`), given)) ok = true;
    }
    return ok;
  }

  async valid(c: Context): Promise<boolean> {
    return (await this.read(c)) !== undefined;
  }

  /** Ends the session in this browser: the cookie is replaced by an empty one that expires at once. */
  clear(c: Context, attrs: CookieAttributes): void {
    // The same attributes as the session cookie, so the browser replaces that one.
    setCookie(c, SESSION_COOKIE, "", {
      path: "/",
      httpOnly: true,
      sameSite: "Strict",
      maxAge: 0,
      secure: attrs.secure,
    });
  }
}
