/**
 * The embedded chDB engine behind the run store's @clickhouse/client: its own entry point
 * (`@svcmon/monitor-clickhouse/chdb`), imported only where chDB runs (apps/local, apps/svcmon, tests, benches).
 * Nothing a Lambda bundle reaches imports it: the Lambdas talk to a ClickHouse server over HTTP.
 */

import { lstat, readdir, statfs } from "node:fs/promises";
import { join } from "node:path";
import { type ClickHouseClient, type ClickHouseClientConfigOptions, createClient } from "@clickhouse/client";
import { createChdbConnection } from "chdb/connection";
import {
  ClickHouseRunStore,
  type ClickHouseRunStoreOptions,
  type LocalDiskUsage,
} from "./clickhouse-run-store.ts";

/**
 * A @clickhouse/client over the embedded chDB engine. chdb/connection implements the client's
 * Connection contract (typed against @clickhouse/client-common, a structurally identical copy of the
 * client's bundled types), hence the cast.
 */
export function createChdbClient(path: string, timeoutMs = 5000): ClickHouseClient {
  const connection = createChdbConnection({ path }) as unknown as ClickHouseClientConfigOptions["connection"];
  return createClient({ connection, request_timeout: timeoutMs });
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
export async function chdbFolderDisk(path: string): Promise<LocalDiskUsage> {
  const [used, fs] = await Promise.all([folderBytes(path), statfs(path)]);
  return {
    used_bytes: used,
    total_bytes: (fs.blocks - fs.bfree + fs.bavail) * fs.bsize,
    free_bytes: fs.bavail * fs.bsize,
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

/**
 * Embedded default: chDB on a data folder (one process owns a folder). Its disk figures come from the
 * folder and its filesystem (`chdbFolderDisk`, reused for FOLDER_DISK_MAX_AGE_MS) unless `opts.localDisk` says otherwise.
 */
export function openChdbRunStore(path: string, opts: ClickHouseRunStoreOptions = {}): ClickHouseRunStore {
  const timeoutMs = opts.timeoutMs ?? 5000;
  return new ClickHouseRunStore(createChdbClient(path, timeoutMs), {
    localDisk: cachedDiskUsage(() => chdbFolderDisk(path)),
    ...opts,
    timeoutMs,
  });
}
