/**
 * `svcmon silence add|list|expire`: silences through the monitor API
 * (`/api/system/silences`, docs/monitor-api.md), with the same --url / --token / MONITOR_TOKEN as
 * `svcmon run`.
 */

import { parseArgs as nodeParseArgs } from "node:util";
import { type ApiIo, callCollection } from "./api-call.ts";
import { UsageError } from "./usage-error.ts";

export const SILENCE_USAGE = `usage: svcmon silence add (--rule RULE | --subject S | --subject-prefix P | --subject-regex RE)... --reason TEXT (--for DURATION | --until TIME) [--author NAME] [--url URL] [--token TOKEN]
       svcmon silence list [--all] [--json] [--url URL] [--token TOKEN]
       svcmon silence expire ID [--url URL] [--token TOKEN]

Silences hold back the alerts matching a rule and/or a subject until their end: shown muted, not
notified; a still-firing alert is notified when the silence ends (or is expired).
  add     RULE: collector_failure, collector_stale, account_no_access, dead_letter_queue, disk_high,
          account_unscanned, collector_hung; one subject matcher at most (equal, prefix, or a regex of the whole
          subject); DURATION like 90m, 2h, 1d (at most 30d); TIME ISO 8601; NAME defaults to $USER.
          Prints the new silence's id.
  list    silences not ended (--all: also those ended in the last 5 days); --json: the API's body.
  expire  ends the silence ID now.
The monitor API: --url (default http://127.0.0.1:$PORT, PORT default 8787), bearer token from
--token or MONITOR_TOKEN. Exits 0 on success, 1 when the monitor refuses or cannot be reached, 2 on
invalid arguments.

examples:
  svcmon silence add --rule collector_failure --subject-prefix config_ec2/ --for 2h --reason "account migration"
  svcmon silence list
  svcmon silence expire 6f1c2e0a-…`;

export type SilenceCommand =
  | { kind: "help" }
  | {
      kind: "add";
      body: {
        matchers: { rule?: string; subject?: { op: "eq" | "prefix" | "regex"; value: string } };
        author: string;
        reason: string;
        ends_at: string;
      };
    }
  | { kind: "list"; all: boolean; json: boolean }
  | { kind: "expire"; id: string };

export interface SilenceArgs {
  command: SilenceCommand;
  url: string;
  token: string;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90m`, `2h`, `1d`, `1h30m` in ms; null when not a duration. */
export function parseDuration(text: string): number | null {
  const re = /(\d+)([smhd])/gy;
  let ms = 0;
  let end = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    ms += Number(m[1]) * (UNITS[m[2] as string] as number);
    end = re.lastIndex;
  }
  return end === text.length && end > 0 && ms > 0 ? ms : null;
}

/** Parses `silence ...` argv (after `silence`). Throws UsageError with one clear line. */
export function parseSilenceArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  now: number,
): SilenceArgs {
  let parsed: ReturnType<typeof nodeParseArgs>;
  try {
    parsed = nodeParseArgs({
      args: [...argv],
      options: {
        rule: { type: "string" },
        subject: { type: "string" },
        "subject-prefix": { type: "string" },
        "subject-regex": { type: "string" },
        reason: { type: "string" },
        author: { type: "string" },
        for: { type: "string" },
        until: { type: "string" },
        all: { type: "boolean" },
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
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const [sub, ...pos] = parsed.positionals;
  const url = (typeof v.url === "string" ? v.url : `http://127.0.0.1:${env.PORT || "8787"}`).replace(
    /\/+$/,
    "",
  );
  if (v.help === true || sub === "help" || sub === undefined) {
    if (sub === undefined && v.help !== true) throw new UsageError("missing subcommand: add, list or expire");
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
      if (!allowed.includes(k)) throw new UsageError(`--${k} does not apply to silence ${sub}`);
  };
  let command: SilenceCommand;
  switch (sub) {
    case "add": {
      only([
        "rule",
        "subject",
        "subject-prefix",
        "subject-regex",
        "reason",
        "author",
        "for",
        "until",
        "url",
        "token",
      ]);
      if (pos.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(pos[0])}`);
      const subjects = (
        [
          ["subject", "eq"],
          ["subject-prefix", "prefix"],
          ["subject-regex", "regex"],
        ] as const
      ).filter(([k]) => typeof v[k] === "string");
      if (subjects.length > 1)
        throw new UsageError("give one of --subject, --subject-prefix, --subject-regex");
      const rule = typeof v.rule === "string" ? v.rule : undefined;
      const subject = subjects[0];
      if (rule === undefined && subject === undefined)
        throw new UsageError(
          "missing matcher: --rule and/or --subject (or --subject-prefix, --subject-regex)",
        );
      if (typeof v.reason !== "string" || v.reason.trim() === "") throw new UsageError("missing --reason");
      const author = typeof v.author === "string" ? v.author : (env.USER ?? env.USERNAME);
      if (!author) throw new UsageError("missing --author (and $USER is not set)");
      let endsAt: number;
      if (typeof v.for === "string" && typeof v.until === "string")
        throw new UsageError("give --for or --until, not both");
      if (typeof v.for === "string") {
        const ms = parseDuration(v.for);
        if (ms === null)
          throw new UsageError(`--for ${JSON.stringify(v.for)} is not a duration like 90m, 2h, 1d`);
        endsAt = now + ms;
      } else if (typeof v.until === "string") {
        endsAt = Date.parse(v.until);
        if (!Number.isFinite(endsAt))
          throw new UsageError(`--until ${JSON.stringify(v.until)} is not an ISO 8601 time`);
      } else throw new UsageError("missing --for DURATION or --until TIME");
      command = {
        kind: "add",
        body: {
          matchers: {
            ...(rule === undefined ? {} : { rule }),
            ...(subject === undefined ? {} : { subject: { op: subject[1], value: v[subject[0]] as string } }),
          },
          author,
          reason: v.reason,
          ends_at: new Date(endsAt).toISOString(),
        },
      };
      break;
    }
    case "list":
      only(["all", "json", "url", "token"]);
      if (pos.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(pos[0])}`);
      command = { kind: "list", all: v.all === true, json: v.json === true };
      break;
    case "expire":
      only(["url", "token"]);
      if (pos.length !== 1 || (pos[0] as string).trim() === "")
        throw new UsageError("expire takes one silence id");
      command = { kind: "expire", id: pos[0] as string };
      break;
    default:
      throw new UsageError(`unknown silence subcommand ${JSON.stringify(sub)}: expected add, list or expire`);
  }
  return { command, url, token };
}

interface SilenceJson {
  id: string;
  matchers: { rule: string | null; subject: { op: string; value: string } | null };
  author: string;
  reason: string;
  starts_at: string;
  ends_at: string;
  state: string;
}

function describe(s: SilenceJson): string {
  const m = [
    s.matchers.rule === null ? null : `rule=${s.matchers.rule}`,
    s.matchers.subject === null
      ? null
      : `subject${s.matchers.subject.op === "eq" ? "=" : s.matchers.subject.op === "prefix" ? "^=" : "=~"}${s.matchers.subject.value}`,
  ]
    .filter((x) => x !== null)
    .join(" ");
  return `${s.id}  ${s.state}  ${m}  until ${s.ends_at}  by ${s.author}: ${s.reason}`;
}

/** What the command reads and writes (the shared `ApiIo`). */
export type SilenceIo = ApiIo;

/** Runs `svcmon silence ...` (argv after `silence`); returns the exit code. */
export async function silenceMain(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: SilenceIo,
): Promise<number> {
  let a: SilenceArgs;
  try {
    a = parseSilenceArgs(argv, env, io.now());
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`svcmon silence: ${err.message} (svcmon silence --help)\n`);
    return 2;
  }
  if (a.command.kind === "help") {
    io.out(`${SILENCE_USAGE}\n`);
    return 0;
  }
  const c = a.command;
  const text = await callCollection(
    io,
    "silence",
    { url: a.url, token: a.token, path: "/api/system/silences" },
    c.kind === "add"
      ? { kind: "add", body: c.body }
      : c.kind === "list"
        ? { kind: "list", all: c.all }
        : { kind: "end", id: c.id },
  );
  if (text === null) return 1;
  const body = JSON.parse(text) as SilenceJson & { silences?: SilenceJson[] };
  if (a.command.kind === "add") io.out(`${body.id}\n`);
  else if (a.command.kind === "expire") io.out(`expired ${describe(body)}\n`);
  else if (a.command.json) io.out(`${text}\n`);
  else {
    const list = body.silences ?? [];
    io.out(list.length === 0 ? "no silences\n" : `${list.map(describe).join("\n")}\n`);
  }
  return 0;
}
