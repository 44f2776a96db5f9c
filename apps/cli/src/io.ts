import { randomBytes } from "node:crypto";
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { UserError } from "@shared/kernel";

/** What commands may do to the outside world; tests pass their own. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  readText(path: string): Promise<string>;
  /**
   * The size of a file in bytes, from its metadata, without reading it (null for `-`, standard
   * input, or when unknown). Optional: an Io without it only gets sizes checked after reading.
   */
  fileBytes?(path: string): Promise<number | null>;
  /** Writes the whole file or nothing: a temporary sibling renamed into place. */
  writeTextAtomic(path: string, text: string): Promise<void>;
  /**
   * Stderr is a terminal: a person watches, so work over a second shows progress there. Piped or in a
   * log (CI) that progress is noise and stays off; absent means not a terminal.
   */
  stderrIsTerminal?: boolean;
}

// A failure the user can fix: the kernel's, shared by every command line of the repository.
export { UserError };

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export function nodeIo(): Io {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    stderrIsTerminal: process.stderr.isTTY === true,
    async readText(path) {
      if (path === "-") return readStdin();
      try {
        return await readFile(path, "utf8");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const why =
          code === "ENOENT"
            ? "no such file"
            : code === "EISDIR"
              ? "it is a directory"
              : code === "EACCES"
                ? "permission denied"
                : String(code);
        throw new UserError(`cannot read ${path}: ${why}`);
      }
    },
    async fileBytes(path) {
      if (path === "-") return null;
      try {
        const info = await stat(path);
        return info.isFile() ? info.size : null;
      } catch {
        return null; // readText reports the problem in its own words
      }
    },
    async writeTextAtomic(path, text) {
      const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString("hex")}.tmp`);
      try {
        await writeFile(tmp, text);
        await rename(tmp, path);
      } catch (error) {
        await rm(tmp, { force: true });
        throw new UserError(
          `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
      }
    },
  };
}
