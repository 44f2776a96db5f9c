import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { secureDataDir } from "./data-dir.ts";
import { spawnStack } from "./test-support.ts";

/**
 * Every folder and file under `dir` with its permission bits. The running stack's chDB renames
 * and removes its temporary parts while this walks (the outcome store writes at start too): an
 * entry gone between the listing and the stat is skipped, it has no mode left to check.
 */
function modes(dir: string): Array<{ path: string; mode: number; dir: boolean }> {
  const out: Array<{ path: string; mode: number; dir: boolean }> = [];
  const gone = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";
  const stack = [dir];
  while (stack.length > 0) {
    const folder = stack.pop() as string;
    let entries: import("node:fs").Dirent[];
    try {
      out.push({ path: folder, mode: statSync(folder).mode & 0o777, dir: true });
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      if (folder !== dir && gone(error)) continue;
      throw error;
    }
    for (const e of entries) {
      const path = join(folder, e.name);
      if (e.isDirectory()) stack.push(path);
      else if (e.isFile()) {
        try {
          out.push({ path, mode: lstatSync(path).mode & 0o777, dir: false });
        } catch (error) {
          if (!gone(error)) throw error;
        }
      }
    }
  }
  return out;
}

describe("secureDataDir", () => {
  it("creates the folder owner-only", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "datadir-")), "new", "data");
    expect(secureDataDir(dir).count).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it("tightens an existing folder with looser modes, and reports what it changed", () => {
    const dir = mkdtempSync(join(tmpdir(), "datadir-"));
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, "chdb"), { mode: 0o775 });
    writeFileSync(join(dir, "demo.json"), "{}", { mode: 0o644 });
    writeFileSync(join(dir, "chdb", "part.bin"), "x", { mode: 0o666 });
    writeFileSync(join(dir, "private"), "x", { mode: 0o600 });
    const result = secureDataDir(dir);
    expect(result.count).toBe(4);
    for (const entry of modes(dir)) expect(entry.mode).toBe(entry.dir ? 0o700 : 0o600);
    expect(secureDataDir(dir).count).toBe(0);
  });
});

describe("npm start's DATA_DIR", () => {
  it("is owner-only after a start over a folder readable by everyone, and says so once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "datadir-start-"));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "demo.json"), "{}", { mode: 0o644 });
    const stack = await spawnStack({ DATA_DIR: dir });
    try {
      const warnings = stack.lines.filter((l) => String(l.message).startsWith("DATA_DIR was readable"));
      expect(warnings).toHaveLength(1);
      const loose = modes(dir).filter((e) => e.mode !== (e.dir ? 0o700 : 0o600));
      expect(loose).toEqual([]);
      // SQLite, its WAL and chDB's folder were created by the stack itself.
      expect(modes(dir).some((e) => e.path.endsWith("settings.db"))).toBe(true);
    } finally {
      await stack.kill("SIGTERM");
    }
  }, 60_000);
});
