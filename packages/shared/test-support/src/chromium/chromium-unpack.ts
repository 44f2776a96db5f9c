/**
 * Unpacks the Chromium of @sparticuz/chromium (brotli archives in its `bin` folder) into a folder
 * of its own under the temp dir, once per package version and user. Not through the package's own
 * `executablePath()`: that writes straight to /tmp/chromium (shared by every checkout and version,
 * and visible half-written to a second process), spreads SwiftShader files over /tmp and unpacks
 * the libraries Chromium links against only on Amazon Linux. Here everything is written to a
 * private folder first and renamed into place, so parallel test processes never see half a binary.
 * Reads only local files: no network.
 */
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { brotliDecompressSync, createBrotliDecompress } from "node:zlib";
import { readTar } from "./untar.ts";

export interface UnpackedChromium {
  executable: string;
  /** NSS, NSPR and expat built for the binary: Chromium's only libraries beyond glibc. */
  libDir: string;
}

/** The unpacked folder for this package version (and user: another user could not run our files). */
export function unpackedChromiumDir(version: string, cacheRoot: string, uid: number): string {
  return join(cacheRoot, `sparticuz-chromium-${version}-uid${uid}`);
}

export async function unpackBundledChromium(binDir: string, cacheRoot = tmpdir()): Promise<UnpackedChromium> {
  const pkg = JSON.parse(await readFile(join(binDir, "..", "package.json"), "utf8")) as { version: string };
  const dir = unpackedChromiumDir(pkg.version, cacheRoot, process.getuid?.() ?? 0);
  const unpacked = { executable: join(dir, "chromium"), libDir: join(dir, "lib") };
  if (existsSync(unpacked.executable)) return unpacked;

  const part = await mkdtemp(`${dir}.part-`);
  try {
    await pipeline(
      createReadStream(join(binDir, "chromium.br")),
      createBrotliDecompress(),
      createWriteStream(join(part, "chromium"), { mode: 0o755 }),
    );
    const libs = readTar(brotliDecompressSync(await readFile(join(binDir, "al2023.tar.br"))));
    for (const entry of libs) {
      const target = join(part, entry.path);
      if (entry.kind === "directory") {
        await mkdir(target, { recursive: true });
      } else {
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, entry.data, { mode: entry.mode });
      }
    }
    // Atomic: the folder appears complete or not at all.
    await rename(part, dir);
  } catch (error) {
    await rm(part, { recursive: true, force: true });
    // Renaming onto the folder another process finished first fails; its copy is as good as ours.
    if (existsSync(unpacked.executable)) return unpacked;
    throw error;
  }
  return unpacked;
}
