// npm start's page sessions outlive the process, and end for good: the session cookie is signed
// with the key kept in DATA_DIR/session-key bound to the monitor token, so a stack started again on
// the same data folder (a restart, or the next process on it) accepts the cookie the first one
// issued; a logout is recorded in DATA_DIR/alerts.sqlite, so a copy of the cookie stays refused
// after a restart; a restart with another MONITOR_TOKEN refuses every earlier cookie. One stack at
// a time (chDB: one process per data folder).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN, MONITOR_TOKEN } from "./test-support.ts";

const quiet: Logger = { info() {}, warn() {}, error() {} };

async function login(url: string, token = MONITOR_TOKEN): Promise<string> {
  const res = await fetch(`${url}/system/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }).toString(),
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  expect(cookie).toMatch(/^svcmon_session=v1\./);
  return cookie;
}

/** The status JSON, the page's failures read and the page itself, as a browser with `cookie` gets them. */
async function reads(url: string, cookie: string): Promise<number[]> {
  const [status, failures, page] = await Promise.all([
    fetch(`${url}/api/system/status`, { headers: { cookie } }),
    fetch(`${url}/api/system/collectors/failures`, { headers: { cookie } }),
    fetch(`${url}/system`, { headers: { cookie }, redirect: "manual" }),
  ]);
  return [status.status, failures.status, page.status];
}

const SIGNED_IN = [200, 200, 200];
// 401 from the APIs; the page sends the browser to its login form (303).
const SIGNED_OUT = [401, 401, 303];

describe("npm start's /system session", () => {
  it("survives a restart; a logout holds after a restart; a new MONITOR_TOKEN refuses every earlier cookie", async () => {
    const env = {
      PORT: "0",
      DATA_DIR: mkdtempSync(join(tmpdir(), "session-restart-")),
      ADMIN_TOKEN,
      MONITOR_TOKEN,
      DEMO: "0",
      EXPORTER: "0",
    };
    const run = async <T>(over: Record<string, string>, body: (s: Stack) => Promise<T>): Promise<T> => {
      const stack = await startStack(configFrom({ ...env, ...over }), quiet);
      try {
        return await body(stack);
      } finally {
        await stack.stop();
      }
    };
    try {
      const [loggedOut, kept] = await run({}, async (s) => [await login(s.url), await login(s.url)]);

      await run({}, async (s) => {
        expect(await reads(s.url, loggedOut)).toEqual(SIGNED_IN);
        const out = await fetch(`${s.url}/system/logout`, {
          method: "POST",
          headers: { cookie: loggedOut },
          redirect: "manual",
        });
        expect(out.headers.get("set-cookie")).toMatch(/^svcmon_session=; Max-Age=0;/);
        // A copy of the cookie taken before the logout: refused, while the other session goes on.
        expect(await reads(s.url, loggedOut)).toEqual(SIGNED_OUT);
        expect(await reads(s.url, kept)).toEqual(SIGNED_IN);
      });

      await run({}, async (s) => {
        expect(await reads(s.url, loggedOut)).toEqual(SIGNED_OUT);
        expect(await reads(s.url, kept)).toEqual(SIGNED_IN);
      });

      const rotated = `${MONITOR_TOKEN}-rotated`;
      await run({ MONITOR_TOKEN: rotated }, async (s) => {
        expect(await reads(s.url, kept)).toEqual(SIGNED_OUT);
        expect(await reads(s.url, await login(s.url, rotated))).toEqual(SIGNED_IN);
      });
    } finally {
      rmSync(env.DATA_DIR, { recursive: true, force: true });
    }
  }, 180_000);
});
