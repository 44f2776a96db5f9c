/**
 * `$DATA_DIR/stack.json`: how `svcmon run --data-dir` finds the running stack that holds the folder
 * (chDB allows one process per data folder) and sends its run to this stack's API instead.
 *
 * `{ url, pid, data_dir, chdb_dir, token, started_at }`, owner-only (0600, in a 0700 DATA_DIR),
 * written once the server listens, removed at a clean stop. The monitor token is in it: whoever can
 * read the file can already read and write every file of DATA_DIR (the chDB parts included), so
 * the token gives them nothing more, and it lets `svcmon` record through the API even when the
 * token was generated at start. A file left by a killed stack names a pid that is gone: svcmon
 * ignores it. See docs/monitor-runtime.md (`svcmon run`).
 */
import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const STACK_FILE = "stack.json";

export interface StackFileContent {
  url: string;
  pid: number;
  data_dir: string;
  chdb_dir: string;
  token: string;
  started_at: string;
}

/** A URL a local client can call: a wildcard listen address becomes the loopback address. */
export function localUrl(host: string, port: number): string {
  const h =
    host === "0.0.0.0" || host === ""
      ? "127.0.0.1"
      : host === "::"
        ? "[::1]"
        : host.includes(":")
          ? `[${host}]`
          : host;
  return `http://${h}:${port}`;
}

export function writeStackFile(
  dataDir: string,
  content: Omit<StackFileContent, "data_dir" | "chdb_dir">,
): string {
  const path = join(dataDir, STACK_FILE);
  const body: StackFileContent = {
    ...content,
    data_dir: resolve(dataDir),
    chdb_dir: resolve(dataDir, "chdb"),
  };
  writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  return path;
}

export function removeStackFile(dataDir: string): void {
  rmSync(join(dataDir, STACK_FILE), { force: true });
}
