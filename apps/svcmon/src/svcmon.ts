/**
 * `svcmon run --collector NAME --account ID --region R [--url URL --token T | --data-dir D] -- CMD ARGS...`
 *
 * Runs CMD as one collector run and records exactly one run record at the end: status from the exit
 * code (0 succeeded, 3 partial, anything else failed), error = the tail of stderr (last 2 KB),
 * duration measured. Exits with the command's exit code. See docs/monitor-runtime.md.
 */

import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { constants } from "node:os";
import { parseArgs as nodeParseArgs } from "node:util";
import {
  type AutoRegisterConfig,
  autoRegisterFromEnv,
  checkRunsClockSkew,
  DEFAULT_AUTO_REGISTER,
  DEFAULT_MAX_CLOCK_SKEW_MS,
  formatSkew,
  keepLastChars,
  MAX_RUN_ERROR_CHARS,
  maxClockSkewFromEnv,
  registerFirstRuns,
  validateRunRecord,
} from "@monitor/core";
import { deliver, pidAlive, type RunRecordOut } from "./deliver.ts";
import { maintenanceMain } from "./maintenance.ts";
import { pingMain } from "./ping.ts";
import { silenceMain } from "./silence.ts";
import { type RunStartOut, sendStart } from "./start.ts";
import { UsageError } from "./usage-error.ts";

export const USAGE = `usage: svcmon run --collector NAME --account ID --region REGION [--url URL] [--token TOKEN | env MONITOR_TOKEN] [--data-dir DIR] -- COMMAND [ARGS...]

Runs COMMAND as one run of collector NAME for cloud account ID in REGION and records one run record:
  exit 0 -> succeeded, exit 3 -> partial, anything else (or a signal) -> failed
  error  -> the last 2 KB of the command's stderr (at most 4096 characters)
NAME: 1-64 letters, digits, '.', '_' or '-'; ID: 1-128 letters, digits, '.', '_', ':' or '-';
REGION: 1-64 letters, digits, '_' or '-' (the monitor's own bounds, checked before COMMAND runs)
Records through the monitor API (POST {url}/api/system/runs, default url http://127.0.0.1:$PORT, PORT
default 8787, bearer token from --token or MONITOR_TOKEN), retried with backoff; when the monitor
stays unreachable the record is spooled (SVCMON_SPOOL_DIR, default ~/.local/state/svcmon/spool) and
sent first by the next svcmon call to that URL. With --data-dir the record goes directly into the
chDB data folder DIR (DIR/chdb when DIR is a stack's DATA_DIR; files owner-only), or, when a
running stack holds DIR (its stack.json), to that stack's API; a
collector the monitor does not know is registered by its first run unless AUTO_REGISTER=0.
SIGINT/SIGTERM/SIGHUP are forwarded to COMMAND; the run is then recorded failed with the signal.
A record dated more than MAX_CLOCK_SKEW_S (default 900) seconds ahead of this machine's clock, or
refused by the monitor as ahead of its own, is not sent: one line says so and the exit code is the
command's, or 1 when that was 0. Exits with the command's exit code; 75 when the command succeeded
but its run could not be recorded; 2 on invalid arguments.

       svcmon silence add|list|expire ...   silences of alerts (svcmon silence --help)
       svcmon ping [--url URL] [--start | --fail REASON]   one ping of a dead-man's switch (svcmon ping --help)
       svcmon maintenance add|list|end ...  maintenance windows (svcmon maintenance --help)

example:
  svcmon run --collector nightly_backup --account 111111111111 --region eu-west-1 -- ./backup.sh`;

export const EXIT_PARTIAL = 3;
export const EXIT_USAGE = 2;
export const STDERR_TAIL_BYTES = 2048;
/** The command succeeded but its run could not be recorded nor spooled (EX_TEMPFAIL of sysexits.h). */
export const EXIT_NOT_RECORDED = 75;

export interface RunArgs {
  collector: string;
  account: string;
  region: string;
  command: string;
  args: string[];
  target: { kind: "api"; url: string; token: string } | { kind: "data-dir"; dir: string };
}

export { UsageError };

const VALUE_FLAGS = ["collector", "account", "region", "url", "token", "data-dir"] as const;

/**
 * The options before `--`, read by node:util's parseArgs (inline `--flag=value`, the value after a
 * flag, where `--` ends the options) in the lenient mode that reports every token, so that each
 * mistake gets this CLI's own one-line message, the first one from the left as before. Returns the
 * flags by their `--name` and the index in `rest` of the `--`, if there is one.
 */
function readFlags(rest: string[]): { flags: Map<string, string>; terminator: number | undefined } {
  const { tokens } = nodeParseArgs({
    args: rest,
    options: Object.fromEntries(VALUE_FLAGS.map((name) => [name, { type: "string" as const }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind === "option-terminator") return { flags, terminator: token.index };
    const raw = rest[token.index] as string;
    if (token.kind === "positional") {
      throw new UsageError(
        raw.startsWith("-")
          ? `unknown option ${raw}`
          : `unexpected argument ${JSON.stringify(raw)}: put the command after \`--\``,
      );
    }
    const name = raw.startsWith("--") && raw.indexOf("=") > 0 ? raw.slice(0, raw.indexOf("=")) : raw;
    if (!(VALUE_FLAGS as readonly string[]).includes(token.name) || name !== `--${token.name}`) {
      throw new UsageError(`unknown option ${name}`);
    }
    // parseArgs takes the next argument as the value even when it is `--`: here that is no value.
    if (token.value === undefined || (token.value === "--" && !token.inlineValue)) {
      throw new UsageError(`${name} needs a value`);
    }
    if (flags.has(name)) throw new UsageError(`${name} given twice`);
    if (token.value.trim() === "") throw new UsageError(`${name} must not be empty`);
    flags.set(name, token.value);
  }
  return { flags, terminator: undefined };
}

/** Parses `run ...` argv (without the node/script prefix). Throws UsageError with one clear line. */
export function parseArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): RunArgs {
  const [sub, ...rest] = argv;
  if (sub === undefined) throw new UsageError("missing subcommand: expected `svcmon run ...`");
  if (sub !== "run") throw new UsageError(`unknown subcommand ${JSON.stringify(sub)}: expected \`run\``);
  const { flags, terminator } = readFlags(rest);
  for (const required of ["--collector", "--account", "--region"]) {
    if (!flags.has(required)) throw new UsageError(`missing ${required}`);
  }
  checkSubject(
    flags.get("--collector") as string,
    flags.get("--account") as string,
    flags.get("--region") as string,
  );
  const command = terminator === undefined ? undefined : rest[terminator + 1];
  if (terminator === undefined || command === undefined) {
    throw new UsageError("missing command: put it after `--` (svcmon run ... -- COMMAND [ARGS...])");
  }
  const dataDir = flags.get("--data-dir");
  let target: RunArgs["target"];
  if (dataDir !== undefined) {
    if (flags.has("--url") || flags.has("--token")) {
      throw new UsageError("--data-dir records directly; do not combine it with --url or --token");
    }
    target = { kind: "data-dir", dir: dataDir };
  } else {
    const url = flags.get("--url") ?? `http://127.0.0.1:${env.PORT || "8787"}`;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`--url ${JSON.stringify(url)} is not a URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new UsageError(`--url must be http or https, got ${parsed.protocol}`);
    }
    const token = flags.get("--token") ?? env.MONITOR_TOKEN;
    if (!token) throw new UsageError("missing token: set MONITOR_TOKEN or pass --token (or use --data-dir)");
    target = { kind: "api", url: url.replace(/\/+$/, ""), token };
  }
  return {
    collector: flags.get("--collector") as string,
    account: flags.get("--account") as string,
    region: flags.get("--region") as string,
    command,
    args: rest.slice(terminator + 2),
    target,
  };
}

const FLAG_OF: Record<string, string> = {
  collector: "--collector",
  cloud_account_id: "--account",
  cloud_region: "--region",
};

/**
 * The monitor's own bounds on collector, account and region (validateRunRecord), checked before the
 * command runs: a run the monitor would refuse is not worth running and then losing.
 */
function checkSubject(collector: string, account: string, region: string): void {
  const at = Date.UTC(2025, 0, 1);
  const trial = validateRunRecord({
    collector,
    cloud_account_id: account,
    cloud_region: region,
    started_at: at,
    completed_at: at,
    status: "succeeded",
    events_produced: 0,
    rows_inserted: 0,
  });
  if (trial.ok) return;
  const [first] = trial.errors;
  if (first === undefined) return;
  throw new UsageError(`${FLAG_OF[first.path] ?? first.path} ${first.message}`);
}

export type { RunRecordOut } from "./deliver.ts";

/** Keeps the last `max` bytes of a stream; decodes them, dropping a character cut in half. */
export class Tail {
  #buf = Buffer.alloc(0);
  readonly #max: number;
  constructor(max = STDERR_TAIL_BYTES) {
    this.#max = max;
  }
  push(chunk: Buffer): void {
    const joined = Buffer.concat([this.#buf, chunk]);
    this.#buf = joined.length > this.#max ? joined.subarray(joined.length - this.#max) : joined;
  }
  text(): string {
    let start = 0;
    // skip UTF-8 continuation bytes of a character whose start was cut off
    while (start < this.#buf.length && start < 4 && ((this.#buf[start] as number) & 0xc0) === 0x80) start++;
    return this.#buf.subarray(start).toString("utf8").trim();
  }
}

interface Child {
  code: number;
  status: RunRecordOut["status"];
  error: string;
  /** The signal svcmon received (and forwarded) while the command ran. */
  interrupted?: NodeJS.Signals;
}

const FORWARDED: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Runs the command, teeing its stderr; never throws. SIGINT, SIGTERM and SIGHUP sent to svcmon are
 * forwarded to the command, and svcmon waits for it: the run is then `failed` with the signal in
 * `error`, whatever the command's own exit code.
 */
function runChild(command: string, args: string[]): Promise<Child> {
  return new Promise((resolve) => {
    const tail = new Tail();
    let child: ReturnType<typeof spawn>;
    let interrupted: NodeJS.Signals | undefined;
    const forward = (sig: NodeJS.Signals) => {
      interrupted ??= sig;
      child?.kill(sig);
    };
    const cleanup = () => {
      for (const s of FORWARDED) process.off(s, forward);
    };
    try {
      child = spawn(command, args, { stdio: ["inherit", "inherit", "pipe"] });
    } catch (err) {
      resolve({ code: 127, status: "failed", error: `cannot run ${command}: ${(err as Error).message}` });
      return;
    }
    for (const s of FORWARDED) process.on(s, forward);
    child.stderr?.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      tail.push(chunk);
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      cleanup();
      const code = err.code === "ENOENT" ? 127 : 126;
      resolve({ code, status: "failed", error: `cannot run ${command}: ${err.message}` });
    });
    child.on("close", (code, signal) => {
      cleanup();
      const stderr = tail.text();
      if (interrupted !== undefined) {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code ?? 1}`;
        const line = `interrupted: svcmon received ${interrupted} and forwarded it to the command, which ${how}`;
        const n = constants.signals[signal ?? interrupted] ?? 0;
        // A command that traps the signal and exits 0 still did not finish its run.
        const c = signal ? 128 + n : code === 0 || code === null ? 128 + n : code;
        resolve({ code: c, status: "failed", error: stderr ? `${stderr}\n${line}` : line, interrupted });
        return;
      }
      if (signal) {
        const n = constants.signals[signal] ?? 0;
        resolve({ code: 128 + n, status: "failed", error: stderr || `killed by ${signal}` });
        return;
      }
      const c = code ?? 1;
      if (c === 0) resolve({ code: 0, status: "succeeded", error: "" });
      else if (c === EXIT_PARTIAL) resolve({ code: c, status: "partial", error: stderr });
      else resolve({ code: c, status: "failed", error: stderr || `exited with code ${c}` });
    });
  });
}

/**
 * Opens the chDB data folder `dir` (migrated), runs `work` on it and closes it. Everything chDB
 * creates is owner-only, as in the stack's DATA_DIR (which warns about looser paths at start); the
 * command has not started or has finished by then, so the umask reaches nothing of it.
 */
async function withFolderStore(
  dir: string,
  work: (
    store: import("@monitor/clickhouse").ClickHouseRunStore,
    registry: import("@monitor/clickhouse").ClickHouseCollectorRegistry,
  ) => Promise<void>,
): Promise<void> {
  const { openChdbRunStore } = await import("@monitor/clickhouse/chdb");
  const { ClickHouseCollectorRegistry } = await import("@monitor/clickhouse");
  const umask = process.umask(0o077);
  try {
    // svcmon records runs and reads none of the disk figures: no quota to read or check.
    const store = openChdbRunStore(dir, { timeoutMs: 30_000, diskQuotaBytes: null });
    try {
      await store.migrate();
      await work(store, ClickHouseCollectorRegistry.fromStore(store));
    } finally {
      await store.close();
    }
  } finally {
    process.umask(umask);
  }
}

async function storeStart(dir: string, start: RunStartOut, autoRegister: AutoRegisterConfig): Promise<void> {
  await withFolderStore(dir, async (store, registry) => {
    await store.recordStarts([start]);
    // As POST /api/system/runs/start does: the first start of an unknown collector registers it.
    await registerFirstRuns(registry, [start], autoRegister);
  });
}

async function storeRun(dir: string, record: RunRecordOut, autoRegister: AutoRegisterConfig): Promise<void> {
  await withFolderStore(dir, async (store, registry) => {
    await store.insertRuns([record]);
    // As POST /api/system/runs does: the first run of an unknown collector registers it.
    await registerFirstRuns(registry, [record], autoRegister);
  });
}

/** The whole command; resolves to the process exit code. */
export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  opts: { now?: () => number } = {},
): Promise<number> {
  const now = opts.now ?? Date.now;
  if (argv[0] === "maintenance")
    return maintenanceMain(argv.slice(1), env, {
      fetch: globalThis.fetch,
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
      now,
    });
  if (argv[0] === "silence")
    return silenceMain(argv.slice(1), env, {
      fetch: globalThis.fetch,
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
      now,
    });
  if (argv[0] === "ping")
    return pingMain(argv.slice(1), env, {
      fetch: globalThis.fetch,
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
    });
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    (argv.length === 0 ? process.stderr : process.stdout).write(`${USAGE}\n`);
    return argv.length === 0 ? EXIT_USAGE : 0;
  }
  let a: RunArgs;
  try {
    a = parseArgs(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`svcmon: ${err.message} (svcmon --help)\n`);
    return EXIT_USAGE;
  }
  const skewEnv = maxClockSkewFromEnv(env);
  const autoEnv = autoRegisterFromEnv(env);
  const problems = [...(skewEnv.ok ? [] : [skewEnv.error]), ...(autoEnv.ok ? [] : autoEnv.errors)];
  if (problems.length > 0) {
    process.stderr.write(`svcmon: ${problems.join("; ")} (svcmon --help)\n`);
    return EXIT_USAGE;
  }
  const maxSkewMs = skewEnv.ok ? skewEnv.value : DEFAULT_MAX_CLOCK_SKEW_MS;
  const autoRegister = autoEnv.ok ? autoEnv.value : DEFAULT_AUTO_REGISTER;
  const runId = randomUUID();
  const startedAt = now();
  const say = (line: string) => process.stderr.write(`${line}\n`);
  // The start first, under the final record's run_id: the monitor sees the run while it runs.
  const startFailed = await sendStart(
    a.target,
    {
      run_id: runId,
      collector: a.collector,
      cloud_account_id: a.account,
      cloud_region: a.region,
      started_at: startedAt,
    },
    env,
    {
      fetch,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      alive: pidAlive,
      say,
      storeStartDirect: (dir, start) => storeStart(dir, start, autoRegister),
    },
  );
  if (startFailed !== null)
    say(`svcmon: the start of run ${runId} was not recorded (the run goes on): ${startFailed}`);
  const child = await runChild(a.command, a.args);
  const completedAt = Math.max(now(), startedAt);
  const record: RunRecordOut = {
    run_id: runId,
    collector: a.collector,
    cloud_account_id: a.account,
    cloud_region: a.region,
    started_at: startedAt,
    completed_at: completedAt,
    status: child.status,
    events_produced: 0,
    rows_inserted: 0,
    // The monitor refuses a longer error text; its end says what went wrong.
    error: keepLastChars(child.error, MAX_RUN_ERROR_CHARS),
    duration_ms: completedAt - startedAt,
  };
  const notRecorded = (why: string) => say(`svcmon: run ${runId} (${record.status}) NOT recorded: ${why}`);
  // Time sanity, as the monitor checks it: this machine's clock may have jumped back during the run.
  const sendAt = now();
  const ahead = checkRunsClockSkew([record], sendAt, maxSkewMs, false);
  if (ahead.length > 0) {
    const first = ahead[0] as { path: string };
    const by = (first.path === "started_at" ? record.started_at : record.completed_at) - sendAt;
    notRecorded(
      `${first.path} is ${formatSkew(by)} ahead of this machine's clock; at most ${formatSkew(maxSkewMs)} (MAX_CLOCK_SKEW_S=${Math.floor(maxSkewMs / 1000)}) is accepted: check the system clock`,
    );
    return child.code === 0 ? 1 : child.code;
  }
  // The record is written even when a second signal arrives meanwhile (SIGKILL aside).
  const hold = () => undefined;
  for (const s of FORWARDED) process.on(s, hold);
  const delivery = await deliver(a.target, record, env, {
    fetch,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    alive: pidAlive,
    storeDirect: (dir, run) => storeRun(dir, run, autoRegister),
    say,
  });
  for (const s of FORWARDED) process.off(s, hold);
  if (delivery.kind === "spooled") {
    say(
      `svcmon: run ${runId} (${record.status}) spooled to ${delivery.path} (${delivery.reason}); the next svcmon call to ${(a.target as { url: string }).url} sends it first`,
    );
  } else if (delivery.kind === "not-recorded") {
    const skew = clockSkewRefusal(delivery.reason);
    notRecorded(skew ?? delivery.reason);
    // A clock to fix is not a run lost to an outage: exit 1 (or the command's own failure).
    if (skew !== null) return child.code === 0 ? 1 : child.code;
    // A command that succeeded must not look fine to the scheduler when its run is lost.
    if (child.code === 0) return EXIT_NOT_RECORDED;
  }
  return child.code;
}

/** The monitor's refusal of a time ahead of its clock (a 422 naming the field), as one line; null otherwise. */
function clockSkewRefusal(reason: string): string | null {
  const ahead = /"path":"(started_at|completed_at)","message":"([^"]*ahead of the server clock[^"]*)"/.exec(
    reason,
  );
  return ahead === null
    ? null
    : `the monitor refused it: ${ahead[1]} ${ahead[2]} (check this machine's clock)`;
}
