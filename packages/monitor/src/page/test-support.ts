/**
 * Debian's Chromium for the /system browser test and the page benchmark: the same binary, headless,
 * with the flags that keep it off the network (no updates, sync or background requests).
 */
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/lib/chromium/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
