import type { Page } from "playwright-core";

/**
 * Signs in as a person does: the token form of `/system/login`, then waits for the page it leads to
 * (`/system`). Shared by the browser suites and the monitor benchmark.
 */
export async function signInToSystem(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/system/login`);
  await page.getByLabel("Monitor token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/system`);
}
