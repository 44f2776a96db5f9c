// A file written as a stream and put in place only when complete: lines go to a temporary sibling
// as they come (memory stays bounded by what one write holds), `commit` renames it into place, and
// `abort` removes it, so a failure half-way leaves no partial file under the real name.
import { randomBytes } from "node:crypto";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { UserError } from "./io.ts";

export interface StreamFile {
  write(text: string): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export async function openStreamFile(path: string): Promise<StreamFile> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString("hex")}.tmp`);
  const failed = (error: unknown) =>
    new UserError(
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  let handle: FileHandle | null;
  try {
    handle = await open(tmp, "w");
  } catch (error) {
    throw failed(error);
  }
  const close = async () => {
    const h = handle;
    handle = null;
    await h?.close();
  };
  return {
    async write(text) {
      if (handle === null) throw new Error("the file is already closed");
      try {
        await handle.write(text);
      } catch (error) {
        throw failed(error);
      }
    },
    async commit() {
      try {
        await close();
        await rename(tmp, path);
      } catch (error) {
        await rm(tmp, { force: true });
        throw failed(error);
      }
    },
    async abort() {
      await close().catch(() => {});
      await rm(tmp, { force: true });
    },
  };
}
