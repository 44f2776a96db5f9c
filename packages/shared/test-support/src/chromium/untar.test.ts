import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readTar } from "./untar.ts";

/** One ustar header block (the fields readTar reads) followed by the data, padded, and the end blocks. */
function tarOf(entries: { name: string; type?: string; data?: string; prefix?: string }[]): Uint8Array {
  const blocks: Uint8Array[] = [];
  const enc = new TextEncoder();
  for (const e of entries) {
    const data = enc.encode(e.data ?? "");
    const header = new Uint8Array(512);
    header.set(enc.encode(e.name), 0);
    header.set(enc.encode("0000644\0"), 100);
    header.set(enc.encode(`${data.length.toString(8).padStart(11, "0")}\0`), 124);
    header[156] = (e.type ?? "0").charCodeAt(0);
    if (e.prefix) header.set(enc.encode(e.prefix), 345);
    blocks.push(header);
    const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
    padded.set(data);
    blocks.push(padded);
  }
  blocks.push(new Uint8Array(1024));
  const out = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of blocks) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

describe("readTar", () => {
  it("reads the library archive shipped in @sparticuz/chromium (the one the launcher unpacks)", () => {
    const bin = join(dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..", "bin");
    const entries = readTar(brotliDecompressSync(readFileSync(join(bin, "al2023.tar.br"))));
    const nss = entries.find((e) => e.path === "lib/libnss3.so");
    expect(nss?.kind).toBe("file");
    expect(nss?.mode).toBe(0o755);
    // An ELF shared object, whole.
    expect(Buffer.from(nss?.data.subarray(0, 4) ?? []).toString("latin1")).toBe("\x7fELF");
    expect(entries.map((e) => e.path)).toEqual(
      expect.arrayContaining(["lib/libnspr4.so", "lib/libexpat.so.1"]),
    );
  });

  it("reads names, prefixes, directories and data that spans blocks", () => {
    const long = "x".repeat(700);
    const entries = readTar(
      tarOf([
        { name: "lib/", type: "5" },
        { name: "a.txt", prefix: "lib", data: long },
        { name: "./b", data: "hi" },
      ]),
    );
    expect(entries.map((e) => [e.path, e.kind, new TextDecoder().decode(e.data)])).toEqual([
      ["lib", "directory", ""],
      ["lib/a.txt", "file", long],
      ["b", "file", "hi"],
    ]);
  });

  it("rejects entries that would land outside the target folder", () => {
    expect(() => readTar(tarOf([{ name: "../evil", data: "x" }]))).toThrow(/unsafe/);
    expect(() => readTar(tarOf([{ name: "/etc/evil", data: "x" }]))).toThrow(/unsafe/);
    expect(() => readTar(tarOf([{ name: "a/../../evil", data: "x" }]))).toThrow(/unsafe/);
  });

  it("rejects links and a truncated archive", () => {
    expect(() => readTar(tarOf([{ name: "link", type: "2" }]))).toThrow(/unsupported type/);
    expect(() => readTar(tarOf([{ name: "big", data: "y".repeat(600) }]).subarray(0, 700))).toThrow(
      /truncated/,
    );
  });
});
