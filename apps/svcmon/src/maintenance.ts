/**
 * `svcmon maintenance add|list|end`: maintenance windows through the monitor API
 * (`/api/system/maintenance`, docs/monitor-api.md), with the same --url / --token / MONITOR_TOKEN as
 * `svcmon silence`.
 */

import { parseArgs as nodeParseArgs } from "node:util";
import { type ApiIo, callCollection } from "./api-call.ts";
import { parseDuration } from "./silence.ts";
import { UsageError } from "./usage-error.ts";

export const MAINTENANCE_USAGE = `usage: svcmon maintenance add (--collector NAME... | --account ID... | --all) --reason TEXT [--author NAME]
           (--for DURATION | --until TIME) [--starts TIME]
         | --schedule CRON --duration DURATION [--timezone TZ]     [--url URL] [--token TOKEN]
       svcmon maintenance list [--all] [--json] [--url URL] [--token TOKEN]
       svcmon maintenance end ID [--url URL] [--token TOKEN]

A maintenance window mutes the alerts of the collectors or accounts in scope (or all) while it is in
effect ("in maintenance": nothing is notified); when it ends, the collectors in scope count their
freshness from its end, and what still fails is notified once.
  add   one-off: --for 2h or --until TIME (at most 30 days ahead), starting now or at --starts;
        recurring: --schedule "0 2 * * 0" (cron) in --timezone (default UTC), each occurrence lasting
        --duration (at most 24h). --collector and --account may be repeated. Prints the window's id.
  list  windows not over (--all: also those over in the last 7 days); --json: the API's body.
  end   ends the window ID now (a recurring one has no further occurrence).
The monitor API: --url (default http://127.0.0.1:$PORT, PORT default 8787), bearer token from
--token or MONITOR_TOKEN. Exits 0 on success, 1 when the monitor refuses or cannot be reached, 2 on
invalid arguments.

examples:
  svcmon maintenance add --collector config_ec2 --for 2h --reason "database upgrade"
  svcmon maintenance add --all --schedule "0 2 * * 0" --timezone Europe/Berlin --duration 2h --reason "weekly patching"
  svcmon maintenance end 6f1c2e0a-…`;

/** The request's timeout: a monitor that does not answer is reported, not waited for. */

export type MaintenanceCommand =
  | { kind: "help" }
  | { kind: "add"; body: Record<string, unknown> }
  | { kind: "list"; all: boolean; json: boolean }
  | { kind: "end"; id: string };

export interface MaintenanceArgs {
  command: MaintenanceCommand;
  url: string;
  token: string;
}

const ADD_OPTIONS = [
  "collector",
  "account",
  "all",
  "reason",
  "author",
  "for",
  "until",
  "starts",
  "schedule",
  "duration",
  "timezone",
  "url",
  "token",
];

function time(flag: string, text: string): string {
  const t = Date.parse(text);
  if (!Number.isFinite(t)) throw new UsageError(`--${flag} ${JSON.stringify(text)} is not an ISO 8601 time`);
  return new Date(t).toISOString();
}

function addBody(
  v: Record<string, string | boolean | string[] | undefined>,
  env: Readonly<Record<string, string | undefined>>,
  now: number,
): Record<string, unknown> {
  const collectors = (v.collector as string[] | undefined) ?? [];
  const accounts = (v.account as string[] | undefined) ?? [];
  const scopes = [collectors.length > 0, accounts.length > 0, v.all === true].filter(Boolean).length;
  if (scopes !== 1) throw new UsageError("give one scope: --collector NAME..., --account ID... or --all");
  const scope = collectors.length > 0 ? { collectors } : accounts.length > 0 ? { accounts } : { all: true };
  if (typeof v.reason !== "string" || v.reason.trim() === "") throw new UsageError("missing --reason");
  const author = typeof v.author === "string" ? v.author : (env.USER ?? env.USERNAME);
  if (!author) throw new UsageError("missing --author (and $USER is not set)");
  const base = { scope, author, reason: v.reason };
  if (typeof v.schedule === "string") {
    for (const f of ["for", "until", "starts"])
      if (v[f] !== undefined) throw new UsageError(`--${f} is for a one-off window, not with --schedule`);
    if (typeof v.duration !== "string") throw new UsageError("missing --duration with --schedule");
    const ms = parseDuration(v.duration);
    if (ms === null || ms % 60_000 !== 0)
      throw new UsageError(`--duration ${JSON.stringify(v.duration)} is not whole minutes like 90m, 2h`);
    return {
      ...base,
      schedule: v.schedule,
      ...(typeof v.timezone === "string" ? { timezone: v.timezone } : {}),
      duration_minutes: ms / 60_000,
    };
  }
  for (const f of ["duration", "timezone"])
    if (v[f] !== undefined) throw new UsageError(`--${f} is for a recurring window, with --schedule`);
  if (typeof v.for === "string" && typeof v.until === "string")
    throw new UsageError("give --for or --until, not both");
  const startsAt = typeof v.starts === "string" ? time("starts", v.starts) : null;
  let endsAt: string;
  if (typeof v.for === "string") {
    const ms = parseDuration(v.for);
    if (ms === null)
      throw new UsageError(`--for ${JSON.stringify(v.for)} is not a duration like 90m, 2h, 1d`);
    endsAt = new Date((startsAt === null ? now : Date.parse(startsAt)) + ms).toISOString();
  } else if (typeof v.until === "string") endsAt = time("until", v.until);
  else throw new UsageError("missing --for DURATION, --until TIME or --schedule CRON");
  return { ...base, ...(startsAt === null ? {} : { starts_at: startsAt }), ends_at: endsAt };
}

/** Parses `maintenance ...` argv (after `maintenance`). Throws UsageError with one clear line. */
export function parseMaintenanceArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  now: number,
): MaintenanceArgs {
  let parsed: ReturnType<typeof nodeParseArgs>;
  try {
    parsed = nodeParseArgs({
      args: [...argv],
      options: {
        collector: { type: "string", multiple: true },
        account: { type: "string", multiple: true },
        all: { type: "boolean" },
        reason: { type: "string" },
        author: { type: "string" },
        for: { type: "string" },
        until: { type: "string" },
        starts: { type: "string" },
        schedule: { type: "string" },
        duration: { type: "string" },
        timezone: { type: "string" },
        json: { type: "boolean" },
        url: { type: "string" },
        token: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message.split("\n")[0] ?? "invalid arguments");
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const [sub, ...pos] = parsed.positionals;
  const url = (typeof v.url === "string" ? v.url : `http://127.0.0.1:${env.PORT || "8787"}`).replace(
    /\/+$/,
    "",
  );
  if (v.help === true || sub === "help" || sub === undefined) {
    if (sub === undefined && v.help !== true) throw new UsageError("missing subcommand: add, list or end");
    return { command: { kind: "help" }, url, token: "" };
  }
  try {
    const p = new URL(url);
    if (p.protocol !== "http:" && p.protocol !== "https:") throw new Error();
  } catch {
    throw new UsageError(`--url ${JSON.stringify(url)} is not an http(s) URL`);
  }
  const token = (typeof v.token === "string" ? v.token : undefined) ?? env.MONITOR_TOKEN;
  if (!token) throw new UsageError("missing token: set MONITOR_TOKEN or pass --token");
  const only = (allowed: string[]) => {
    for (const k of Object.keys(v))
      if (!allowed.includes(k)) throw new UsageError(`--${k} does not apply to maintenance ${sub}`);
  };
  let command: MaintenanceCommand;
  switch (sub) {
    case "add":
      only(ADD_OPTIONS);
      if (pos.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(pos[0])}`);
      command = { kind: "add", body: addBody(v, env, now) };
      break;
    case "list":
      only(["all", "json", "url", "token"]);
      if (pos.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(pos[0])}`);
      command = { kind: "list", all: v.all === true, json: v.json === true };
      break;
    case "end":
      only(["url", "token"]);
      if (pos.length !== 1 || (pos[0] as string).trim() === "")
        throw new UsageError("end takes one window id");
      command = { kind: "end", id: pos[0] as string };
      break;
    default:
      throw new UsageError(
        `unknown maintenance subcommand ${JSON.stringify(sub)}: expected add, list or end`,
      );
  }
  return { command, url, token };
}

interface WindowJson {
  id: string;
  scope: { collectors?: string[]; accounts?: string[]; all?: true };
  author: string;
  reason: string;
  kind: string;
  schedule: string | null;
  timezone: string | null;
  duration_minutes: number | null;
  state: string;
  starts_at: string | null;
  ends_at: string | null;
}

function describe(w: WindowJson): string {
  const scope = w.scope.all
    ? "all"
    : w.scope.collectors
      ? `collectors=${w.scope.collectors.join(",")}`
      : `accounts=${(w.scope.accounts ?? []).join(",")}`;
  const when =
    w.kind === "recurring"
      ? `"${w.schedule}" ${w.timezone} for ${w.duration_minutes} min`
      : `${w.starts_at ?? "-"} .. ${w.ends_at ?? "-"}`;
  const next =
    w.kind === "recurring" && w.starts_at !== null
      ? ` (${w.state === "active" ? "now until" : "next"} ${w.state === "active" ? w.ends_at : w.starts_at})`
      : "";
  return `${w.id}  ${w.state}  ${scope}  ${when}${next}  by ${w.author}: ${w.reason}`;
}

/** What the command reads and writes (the shared `ApiIo`). */
export type MaintenanceIo = ApiIo;

/** Runs `svcmon maintenance ...` (argv after `maintenance`); returns the exit code. */
export async function maintenanceMain(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: MaintenanceIo,
): Promise<number> {
  let a: MaintenanceArgs;
  try {
    a = parseMaintenanceArgs(argv, env, io.now());
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`svcmon maintenance: ${err.message} (svcmon maintenance --help)\n`);
    return 2;
  }
  if (a.command.kind === "help") {
    io.out(`${MAINTENANCE_USAGE}\n`);
    return 0;
  }
  const c = a.command;
  const text = await callCollection(
    io,
    "maintenance",
    { url: a.url, token: a.token, path: "/api/system/maintenance" },
    c.kind === "add"
      ? { kind: "add", body: c.body }
      : c.kind === "list"
        ? { kind: "list", all: c.all }
        : { kind: "end", id: c.id },
  );
  if (text === null) return 1;
  const body = JSON.parse(text) as WindowJson & { maintenance?: WindowJson[] };
  if (a.command.kind === "add") io.out(`${body.id}\n`);
  else if (a.command.kind === "end") io.out(`ended ${describe(body)}\n`);
  else if (a.command.json) io.out(`${text}\n`);
  else {
    const list = body.maintenance ?? [];
    io.out(list.length === 0 ? "no maintenance windows\n" : `${list.map(describe).join("\n")}\n`);
  }
  return 0;
}
