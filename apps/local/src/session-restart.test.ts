// npm start's page sessions outlive the process: the session cookie is signed with the key kept in
// DATA_DIR/session-key, so a stack started again on the same data folder (a restart, or the next
// process on it) accepts the cookie the first one issued. One stack at a time (chDB: one process
// per data folder).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { startStack } from "./stack.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN } from "./test-support.ts";

const quiet: Logger = { info() {}, warn() {}, error() {} };

describe("npm start's /system session", () => {
  it("a session from before a restart on the same DATA_DIR still reads the page's two endpoints; logout clears it", async () => {
    const env = {
      PORT: "0",
      DATA_DIR: mkdtempSync(join(tmpdir(), "session-restart-")),
      ADMIN_TOKEN,
      MONITOR_TOKEN,
      DEMO: "0",
      EXPORTER: "0",
    };
    const first = await startStack(configFrom(env), quiet);
    let cookie: string;
    try {
      const login = await fetch(`${first.url}/system/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: MONITOR_TOKEN }).toString(),
        redirect: "manual",
      });
      expect(login.status).toBe(303);
      cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
      expect(cookie).toMatch(/^svcmon_session=v1\./);
    } finally {
      await first.stop();
    }

    const second = await startStack(configFrom(env), quiet);
    try {
      const [status, failures] = await Promise.all([
        fetch(`${second.url}/api/system/status`, { headers: { cookie } }),
        fetch(`${second.url}/api/system/collectors/failures`, { headers: { cookie } }),
      ]);
      expect([status.status, failures.status]).toEqual([200, 200]);
      const page = await fetch(`${second.url}/system`, { headers: { cookie }, redirect: "manual" });
      expect(page.status).toBe(200);
      const out = await fetch(`${second.url}/system/logout`, {
        method: "POST",
        headers: { cookie },
        redirect: "manual",
      });
      expect(out.headers.get("set-cookie")).toMatch(/^svcmon_session=; Max-Age=0;/);
    } finally {
      await second.stop();
      rmSync(env.DATA_DIR, { recursive: true, force: true });
    }
  }, 120_000);
});
