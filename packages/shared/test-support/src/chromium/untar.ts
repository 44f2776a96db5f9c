/**
 * The few bytes of the tar format needed to unpack @sparticuz/chromium's library archive (regular
 * files and directories, ustar names): a pure reader over the decompressed bytes, so unpacking needs
 * no `tar` program and no extra npm package.
 */

export interface TarEntry {
  /** Relative path inside the archive, `/`-separated, never absolute and never with `..`. */
  path: string;
  kind: "file" | "directory";
  /** Permission bits from the header (e.g. 0o755). */
  mode: number;
  data: Uint8Array;
}

const BLOCK = 512;

function text(bytes: Uint8Array, from: number, length: number): string {
  const field = bytes.subarray(from, from + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
}

function octal(bytes: Uint8Array, from: number, length: number, what: string): number {
  const digits = text(bytes, from, length).trim();
  if (!/^[0-7]+$/.test(digits)) throw new Error(`tar: bad ${what} field "${digits}"`);
  return Number.parseInt(digits, 8);
}

/** Rejects names that would land outside the folder the archive is unpacked into. */
function safePath(name: string): string {
  const path = name.replace(/^\.\//, "").replace(/\/+$/, "");
  if (path === "" || path.startsWith("/") || path.split("/").includes("..")) {
    throw new Error(`tar: unsafe entry name "${name}"`);
  }
  return path;
}

/** Every entry of an uncompressed tar archive; throws on links, devices and other kinds. */
export function readTar(bytes: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  let at = 0;
  while (at + BLOCK <= bytes.length) {
    const header = bytes.subarray(at, at + BLOCK);
    // The archive ends with zero blocks.
    if (header.every((b) => b === 0)) break;
    const prefix = text(header, 345, 155);
    const name = text(header, 0, 100);
    const size = octal(header, 124, 12, "size");
    const mode = octal(header, 100, 8, "mode") & 0o7777;
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = at + BLOCK;
    if (dataStart + size > bytes.length) throw new Error(`tar: entry "${name}" is truncated`);
    const path = safePath(prefix === "" ? name : `${prefix}/${name}`);
    if (type === "0" || type === "\0") {
      entries.push({ path, kind: "file", mode, data: bytes.slice(dataStart, dataStart + size) });
    } else if (type === "5") {
      entries.push({ path, kind: "directory", mode, data: new Uint8Array() });
    } else {
      throw new Error(`tar: entry "${path}" has unsupported type "${type}"`);
    }
    at = dataStart + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}
