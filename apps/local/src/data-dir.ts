import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** What `secureDataDir` changed: paths whose modes were looser than owner-only. */
export interface Tightened {
  /** How many folders and files had their modes tightened. */
  count: number;
  /** A few of them, for the one log line. */
  examples: string[];
}

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * DATA_DIR holds admin tokens, API-key hashes, the demo key and the delivery log, so only its owner
 * may read it: the folder is created `0700`; a folder that already exists with looser modes (an
 * older version, a copy, a hand-made folder) is tightened, folders to `0700` and files to `0600`,
 * and the caller says so once. Symbolic links are left alone (chmod would follow them out of the
 * folder). Files created later are owner-only through the process umask (`ownerOnlyUmask`).
 */
export function secureDataDir(dir: string): Tightened {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const tightened: Tightened = { count: 0, examples: [] };
  const fix = (path: string, mode: number, current: number) => {
    if ((current & 0o777 & ~mode) === 0) return;
    chmodSync(path, current & mode);
    tightened.count++;
    if (tightened.examples.length < 5) tightened.examples.push(path);
  };
  const stack = [dir];
  while (stack.length > 0) {
    const folder = stack.pop() as string;
    fix(folder, DIR_MODE, lstatSync(folder).mode);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile()) fix(path, FILE_MODE, lstatSync(path).mode);
    }
  }
  return tightened;
}

/**
 * Every file and folder this process creates from now on (SQLite and its WAL, chDB's parts, cost
 * reports, demo credentials) is owner-only. Process-wide, so only the stack's own entry calls it.
 */
export function ownerOnlyUmask(): void {
  process.umask(0o077);
}
