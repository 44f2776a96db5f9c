/**
 * The embedded chDB engine behind the run store's @clickhouse/client: its own entry point
 * (`@monitor/clickhouse/chdb`), imported only where chDB runs (apps/local, apps/svcmon, tests, benches).
 * Nothing a Lambda bundle reaches imports it: the Lambdas talk to a ClickHouse server over HTTP.
 */

import { lstat, readdir, statfs } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type ClickHouseClient, type ClickHouseClientConfigOptions, createClient } from "@clickhouse/client";
import { createChdbConnection } from "chdb/connection";
import { ClickHouseRunStore, type ClickHouseRunStoreOptions } from "./clickhouse-run-store.ts";
import { diskQuotaFromEnv } from "./disk-quota.ts";
import { CACHED_READ_TABLES } from "./read-version.ts";
import type { LocalDiskUsage } from "./store-health.ts";

/**
 * A @clickhouse/client over the embedded chDB engine. chdb/connection implements the client's
 * Connection contract (typed against @clickhouse/client-common, a structurally identical copy of the
 * client's bundled types), hence the cast.
 */
export function createChdbClient(path: string, timeoutMs = 5000): ClickHouseClient {
  const connection = createChdbConnection({ path }) as unknown as ClickHouseClientConfigOptions["connection"];
  return countWrites(createClient({ connection, request_timeout: timeoutMs }), writeCounter(path));
}

/**
 * Statements that may change the run store's cached reads, run through the clients of one chDB data
 * folder in this process, counted when each starts and when it ends: the write version of the
 * embedded store's read cache. One process owns a folder (chDB), and every client of it is made
 * here, so no such write escapes the count. Writes to other tables (the alert state a tick saves,
 * the registry, the delivery log) do not count.
 */
const writeCounters = new Map<string, { n: number }>();

function writeCounter(path: string): { n: number } {
  const key = resolve(path);
  let c = writeCounters.get(key);
  if (c === undefined) {
    c = { n: 0 };
    writeCounters.set(key, c);
  }
  return c;
}

/** Statements that only read (a query() may also carry an INSERT or DDL: counted as a write). */
const READ_ONLY_SQL = /^\s*(\(\s*)*(SELECT|WITH|SHOW|DESCRIBE|DESC|EXPLAIN|EXISTS)\b/i;
const INSERT_INTO_SQL = /^\s*INSERT\s+INTO\s+(?:TABLE\s+)?([`"\w.]+)/i;
/** The tables whose writes change the cached reads: their sources and themselves. */
const READ_SOURCES = new Set(["collector_runs", "cloud_accounts", ...CACHED_READ_TABLES]);

/**
 * Whether a write to `table` (as written in the statement) may change the cached reads: any table
 * of svc the reads come from or that feeds them, and any table not named `svc.<name>`.
 */
function feedsReads(table: string): boolean {
  const name = table.replace(/[`"]/g, "");
  if (!name.startsWith("svc.")) return true;
  return READ_SOURCES.has(name.slice(4));
}

/** Whether a statement may change the cached reads: not a read, not an INSERT into another table. */
function mayChangeReads(sql: string): boolean {
  if (READ_ONLY_SQL.test(sql)) return false;
  const insert = INSERT_INTO_SQL.exec(sql);
  return insert === null || feedsReads(insert[1] as string);
}

function countWrites(client: ClickHouseClient, counter: { n: number }): ClickHouseClient {
  const counted =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>, isWrite: (...args: A) => boolean) =>
    async (...args: A): Promise<R> => {
      if (!isWrite(...args)) return fn(...args);
      counter.n += 1;
      try {
        return await fn(...args);
      } finally {
        counter.n += 1;
      }
    };
  return new Proxy(client, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (typeof v !== "function") return v;
      const fn = v.bind(target);
      if (prop === "insert") return counted(fn, (params: { table: string }) => feedsReads(params.table));
      if (prop === "command" || prop === "exec" || prop === "query")
        return counted(fn, (params: { query: string }) => mayChangeReads(params.query));
      return fn;
    },
  });
}

/**
 * The write version of a chDB data folder in this process (see createChdbClient): it changes when a
 * statement that may write starts and again when it ends, and never otherwise.
 */
export function chdbWriteVersion(path: string): () => string {
  const counter = writeCounter(path);
  return () => String(counter.n);
}

/** Bytes allocated to the files under `dir` (as `du`: 512-byte blocks; symbolic links not followed). */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const folder = stack.pop() as string;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (err) {
      // a part merged away while we walked
      if ((err as NodeJS.ErrnoException).code === "ENOENT" && folder !== dir) continue;
      throw err;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        stack.push(path);
        continue;
      }
      try {
        const st = await lstat(path);
        total += st.blocks > 0 ? st.blocks * 512 : st.size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
  }
  return total;
}

/**
 * The disk figures of a chDB data folder: its size, and the filesystem that holds it, as `df` counts
 * it (fs.statfs): free = the blocks available to this process, total = the blocks in use plus those,
 * so that (total − free) / total is df's "Use%" (blocks reserved for root count as neither).
 */
export async function chdbFolderDisk(
  path: string,
  quotaBytes: number | null = null,
): Promise<LocalDiskUsage> {
  const [used, fs] = await Promise.all([folderBytes(path), statfs(path)]);
  const available = fs.bavail * fs.bsize;
  if (quotaBytes !== null) {
    // The folder's share: what is left of the quota, unless the filesystem has less than that free
    // (a full disk still reads as full).
    return {
      used_bytes: used,
      total_bytes: quotaBytes,
      free_bytes: Math.min(Math.max(0, quotaBytes - used), available),
    };
  }
  return {
    used_bytes: used,
    total_bytes: (fs.blocks - fs.bfree + fs.bavail) * fs.bsize,
    free_bytes: available,
  };
}

/** How long the embedded store's folder size is reused before it is walked again. */
export const FOLDER_DISK_MAX_AGE_MS = 10_000;

/**
 * `read` with its last answer reused for `maxAgeMs` (walking a data folder of a few hundred parts
 * takes tens of milliseconds, more than every status query together). An older answer is still
 * returned at once while a fresh one is read in the background; the first call, and any call after a
 * failed read, waits for the read.
 */
export function cachedDiskUsage(
  read: () => Promise<LocalDiskUsage>,
  maxAgeMs = FOLDER_DISK_MAX_AGE_MS,
  now: () => number = Date.now,
): () => Promise<LocalDiskUsage> {
  let last: { at: number; value: LocalDiskUsage } | null = null;
  let inFlight: Promise<LocalDiskUsage> | null = null;
  const refresh = (): Promise<LocalDiskUsage> => {
    inFlight ??= read()
      .then((value) => {
        last = { at: now(), value };
        return value;
      })
      .catch((err: unknown) => {
        last = null;
        throw err;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
  return async () => {
    if (last === null) return refresh();
    if (now() - last.at > maxAgeMs) refresh().catch(() => {});
    return last.value;
  };
}

export interface ChdbRunStoreOptions extends ClickHouseRunStoreOptions {
  /**
   * The bytes the data folder may use (see `diskQuotaFromEnv`); null: the whole filesystem. Default:
   * MONITOR_DISK_QUOTA_BYTES of this process's environment (a bad value throws here, at start).
   */
  diskQuotaBytes?: number | null;
}

/**
 * Embedded default: chDB on a data folder (one process owns a folder). Its disk figures come from the
 * folder and its filesystem, or its quota (`chdbFolderDisk`, reused for FOLDER_DISK_MAX_AGE_MS) unless
 * `opts.localDisk` says otherwise.
 */
export function openChdbRunStore(path: string, opts: ChdbRunStoreOptions = {}): ClickHouseRunStore {
  const { diskQuotaBytes: quotaOpt, ...storeOpts } = opts;
  let quota: number | null;
  if (quotaOpt === undefined) {
    const fromEnv = diskQuotaFromEnv(process.env);
    if (!fromEnv.ok) throw new Error(fromEnv.error);
    quota = fromEnv.value;
  } else quota = quotaOpt;
  const timeoutMs = storeOpts.timeoutMs ?? 5000;
  return new ClickHouseRunStore(createChdbClient(path, timeoutMs), {
    localDisk: cachedDiskUsage(() => chdbFolderDisk(path, quota)),
    // Every write to the folder goes through this process: its count is the read cache's version
    // (no system.parts query, and merges do not empty the cache).
    writeVersion: chdbWriteVersion(path),
    // chDB has no system.query_log: not asked for it on every dbHealth.
    queryLog: false,
    // chDB's defaults are what INSERT_SETTINGS asks for (no async_insert; a group is far below one
    // block), and it would run each as a SET statement before every INSERT.
    insertSettings: null,
    // A second connection to the folder: the duplicate check of the next insert group runs beside
    // the INSERT being written instead of after it (chDB runs one statement at a time per connection).
    checkClient: createChdbClient(path, timeoutMs),
    ...storeOpts,
    timeoutMs,
  });
}
