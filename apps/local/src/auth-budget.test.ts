// One failed-authentication budget per client address across every API npm start serves: guesses
// spread over the search, admin and monitor APIs add up, so an address gets 20 a minute in all,
// not 20 per API. A credential that already worked from the address is not slowed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { startStack } from "./stack.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN } from "./test-support.ts";

const quiet: Logger = { info() {}, warn() {}, error() {} };

describe("npm start's failed-authentication budget", () => {
  it("is one per address across search, admin and monitor APIs", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "auth-budget-"));
    const stack = await startStack(
      configFrom({ PORT: "0", DATA_DIR: dataDir, ADMIN_TOKEN, MONITOR_TOKEN, DEMO: "0", EXPORTER: "0" }),
      quiet,
    );
    try {
      const status = (token: string) =>
        fetch(`${stack.url}/api/system/status`, { headers: { authorization: `Bearer ${token}` } });
      // The monitor token works from here before any guess.
      expect((await status(MONITOR_TOKEN)).status).toBe(200);
      const answers: number[] = [];
      for (let i = 0; i < 10; i++) {
        const search = await fetch(`${stack.url}/api/v1/indexes/products/search`, {
          method: "POST",
          headers: { "x-api-key": `rk_guess${i}-${"s".repeat(30)}`, "content-type": "application/json" },
          body: "{}",
        });
        answers.push(search.status);
      }
      for (let i = 0; i < 10; i++) {
        const admin = await fetch(`${stack.url}/api/v1/admin/accounts`, {
          method: "POST",
          headers: {
            authorization: `Bearer guess${i}-${"a".repeat(30)}`,
            "content-type": "application/json",
          },
          body: '{"name":"x"}',
        });
        answers.push(admin.status);
      }
      expect(answers).toEqual(new Array(20).fill(401));
      // The 21st guess, at a third API, is over the address's one budget.
      const monitor = await status(`guess-${"m".repeat(30)}`);
      expect(monitor.status).toBe(429);
      expect(monitor.headers.get("retry-after")).toMatch(/^\d+$/);
      const login = await fetch(`${stack.url}/system/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: `guess-${"p".repeat(30)}` }).toString(),
      });
      expect(login.status).toBe(429);
      // The token that worked from this address before the block still does.
      expect((await status(MONITOR_TOKEN)).status).toBe(200);
    } finally {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
