/**
 * The session cookie's name and lifetime (shared with `SignedPageSessions`, which the app uses: a
 * signed, stateless cookie, see signed-sessions.ts), and the earlier sessions held in memory, kept
 * for callers of this module's exports: the cookie carries a random session id
 * (never the monitor token) and the server keeps only the SHA-256 of each live id. A restart forgets
 * every session (users log in again). See docs/monitor-page.md.
 */

import { parse } from "hono/utils/cookie";

export const SESSION_COOKIE = "svcmon_session";
/** A session lives 12 hours from login. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Oldest sessions are dropped beyond this many. */
export const MAX_SESSIONS = 1000;

const encoder = new TextEncoder();
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

async function digest(id: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(id))));
}

/** The value of cookie `name` in a Cookie header, or undefined (Hono's cookie parser). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  return parse(header, name)[name];
}

const ID_RE = /^[0-9a-f]{64}$/;

export class PageSessions {
  /** sha256(id) → expiry (epoch ms). Insertion order is creation order. */
  readonly #live = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Starts a session; returns the id to put in the cookie. */
  async create(): Promise<string> {
    const id = hex(crypto.getRandomValues(new Uint8Array(32)));
    this.#live.set(await digest(id), this.#now() + SESSION_TTL_MS);
    while (this.#live.size > MAX_SESSIONS) {
      const oldest = this.#live.keys().next().value as string;
      this.#live.delete(oldest);
    }
    return id;
  }

  /** Whether the Cookie header carries a live session. */
  async valid(cookieHeader: string | undefined): Promise<boolean> {
    const id = readCookie(cookieHeader, SESSION_COOKIE);
    if (id === undefined || !ID_RE.test(id)) return false;
    const key = await digest(id);
    const exp = this.#live.get(key);
    if (exp === undefined) return false;
    if (exp <= this.#now()) {
      this.#live.delete(key);
      return false;
    }
    return true;
  }

  async end(cookieHeader: string | undefined): Promise<void> {
    const id = readCookie(cookieHeader, SESSION_COOKIE);
    if (id !== undefined && ID_RE.test(id)) this.#live.delete(await digest(id));
  }

  get size(): number {
    return this.#live.size;
  }
}
