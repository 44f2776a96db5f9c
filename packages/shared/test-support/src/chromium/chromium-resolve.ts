/**
 * Which Chromium the browser tests and the page benchmark drive, as a pure decision over the
 * environment and an `exists` check: `CHROMIUM_PATH` when set, else the Chromium shipped in the npm
 * package @sparticuz/chromium (so `npm install && npm test` needs nothing outside npm), else a
 * system one (Debian's /usr/lib/chromium, for machines that have it and lack the package).
 */

/** Where system packages put Chromium (Debian's first: what CI used before the npm package). */
export const SYSTEM_CHROMIUM_PATHS: readonly string[] = [
  "/usr/lib/chromium/chromium",
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
];

export type ChromiumSource =
  | { from: "CHROMIUM_PATH"; executable: string }
  /** `binDir` holds the package's brotli archives (chromium.br, al2023.tar.br), unpacked at first use. */
  | { from: "@sparticuz/chromium"; binDir: string }
  | { from: "system"; executable: string };

export type ChromiumResolution = { ok: true; source: ChromiumSource } | { ok: false; error: string };

export interface ChromiumPlaces {
  /** The package's `bin` folder, or null when @sparticuz/chromium is not installed. */
  bundledBinDir: string | null;
  system: readonly string[];
}

export function resolveChromium(
  env: Readonly<Record<string, string | undefined>>,
  exists: (path: string) => boolean,
  places: ChromiumPlaces,
): ChromiumResolution {
  const explicit = env.CHROMIUM_PATH?.trim();
  if (explicit) {
    // A path someone set on purpose that is wrong is a mistake to report, not a cue to pick another.
    return exists(explicit)
      ? { ok: true, source: { from: "CHROMIUM_PATH", executable: explicit } }
      : { ok: false, error: `CHROMIUM_PATH is set to ${explicit}, which does not exist` };
  }
  const bin = places.bundledBinDir;
  if (bin !== null && exists(`${bin}/chromium.br`)) {
    return { ok: true, source: { from: "@sparticuz/chromium", binDir: bin } };
  }
  const system = places.system.find((path) => exists(path));
  if (system !== undefined) return { ok: true, source: { from: "system", executable: system } };
  return {
    ok: false,
    error:
      "no Chromium found: run `npm install` (the devDependency @sparticuz/chromium ships one), " +
      `or set CHROMIUM_PATH, or install one at ${places.system.join(" or ")}`,
  };
}
