/**
 * The monitor's outbound heartbeat (docs/monitor-alerts.md "The monitor watched"): a dead-man's
 * switch outside the monitor — healthchecks.io, or anything speaking its ping API — is pinged by the
 * alert engine around every round: `<url>/start` when it begins, `<url>` after a healthy round,
 * `<url>/fail` with the reason (plain text) after a failed one. The switch pages when the pings stop
 * or a fail arrives: a crashed loop, a disabled Lambda schedule or a stuck database is noticed by
 * something that does not depend on the monitor. `svcmon ping` sends the same pings by hand.
 *
 * A ping never throws and never follows a redirect; each is abandoned after its timeout.
 */
import {
  HEARTBEAT_TIMEOUT_MS,
  MAX_HEARTBEAT_BODY_BYTES,
  MAX_HEARTBEAT_URL_CHARS,
  type Result,
} from "@monitor/core";
import type { Logger } from "@shared/kernel";

export type PingKind = "start" | "success" | "fail";

export interface PingResult {
  /** A 2xx answer. */
  ok: boolean;
  /** The answer's status; null when none came (refused, timed out). */
  status: number | null;
  /** Why it is not ok; null when it is. */
  error: string | null;
}

/** The port the alert engine pings through. `ping` resolves, never rejects. */
export interface Heartbeat {
  ping(kind: PingKind, reason?: string | null): Promise<PingResult>;
}

/** Why `url` cannot be a heartbeat URL, or null when it can (http or https, at most 2048 characters). */
export function heartbeatUrlProblem(url: string): string | null {
  if (url.length > MAX_HEARTBEAT_URL_CHARS) return `must be at most ${MAX_HEARTBEAT_URL_CHARS} characters`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return "must be an http or https URL";
  if (u.username !== "" || u.password !== "") return "must not carry a user name or password";
  return null;
}

/** MONITOR_HEARTBEAT_URL: null when unset or blank; an error naming the variable when invalid. */
export function heartbeatUrlFromEnv(env: Record<string, string | undefined>): Result<string | null> {
  const url = env.MONITOR_HEARTBEAT_URL?.trim() ?? "";
  if (url === "") return { ok: true, value: null };
  const problem = heartbeatUrlProblem(url);
  return problem === null
    ? { ok: true, value: url }
    : { ok: false, errors: [{ path: "MONITOR_HEARTBEAT_URL", message: problem }] };
}

/** The URL of one ping: healthchecks' `/start` and `/fail` go after the check's path, before any query. */
export function pingUrl(base: string, kind: PingKind): string {
  if (kind === "success") return base;
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/${kind}`;
  return u.toString();
}

/** At most `max` bytes of UTF-8, cut on a character boundary. */
function clipBytes(text: string, max: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= max) return text;
  let end = max;
  // Back off continuation bytes (10xxxxxx) so no character is cut in half.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

export interface PingOptions {
  /** The text a `fail` ping carries (cut to 10,000 bytes); other pings carry none. */
  reason?: string | null;
  /** Default 10 s; never more. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** One ping: POST, no redirect followed, abandoned after the timeout. Resolves, never rejects. */
export async function sendPing(base: string, kind: PingKind, opts: PingOptions = {}): Promise<PingResult> {
  const timeoutMs = Math.min(opts.timeoutMs ?? HEARTBEAT_TIMEOUT_MS, HEARTBEAT_TIMEOUT_MS);
  const body = kind === "fail" ? clipBytes(opts.reason ?? "", MAX_HEARTBEAT_BODY_BYTES) : "";
  try {
    const res = await (opts.fetch ?? globalThis.fetch)(pingUrl(base, kind), {
      method: "POST",
      headers: { "content-type": "text/plain; charset=utf-8", "user-agent": "svcmon-heartbeat" },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, error: null };
    const error =
      res.status >= 300 && res.status < 400
        ? `answered ${res.status} (a redirect, not followed)`
        : `answered ${res.status}`;
    return { ok: false, status: res.status, error };
  } catch (err) {
    const e = err as Error;
    const error =
      e.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : `${e.message}${causeOf(e)}`;
    return { ok: false, status: null, error };
  }
}

const causeOf = (e: Error): string => {
  const c = (e as { cause?: unknown }).cause;
  return c instanceof Error ? ` (${c.message})` : "";
};

/** Failed pings logged: the first of a run of failures, then one in every LOG_EVERY. */
export const HEARTBEAT_LOG_EVERY = 60;

export interface HttpHeartbeatOptions {
  url: string;
  log: Logger;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/**
 * The heartbeat over HTTP. An unreachable switch is logged once, then once every 60 failed pings
 * (an hour of rounds), with the count; the first ping that gets through again says so.
 */
export function httpHeartbeat(opts: HttpHeartbeatOptions): Heartbeat {
  let failures = 0;
  return {
    async ping(kind, reason) {
      const r = await sendPing(opts.url, kind, {
        reason: reason ?? null,
        ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
        ...(opts.fetch === undefined ? {} : { fetch: opts.fetch }),
      });
      if (r.ok) {
        if (failures > 0) opts.log.info("heartbeat: delivered again", { failedBefore: failures });
        failures = 0;
      } else {
        failures++;
        if (failures % HEARTBEAT_LOG_EVERY === 1)
          opts.log.warn("heartbeat: ping failed", { kind, error: r.error, failedInARow: failures });
      }
      return r;
    },
  };
}
