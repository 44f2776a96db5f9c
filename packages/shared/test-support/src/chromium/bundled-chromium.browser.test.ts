/**
 * Without CHROMIUM_PATH and with an empty PATH, the launcher runs the Chromium shipped in the npm
 * package @sparticuz/chromium, linked against the NSS/NSPR/expat shipped beside it: the browser
 * process's executable and loaded libraries are read from /proc, so a system Chromium or system
 * libraries being used instead would fail this test. Unpacking is tested into a fresh folder.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { chromiumLaunchOptions } from "./chromium.ts";
import { unpackBundledChromium, unpackedChromiumDir } from "./chromium-unpack.ts";

const env = { ...process.env, CHROMIUM_PATH: undefined, PATH: "" };
const cacheRoot = mkdtempSync(join(tmpdir(), "chromium-unpack-"));
afterAll(() => rmSync(cacheRoot, { recursive: true, force: true }));

describe("the npm-shipped Chromium", () => {
  it("is what the launcher picks and runs when CHROMIUM_PATH is unset, with its own libraries", async () => {
    const launch = await chromiumLaunchOptions(env);
    expect(launch.source.from).toBe("@sparticuz/chromium");
    expect(launch.options.executablePath).toMatch(/sparticuz-chromium-[^/]+\/chromium$/);
    const server = await chromium.launchServer(launch.options);
    try {
      const pid = server.process().pid;
      expect(readlinkSync(`/proc/${pid}/exe`)).toBe(launch.options.executablePath);
      const libs = readFileSync(`/proc/${pid}/maps`, "utf8");
      const nss = libs.split("\n").find((l) => l.endsWith("/libnss3.so"));
      expect(nss).toContain(join(dirname(launch.options.executablePath), "lib", "libnss3.so"));
      const browser = await chromium.connect(server.wsEndpoint());
      const page = await browser.newPage();
      await page.setContent("<h1>rendered</h1>");
      expect(await page.textContent("h1")).toBe("rendered");
      await browser.close();
    } finally {
      await server.close();
    }
  });

  it("unpacks from the package's own files into one complete folder, even when two processes race", async () => {
    const bin = join(dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..", "bin");
    const [a, b] = await Promise.all([
      unpackBundledChromium(bin, cacheRoot),
      unpackBundledChromium(bin, cacheRoot),
    ]);
    expect(a).toEqual(b);
    const version = JSON.parse(readFileSync(join(bin, "..", "package.json"), "utf8")).version as string;
    expect(a.executable).toBe(
      join(unpackedChromiumDir(version, cacheRoot, process.getuid?.() ?? 0), "chromium"),
    );
    expect(existsSync(join(a.libDir, "libnss3.so"))).toBe(true);
    // The loser's private folder is gone: only the finished one is left.
    expect(readdirSync(cacheRoot)).toEqual([`sparticuz-chromium-${version}-uid${process.getuid?.() ?? 0}`]);
  });
});
