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
} from "@svcmon/core";

export const USAGE = `usage: svcmon run --collector NAME --account ID --region REGION [--url URL] [--token TOKEN | env MONITOR_TOKEN] [--data-dir DIR] -- COMMAND [ARGS...]

Runs COMMAND as one run of collector NAME for cloud account ID in REGION and records one run record:
  exit 0 -> succeeded, exit 3 -> partial, anything else (or a signal) -> failed
  error  -> the last 2 KB of the command's stderr (at most 4096 characters)
NAME: 1-64 letters, digits, '.', '_' or '-'; ID: 1-128 letters, digits, '.', '_', ':' or '-';
REGION: 1-64 letters, digits, '_' or '-' (the monitor's own bounds, checked before COMMAND runs)
Records through the monitor API (POST {url}/api/system/runs, default url http://127.0.0.1:$PORT, PORT
default 8787, bearer token from --token or MONITOR_TOKEN), or with --data-dir directly into the chDB
data folder DIR (the monitor must not be running on it; a collector it does not know is registered
by this first run unless AUTO_REGISTER=0). Exits with the command's exit code; 2 on invalid
arguments. A record dated more than MAX_CLOCK_SKEW_S (default 900) seconds ahead of this machine's
clock, or refused by the monitor as ahead of its own, is not sent: one line says so and the exit
code is the command's, or 1 when that was 0.`;

export const EXIT_PARTIAL = 3;
export const EXIT_USAGE = 2;
export const STDERR_TAIL_BYTES = 2048;

export interface RunArgs {
  collector: string;
  account: string;
  region: string;
  command: string;
  args: string[];
  target: { kind: "api"; url: string; token: string } | { kind: "data-dir"; dir: string };
}

export class UsageError extends Error {
  override name = "UsageError";
}

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

export interface RunRecordOut {
  run_id: string;
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  started_at: number;
  completed_at: number;
  status: "succeeded" | "failed" | "partial";
  events_produced: number;
  rows_inserted: number;
  error: string;
  duration_ms: number;
}

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
}

/** Runs the command, teeing its stderr; never throws. */
function runChild(command: string, args: string[]): Promise<Child> {
  return new Promise((resolve) => {
    const tail = new Tail();
    let child: ReturnType<typeof spawn>;
    const forward = (sig: NodeJS.Signals) => child?.kill(sig);
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
    const cleanup = () => {
      for (const s of signals) process.off(s, forward);
    };
    try {
      child = spawn(command, args, { stdio: ["inherit", "inherit", "pipe"] });
    } catch (err) {
      resolve({ code: 127, status: "failed", error: `cannot run ${command}: ${(err as Error).message}` });
      return;
    }
    for (const s of signals) process.on(s, forward);
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

async function postRun(url: string, token: string, record: RunRecordOut): Promise<void> {
  const body = JSON.stringify({
    ...record,
    started_at: new Date(record.started_at).toISOString(),
    completed_at: new Date(record.completed_at).toISOString(),
  });
  let last = "";
  // Same run_id on every attempt: the monitor stores it once.
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const res = await fetch(`${url}/api/system/runs`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body,
        // A redirect would carry the token elsewhere: it is an error, not followed.
        redirect: "manual",
        signal: AbortSignal.timeout(10_000),
      });
      if (res.ok) return;
      if (res.status >= 300 && res.status <= 399) {
        await res.body?.cancel().catch(() => undefined);
        last = `HTTP ${res.status}: the monitor answered with a redirect, which is not followed`;
        break;
      }
      const full = await res.text();
      const skew = clockSkewRefusal(res.status, full);
      if (skew !== null) throw new ClockSkewError(skew);
      const text = full.slice(0, 500);
      last = `HTTP ${res.status}${text ? `: ${text}` : ""}`;
      if (res.status < 500 && res.status !== 429) break;
    } catch (err) {
      if (err instanceof ClockSkewError) throw err;
      const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
      last = `${(err as Error).message}${cause ? ` (${String(cause.code ?? cause.message)})` : ""}`;
    }
    if (attempt < 3) await new Promise((r) => setTimeout(r, 500 * attempt));
  }
  throw new Error(`POST ${url}/api/system/runs failed: ${last}`);
}

/** The record's times are too far ahead of a clock (this machine's, or the monitor's 422). */
export class ClockSkewError extends Error {
  override name = "ClockSkewError";
}

/** A 422 of the monitor that names a time ahead of its clock, as one line; null for any other answer. */
function clockSkewRefusal(status: number, text: string): string | null {
  if (status !== 422) return null;
  try {
    const body = JSON.parse(text) as { error?: { details?: { path?: string; message?: string }[] } };
    const ahead = (body.error?.details ?? []).filter((d) => d.message?.includes("ahead of the server clock"));
    if (ahead.length === 0) return null;
    return `the monitor refused it: ${ahead.map((d) => `${d.path} ${d.message}`).join("; ")} (check this machine's clock)`;
  } catch {
    return null;
  }
}

async function storeRun(dir: string, record: RunRecordOut, autoRegister: AutoRegisterConfig): Promise<void> {
  const { openChdbRunStore } = await import("@svcmon/monitor-clickhouse/chdb");
  const { ClickHouseCollectorRegistry } = await import("@svcmon/monitor-clickhouse");
  const store = openChdbRunStore(dir, { timeoutMs: 30_000 });
  try {
    await store.migrate();
    await store.insertRuns([record]);
    // As POST /api/system/runs does: the first run of an unknown collector registers it.
    await registerFirstRuns(ClickHouseCollectorRegistry.fromStore(store), [record], autoRegister);
  } finally {
    await store.close();
  }
}

/** The whole command; resolves to the process exit code. */
export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  opts: { now?: () => number } = {},
): Promise<number> {
  const now = opts.now ?? Date.now;
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
  const notRecorded = (why: string) =>
    process.stderr.write(`svcmon: run ${runId} (${record.status}) NOT recorded: ${why}\n`);
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
  try {
    if (a.target.kind === "api") await postRun(a.target.url, a.target.token, record);
    else await storeRun(a.target.dir, record, autoRegister);
  } catch (err) {
    notRecorded((err as Error).message);
    if (err instanceof ClockSkewError) return child.code === 0 ? 1 : child.code;
  }
  return child.code;
}
