/**
 * The one Chromium launcher of the browser tests and the page benchmark
 * (`@shared/test-support/chromium`), for the /system page and the InstantSearch page: finds a Chromium (chromium-resolve.ts), unpacks the
 * npm-shipped one at first use, and launches it headless through playwright-core with the flags
 * that let it run here and keep it off the network.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Browser, chromium, type LaunchOptions } from "playwright-core";
import {
  type ChromiumResolution,
  type ChromiumSource,
  resolveChromium,
  SYSTEM_CHROMIUM_PATHS,
} from "./chromium-resolve.ts";
import { unpackBundledChromium } from "./chromium-unpack.ts";

type Env = Readonly<Record<string, string | undefined>>;

export const CHROMIUM_ARGS: readonly string[] = [
  // Containers and CI run as root, where Chromium's sandbox cannot start.
  "--no-sandbox",
  // No GPU here; without this Chromium probes for one and logs errors.
  "--disable-gpu",
  // Small /dev/shm in containers makes renderers crash under load.
  "--disable-dev-shm-usage",
  // Off the network: no updates, sync or background requests.
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** The package's `bin` folder, or null when @sparticuz/chromium is not installed. */
function bundledBinDir(): string | null {
  try {
    const entry = createRequire(import.meta.url).resolve("@sparticuz/chromium");
    return join(dirname(entry), "..", "bin");
  } catch {
    return null;
  }
}

/** Which Chromium this machine would launch, without unpacking or launching anything. */
export function chromiumHere(env: Env = process.env): ChromiumResolution {
  return resolveChromium(env, existsSync, { bundledBinDir: bundledBinDir(), system: SYSTEM_CHROMIUM_PATHS });
}

export interface ChromiumLaunch {
  source: ChromiumSource;
  options: LaunchOptions & { executablePath: string };
}

/** Launch options for the Chromium `chromiumHere` picks (unpacking the npm one if needed). */
export async function chromiumLaunchOptions(env: Env = process.env): Promise<ChromiumLaunch> {
  const resolved = chromiumHere(env);
  if (!resolved.ok) throw new Error(resolved.error);
  const { source } = resolved;
  const base = { headless: true, args: [...CHROMIUM_ARGS] };
  if (source.from !== "@sparticuz/chromium") {
    return { source, options: { ...base, executablePath: source.executable } };
  }
  const unpacked = await unpackBundledChromium(source.binDir);
  // The binary links NSS/NSPR/expat, which a bare machine lacks: the package ships them.
  const ldPath = [unpacked.libDir, env.LD_LIBRARY_PATH].filter(Boolean).join(":");
  const browserEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) browserEnv[k] = v;
  browserEnv.LD_LIBRARY_PATH = ldPath;
  return { source, options: { ...base, executablePath: unpacked.executable, env: browserEnv } };
}

export async function launchChromium(env: Env = process.env): Promise<Browser> {
  return chromium.launch((await chromiumLaunchOptions(env)).options);
}
