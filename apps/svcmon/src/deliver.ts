/**
 * Where `svcmon run` puts its one run record, so that it is never lost silently:
 * - `--url`: POST with retries and exponential backoff; when the monitor stays unreachable (network
 *   error, 5xx, 429) the record goes to a local spool folder that the next `svcmon` call sends first.
 * - `--data-dir`: when a running stack holds the folder (a live `stack.json`), the record goes to that
 *   stack's API; otherwise straight into chDB, under a lock file so two `svcmon` calls never open the
 *   folder at once. Given a stack's DATA_DIR rather than its chDB folder, the record goes into that
 *   stack's `chdb` folder (where the stack reads it), never into a second database beside it. A
 *   record that cannot be delivered this way is reported with what to do.
 * See docs/monitor-runtime.md (`svcmon run`).
 */
import { randomUUID } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

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

/** What became of the record. `not-recorded` always carries what the operator should do. */
export type Delivery =
  | { kind: "recorded"; via: string }
  | { kind: "spooled"; path: string; reason: string }
  | { kind: "not-recorded"; reason: string };

export interface DeliverDeps {
  fetch: typeof fetch;
  /** Waits between attempts (tests pass one that records the delays and returns at once). */
  sleep: (ms: number) => Promise<void>;
  /** Is this pid a live process? */
  alive: (pid: number) => boolean;
  /** Writes the record straight into the chDB folder (only when no live stack holds it). */
  storeDirect: (dir: string, record: RunRecordOut) => Promise<void>;
  /** Progress lines (stderr). */
  say: (line: string) => void;
}

/** The delays before attempts 2, 3 and 4 of a POST: 0.5 s, 1 s, 2 s (3.5 s in all). */
export const RETRY_DELAYS_MS = [500, 1000, 2000] as const;

/** The spool folder: `SVCMON_SPOOL_DIR`, else `$XDG_STATE_HOME/svcmon/spool`, else `~/.local/state/svcmon/spool`. */
export function spoolDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.SVCMON_SPOOL_DIR) return resolve(env.SVCMON_SPOOL_DIR);
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  return join(state, "svcmon", "spool");
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

type PostResult = { ok: true } | { ok: false; transient: boolean; status?: number; message: string };

function wireBody(record: RunRecordOut): string {
  return JSON.stringify({
    ...record,
    started_at: new Date(record.started_at).toISOString(),
    completed_at: new Date(record.completed_at).toISOString(),
  });
}

async function postOnce(url: string, token: string, body: string, deps: DeliverDeps): Promise<PostResult> {
  try {
    const res = await deps.fetch(`${url}/api/system/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body,
      // A redirect would carry the token elsewhere: it is an error, not followed.
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
    if (res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: true };
    }
    if (res.status >= 300 && res.status <= 399) {
      await res.body?.cancel().catch(() => undefined);
      return {
        ok: false,
        transient: false,
        status: res.status,
        message: `HTTP ${res.status}: the monitor answered with a redirect, which is not followed`,
      };
    }
    const text = (await res.text()).slice(0, 500);
    return {
      ok: false,
      transient: res.status >= 500 || res.status === 429,
      status: res.status,
      message: `HTTP ${res.status}${text ? `: ${text}` : ""}`,
    };
  } catch (err) {
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
    return {
      ok: false,
      transient: true,
      message: `${(err as Error).message}${cause ? ` (${String(cause.code ?? cause.message)})` : ""}`,
    };
  }
}

/** POSTs with the same run_id on every attempt (the monitor stores it once); retries transient failures. */
async function postWithRetries(
  url: string,
  token: string,
  record: RunRecordOut,
  deps: DeliverDeps,
): Promise<PostResult> {
  const body = wireBody(record);
  let last: PostResult = { ok: false, transient: true, message: "not sent" };
  for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
    if (attempt > 0) await deps.sleep(RETRY_DELAYS_MS[attempt - 1] as number);
    last = await postOnce(url, token, body, deps);
    if (last.ok || !last.transient) return last;
  }
  return last;
}

interface SpoolEntry {
  url: string;
  record: RunRecordOut;
}

/** Writes the record into the spool (folder 0700, file 0600, written then renamed: never half a file). */
export function spoolRecord(dir: string, url: string, record: RunRecordOut): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${record.run_id}.json`);
  const tmp = join(dir, `.${record.run_id}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify({ url, record } satisfies SpoolEntry)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
  return path;
}

/**
 * Sends the spooled records meant for `url`, oldest first, one attempt each: a sent one is removed;
 * when the monitor is still unreachable (or refuses the token) the rest stay for the next call; a
 * record the monitor refuses for itself (another 4xx) is renamed `*.json.rejected` and reported.
 */
export async function flushSpool(
  dir: string,
  url: string,
  token: string,
  deps: DeliverDeps,
): Promise<{ sent: number; left: number }> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return { sent: 0, left: 0 };
  }
  const entries: { path: string; mtime: number; entry: SpoolEntry }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const entry = JSON.parse(readFileSync(path, "utf8")) as SpoolEntry;
      if (entry.url === url) entries.push({ path, mtime: statSync(path).mtimeMs, entry });
    } catch {
      // unreadable: left alone, not ours to judge
    }
  }
  entries.sort((a, b) => a.mtime - b.mtime);
  let sent = 0;
  for (const [i, { path, entry }] of entries.entries()) {
    const r = await postOnce(url, token, wireBody(entry.record), deps);
    if (r.ok) {
      unlinkSync(path);
      sent++;
      continue;
    }
    if (r.transient || r.status === 401 || r.status === 403) return { sent, left: entries.length - i };
    renameSync(path, `${path}.rejected`);
    deps.say(
      `svcmon: spooled run ${entry.record.run_id} refused by the monitor (${r.message}); kept as ${path}.rejected`,
    );
  }
  if (sent > 0) deps.say(`svcmon: sent ${sent} spooled run(s) from ${dir}`);
  return { sent, left: 0 };
}

/** `stack.json`, written by `npm start` into its DATA_DIR (apps/local/src/stack-file.ts). */
export interface StackFile {
  url: string;
  pid: number;
  data_dir: string;
  chdb_dir: string;
  token?: string;
  started_at?: string;
}

/**
 * The live stack holding `dir` (its DATA_DIR or its chDB folder), from `stack.json` in `dir` or in
 * its parent. A file whose pid is gone is stale and ignored. The token in it is used only when the
 * file is owner-only (0600) and owned by this user.
 */
export function findLiveStack(
  dir: string,
  alive: (pid: number) => boolean,
): { stack: StackFile; path: string; tokenUsable: boolean } | undefined {
  const target = resolve(dir);
  for (const candidate of [join(target, "stack.json"), join(dirname(target), "stack.json")]) {
    let stack: StackFile;
    let mode: number;
    let uid: number;
    try {
      const st = statSync(candidate);
      mode = st.mode;
      uid = st.uid;
      stack = JSON.parse(readFileSync(candidate, "utf8")) as StackFile;
    } catch {
      continue;
    }
    if (typeof stack.pid !== "number" || typeof stack.url !== "string") continue;
    const holds = resolve(stack.chdb_dir ?? "") === target || resolve(stack.data_dir ?? "") === target;
    if (!holds || !alive(stack.pid)) continue;
    const ownerOnly = (mode & 0o077) === 0 && (process.getuid === undefined || uid === process.getuid());
    return { stack, path: candidate, tokenUsable: ownerOnly && typeof stack.token === "string" };
  }
  return undefined;
}

/** Files `npm start` keeps in its DATA_DIR; any of them marks a folder as a stack's data folder. */
const STACK_DATA_FILES = ["stack.json", "settings.db", "kv.db", "alerts.sqlite", "session-key", "demo.json"];

/**
 * The chDB folder a `--data-dir` run is stored in: a stack's DATA_DIR (one of its files, or its
 * `chdb` folder, is there) means that stack's `chdb` folder (from a stale `stack.json` when it names
 * one); anything else is a chDB folder of its own.
 */
export function chdbFolderFor(dir: string): { dir: string; stackDataDir: boolean } {
  const target = resolve(dir);
  const isDir = (path: string) => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  };
  const exists = (path: string) => {
    try {
      statSync(path);
      return true;
    } catch {
      return false;
    }
  };
  if (!isDir(join(target, "chdb")) && !STACK_DATA_FILES.some((f) => exists(join(target, f))))
    return { dir: target, stackDataDir: false };
  try {
    const stack = JSON.parse(readFileSync(join(target, "stack.json"), "utf8")) as Partial<StackFile>;
    if (typeof stack.chdb_dir === "string" && resolve(stack.data_dir ?? "") === target)
      return { dir: resolve(stack.chdb_dir), stackDataDir: true };
  } catch {
    // no stack.json (a clean stop removes it), or not readable: the stack's own layout
  }
  return { dir: join(target, "chdb"), stackDataDir: true };
}

/** `svcmon.lock` in the chDB folder: one svcmon writes into a folder at a time. */
export async function withFolderLock<T>(dir: string, deps: DeliverDeps, body: () => Promise<T>): Promise<T> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = join(dir, "svcmon.lock");
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, "wx", 0o600);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number.parseInt(readFileSync(lock, "utf8"), 10);
      if (!Number.isFinite(holder) || !deps.alive(holder)) {
        // a lock left by a killed svcmon: take it over
        const stale = `${lock}.${randomUUID()}`;
        try {
          renameSync(lock, stale);
          unlinkSync(stale);
        } catch {
          // another svcmon took it over first
        }
        continue;
      }
      if (attempt >= 60) throw new Error(`${lock} is held by svcmon pid ${holder}`);
      await deps.sleep(500);
    }
  }
  try {
    return await body();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // already gone
    }
  }
}

export type Target = { kind: "api"; url: string; token: string } | { kind: "data-dir"; dir: string };

/** Delivers the record to its target; never throws. */
export async function deliver(
  target: Target,
  record: RunRecordOut,
  env: Readonly<Record<string, string | undefined>>,
  deps: DeliverDeps,
): Promise<Delivery> {
  try {
    if (target.kind === "api") {
      const spool = spoolDir(env);
      await flushSpool(spool, target.url, target.token, deps);
      const r = await postWithRetries(target.url, target.token, record, deps);
      if (r.ok) return { kind: "recorded", via: `${target.url}/api/system/runs` };
      const reason = `POST ${target.url}/api/system/runs failed: ${r.message}`;
      if (!r.transient) return { kind: "not-recorded", reason };
      return { kind: "spooled", path: spoolRecord(spool, target.url, record), reason };
    }
    const live = findLiveStack(target.dir, deps.alive);
    if (live !== undefined) {
      const { stack } = live;
      const token = env.MONITOR_TOKEN || (live.tokenUsable ? stack.token : undefined);
      if (!token) {
        return {
          kind: "not-recorded",
          reason: `${target.dir} is held by the running stack (pid ${stack.pid}, ${stack.url}) and ${live.path} carries no usable token: set MONITOR_TOKEN to the stack's monitor token and run again, or use --url ${stack.url}`,
        };
      }
      const r = await postWithRetries(stack.url, token, record, deps);
      if (r.ok)
        return { kind: "recorded", via: `${stack.url}/api/system/runs (the stack holding ${target.dir})` };
      return {
        kind: "not-recorded",
        reason: `${target.dir} is held by the running stack (pid ${stack.pid}) and its API ${stack.url} did not take the run: ${r.message}; check the stack (and MONITOR_TOKEN), or stop it and run again`,
      };
    }
    const folder = chdbFolderFor(target.dir);
    if (folder.stackDataDir)
      deps.say(`svcmon: ${target.dir} is a stack's data folder (npm start): recording into ${folder.dir}`);
    await withFolderLock(folder.dir, deps, () => deps.storeDirect(folder.dir, record));
    return { kind: "recorded", via: folder.dir };
  } catch (err) {
    return { kind: "not-recorded", reason: (err as Error).message };
  }
}
