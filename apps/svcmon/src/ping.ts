/**
 * `svcmon ping`: one ping of a healthchecks-compatible dead-man's switch (the monitor's heartbeat,
 * docs/monitor-alerts.md "The monitor watched"), for a cron wrapper or an SRE: success by default,
 * `--start` as a job begins, `--fail REASON` with the reason as its body. The same pings the alert
 * engine sends (POST, no redirect followed, 10 s timeout).
 */
import { parseArgs as nodeParseArgs } from "node:util";
import { heartbeatUrlProblem, type PingKind, sendPing } from "@monitor/runtime/heartbeat";
import { UsageError } from "./usage-error.ts";

export const PING_USAGE = `usage: svcmon ping [--url URL | env MONITOR_HEARTBEAT_URL] [--start | --fail REASON]

Sends one ping to a healthchecks-compatible dead-man's switch (healthchecks.io, or anything speaking
its ping API): POST URL (success), URL/start (--start: a job begins), or URL/fail with REASON as the
text body (--fail; cut to 10,000 bytes). URL: http or https, at most 2048 characters; the alert
engine pings the same MONITOR_HEARTBEAT_URL around every tick. No redirect is followed; the ping
is abandoned after 10 s. Exits 0 when the switch answers 2xx, 1 otherwise (one line says why), 2 on
invalid arguments.

examples:
  svcmon ping --url https://hc-ping.com/0f5c2e0a-… --start
  MONITOR_HEARTBEAT_URL=https://hc-ping.com/0f5c2e0a-… svcmon ping --fail "backup: disk full"`;

export interface PingArgs {
  url: string;
  kind: PingKind;
  reason: string | null;
}

export function parsePingArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): PingArgs | "help" {
  let parsed: ReturnType<typeof parse>;
  const parse = (args: string[]) =>
    nodeParseArgs({
      args,
      options: {
        url: { type: "string" },
        start: { type: "boolean" },
        fail: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  try {
    parsed = parse([...argv]);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) return "help";
  if (v.start && v.fail !== undefined) throw new UsageError("--start and --fail are exclusive");
  const url = (v.url ?? env.MONITOR_HEARTBEAT_URL ?? "").trim();
  if (url === "") throw new UsageError("no URL: --url URL or env MONITOR_HEARTBEAT_URL");
  const problem = heartbeatUrlProblem(url);
  if (problem !== null)
    throw new UsageError(`${v.url === undefined ? "MONITOR_HEARTBEAT_URL" : "--url"} ${problem}`);
  return {
    url,
    kind: v.start ? "start" : v.fail !== undefined ? "fail" : "success",
    reason: v.fail ?? null,
  };
}

export interface PingIo {
  fetch: typeof globalThis.fetch;
  out: (text: string) => void;
  err: (text: string) => void;
}

export async function pingMain(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: PingIo,
): Promise<number> {
  let a: PingArgs | "help";
  try {
    a = parsePingArgs(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`svcmon ping: ${err.message} (svcmon ping --help)\n`);
    return 2;
  }
  if (a === "help") {
    io.out(`${PING_USAGE}\n`);
    return 0;
  }
  const r = await sendPing(a.url, a.kind, { reason: a.reason, fetch: io.fetch });
  if (r.ok) return 0;
  io.err(`svcmon ping: ${a.kind} not delivered: ${r.error}\n`);
  return 1;
}
