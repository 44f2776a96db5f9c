import type { Context } from "hono";
import { ApiError } from "./errors.ts";

export interface AuthThrottleOptions {
  /** Failed attempts one client address may make per window before it is refused. Default 20. */
  maxFailuresPerAddress?: number;
  /** Failed attempts per credential prefix per window (a guessed key's shown prefix). Default 50. */
  maxFailuresPerPrefix?: number;
  /** The window, in milliseconds. Default 60 s. */
  windowMs?: number;
  /** Keys remembered at most; the oldest is forgotten first, so memory stays bounded. Default 10,000. */
  maxKeys?: number;
  /** Characters of a presented credential that name its prefix. Default 8. */
  prefixLength?: number;
  now?: () => number;
}

interface Window {
  start: number;
  failures: number;
}

/**
 * Failed authentication, counted per client address and per credential prefix in a fixed window.
 * Once an address's count reaches its budget, that address is refused with 429 and `Retry-After`
 * until the window ends, whether or not the credential it presents is right, so an attacker learns
 * nothing from further guesses. A prefix over its budget refuses further wrong credentials under it
 * from every address, but never a correct one: anyone can send wrong keys that share a real key's
 * first characters, and that must not lock the key's owner out. Clients that authenticate correctly
 * are not slowed: a credential that succeeded from an address before the block keeps working from
 * that address (`verdict`), and correct credentials never add to a count. One throttle is meant to
 * be shared by every API a process serves, so an address has one budget, whichever API it guesses
 * at. Memory is bounded by `maxKeys` (oldest forgotten first).
 */
export class AuthThrottle {
  readonly #perAddress: number;
  readonly #perPrefix: number;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #prefixLength: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();
  /** `address + NUL + credential` pairs that authenticated, so a block does not lock them out. */
  readonly #knownGood = new Map<string, number>();

  constructor(options: AuthThrottleOptions = {}) {
    this.#perAddress = options.maxFailuresPerAddress ?? 20;
    this.#perPrefix = options.maxFailuresPerPrefix ?? 50;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#maxKeys = options.maxKeys ?? 10_000;
    this.#prefixLength = options.prefixLength ?? 8;
    this.#now = options.now ?? Date.now;
  }

  #keys(address: string, credential: string | undefined): Array<[string, number]> {
    const keys: Array<[string, number]> = [[`a:${address}`, this.#perAddress]];
    if (credential !== undefined && credential.length > 0) {
      keys.push([`p:${credential.slice(0, this.#prefixLength)}`, this.#perPrefix]);
    }
    return keys;
  }

  #current(key: string, now: number): Window | undefined {
    const w = this.#windows.get(key);
    if (w !== undefined && now - w.start >= this.#windowMs) {
      this.#windows.delete(key);
      return undefined;
    }
    return w;
  }

  /** Seconds until this client may try again; 0 when it may try now. */
  retryAfterSeconds(address: string, credential: string | undefined): number {
    const now = this.#now();
    let wait = 0;
    for (const [key, budget] of this.#keys(address, credential)) {
      const w = this.#current(key, now);
      if (w !== undefined && w.failures >= budget) {
        wait = Math.max(wait, Math.ceil((w.start + this.#windowMs - now) / 1000));
      }
    }
    return wait;
  }

  /** Counts one failed attempt against the address and the credential's prefix. */
  failed(address: string, credential: string | undefined): void {
    const now = this.#now();
    for (const [key] of this.#keys(address, credential)) {
      const w = this.#current(key, now);
      if (w === undefined) {
        if (this.#windows.size >= this.#maxKeys) {
          const oldest = this.#windows.keys().next().value;
          if (oldest !== undefined) this.#windows.delete(oldest);
        }
        this.#windows.set(key, { start: now, failures: 1 });
      } else {
        w.failures++;
      }
    }
  }

  /**
   * The throttle's decision after the credential was checked: returns when the request may go on
   * (the caller answers 401 itself for an invalid credential under budget), throws the 429 when the
   * address is blocked, unless this exact credential already succeeded from this address, or, for
   * an invalid credential, when its prefix is blocked. A valid credential is judged by its address
   * alone: the prefix budget is spent by whoever guesses, not by the key's owner.
   */
  verdict(address: string, credential: string | undefined, valid: boolean): void {
    const pair = `${address}\u0000${credential ?? ""}`;
    if (valid) {
      const wait = this.retryAfterSeconds(address, undefined);
      if (wait > 0 && !this.#knownGood.has(pair)) throw tooManyFailures(wait);
      this.#knownGood.delete(pair);
      if (this.#knownGood.size >= this.#maxKeys) {
        const oldest = this.#knownGood.keys().next().value;
        if (oldest !== undefined) this.#knownGood.delete(oldest);
      }
      this.#knownGood.set(pair, this.#now());
      return;
    }
    // A failure that arrives within the budget is answered 401 by the caller; the ones after it, 429.
    const wait = this.retryAfterSeconds(address, credential);
    if (wait > 0) throw tooManyFailures(wait);
    this.failed(address, credential);
  }

  /** Keys remembered now (for tests of the memory bound). */
  get size(): number {
    return this.#windows.size + this.#knownGood.size;
  }
}

export function tooManyFailures(retryAfterS: number): ApiError {
  return new ApiError(
    429,
    "too_many_requests",
    `too many failed authentication attempts from this client; retry after ${retryAfterS} s`,
    undefined,
    { "Retry-After": String(retryAfterS) },
  );
}

/** How an entry point tells the client's address (its runtime's connection info, or a trusted proxy's header). */
export type ClientAddress = (c: Context) => string;

/**
 * The address Cloudflare puts in `CF-Connecting-IP` (it overwrites whatever the client sent), for
 * the Worker; `unknown` elsewhere. Entry points with real connection info (Node, Lambda) pass their
 * own `ClientAddress`, since on those this header is whatever the client chose.
 */
export const headerClientAddress: ClientAddress = (c) => c.req.header("cf-connecting-ip") ?? "unknown";

/**
 * The caller's address as AWS Lambda saw the connection: `requestContext.http.sourceIp` of a function
 * URL or HTTP API event, `requestContext.identity.sourceIp` of a REST API event. Never a request
 * header, which any caller can set. Outside Lambda (no event): "unknown".
 */
export const lambdaClientAddress: ClientAddress = (c) => {
  const rc = (c.env as { requestContext?: Record<string, unknown> } | undefined)?.requestContext;
  const http = rc?.http as { sourceIp?: unknown } | undefined;
  const identity = rc?.identity as { sourceIp?: unknown } | undefined;
  const ip = http?.sourceIp ?? identity?.sourceIp;
  return typeof ip === "string" && ip !== "" ? ip : "unknown";
};

/**
 * Behind a proxy that appends the peer it saw to `X-Forwarded-For` (ALB, CloudFront, nginx), the
 * last entry is the one that proxy wrote; everything before it is whatever the client sent, so only
 * the last entry is used (`TRUST_PROXY=1`). Otherwise the connection's own address from `direct`.
 */
export function forwardedClientAddress(direct: ClientAddress, trustProxy: boolean): ClientAddress {
  if (!trustProxy) return direct;
  return (c) => {
    const last = c.req.header("x-forwarded-for")?.split(",").at(-1)?.trim();
    return last !== undefined && last !== "" ? last.slice(0, 64) : direct(c);
  };
}

/**
 * The API key of a request: `x-api-key`, else `Authorization: Bearer <key>` (what Meilisearch's
 * clients send). Undefined when neither is there.
 */
export function presentedApiKey(c: Context): string | undefined {
  const header = c.req.header("x-api-key");
  if (header !== undefined && header !== "") return header;
  const authorization = c.req.header("authorization");
  const bearer = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return bearer?.[1];
}
