import type { InMemoryRunStore } from "@monitor/core";
/**
 * The page's session is a signed cookie, not server memory: two app instances given the same keys
 * (two Lambda instances behind one function URL) each accept a session the other issued.
 */

import { InMemoryEndedSessionStore } from "@monitor/core";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeApp, openMemoryStore, TOKEN } from "../test-support.ts";
import { SESSION_TTL_MS } from "./sessions.ts";
import { generateSessionKey, parseSessionKeys, SignedPageSessions } from "./signed-sessions.ts";

let store: InMemoryRunStore;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-page-sessions-");
  store = t.store;
  cleanup = t.cleanup;
});

afterAll(async () => {
  await cleanup();
});

const KEY_A = "a".repeat(16) + generateSessionKey();
const KEY_B = "b".repeat(16) + generateSessionKey();
const START = Date.UTC(2026, 0, 15, 9);

/** One browser: keeps the session cookie it is given and sends it back, whichever instance answers. */
class Browser {
  cookie: string | undefined;

  async send(app: Hono, path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookie !== undefined) headers.set("cookie", this.cookie);
    const res = await app.request(`http://monitor.internal${path}`, { ...init, headers });
    const set = res.headers.get("set-cookie");
    if (set !== null) {
      const pair = set.split(";")[0] as string;
      this.cookie = pair.endsWith("=") ? undefined : pair;
    }
    return res;
  }

  login(app: Hono): Promise<Response> {
    return this.send(app, "/system/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: TOKEN }).toString(),
    });
  }
}

/** What the page does every 10 s: both endpoints at once. */
async function pagePoll(browser: Browser, a: Hono, b: Hono): Promise<number[]> {
  const [status, failures] = await Promise.all([
    browser.send(a, "/api/system/status"),
    browser.send(b, "/api/system/collectors/failures"),
  ]);
  return [status.status, failures.status];
}

describe("a page session on two instances", () => {
  it("logged in on one instance, the page and both of its endpoints answer on the other", async () => {
    const one = makeApp({ store, sessionKeys: [KEY_A] });
    const two = makeApp({ store, sessionKeys: [KEY_A] });
    const browser = new Browser();
    expect((await browser.login(one)).status).toBe(303);
    expect(browser.cookie).toBeDefined();
    expect((await browser.send(two, "/system")).status).toBe(200);
    expect(await pagePoll(browser, two, one)).toEqual([200, 200]);
    expect(await pagePoll(browser, one, two)).toEqual([200, 200]);
  });

  it("an instance with other keys refuses the session (the page redirects to the login form)", async () => {
    const one = makeApp({ store, sessionKeys: [KEY_A] });
    const stranger = makeApp({ store, sessionKeys: [KEY_B] });
    const browser = new Browser();
    await browser.login(one);
    const page = await browser.send(stranger, "/system");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/system/login");
    expect((await browser.send(stranger, "/api/system/status")).status).toBe(401);
  });

  it("logout on one instance clears the cookie; the browser is logged out on both", async () => {
    const one = makeApp({ store, sessionKeys: [KEY_A] });
    const two = makeApp({ store, sessionKeys: [KEY_A] });
    const browser = new Browser();
    await browser.login(one);
    const out = await browser.send(two, "/system/logout", { method: "POST" });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/^svcmon_session=; Max-Age=0;/);
    expect(browser.cookie).toBeUndefined();
    expect(await pagePoll(browser, one, two)).toEqual([401, 401]);
    expect((await browser.send(one, "/system")).status).toBe(303);
  });

  it("after logout on one instance, a copy of the cookie taken before is refused on every instance sharing the ended-session store", async () => {
    const ended = new InMemoryEndedSessionStore();
    const one = makeApp({ store, sessionKeys: [KEY_A], endedSessions: ended });
    const two = makeApp({ store, sessionKeys: [KEY_A], endedSessions: ended });
    const browser = new Browser();
    await browser.login(one);
    const copy = new Browser();
    copy.cookie = browser.cookie;
    // Another session of the same user, in another browser, is not touched by this logout.
    const other = new Browser();
    await other.login(two);
    expect(await pagePoll(copy, one, two)).toEqual([200, 200]);
    expect((await browser.send(two, "/system/logout", { method: "POST" })).status).toBe(303);
    expect(await pagePoll(copy, one, two)).toEqual([401, 401]);
    const page = await copy.send(one, "/system");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/system/login");
    expect(await pagePoll(other, one, two)).toEqual([200, 200]);
  });

  it("a new monitor token refuses every cookie issued under the old one (page and status), with the same keys", async () => {
    const before = makeApp({ store, sessionKeys: [KEY_A], token: TOKEN });
    const rotated = makeApp({ store, sessionKeys: [KEY_A], token: `${TOKEN}-rotated` });
    const browser = new Browser();
    await browser.login(before);
    expect(await pagePoll(browser, before, before)).toEqual([200, 200]);
    expect(await pagePoll(browser, rotated, rotated)).toEqual([401, 401]);
    const page = await browser.send(rotated, "/system");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/system/login");
  });

  it("expires 12 hours after login on every instance (the expiry is in the signed payload)", async () => {
    let t = START;
    const now = () => t;
    const one = makeApp({ store, sessionKeys: [KEY_A], now });
    const two = makeApp({ store, sessionKeys: [KEY_A], now });
    const browser = new Browser();
    await browser.login(one);
    t = START + SESSION_TTL_MS - 1;
    expect(await pagePoll(browser, two, one)).toEqual([200, 200]);
    t = START + SESSION_TTL_MS;
    expect(await pagePoll(browser, two, one)).toEqual([401, 401]);
    expect((await browser.send(two, "/system")).status).toBe(303);
  });

  it("a rotated key still accepts old cookies while it is listed, and not after it is dropped", async () => {
    const before = makeApp({ store, sessionKeys: [KEY_A] });
    const rotated = makeApp({ store, sessionKeys: [KEY_B, KEY_A] });
    const dropped = makeApp({ store, sessionKeys: [KEY_B] });
    const old = new Browser();
    await old.login(before);
    expect(await pagePoll(old, rotated, rotated)).toEqual([200, 200]);
    expect(await pagePoll(old, dropped, dropped)).toEqual([401, 401]);

    // New sessions are signed with the first key: the instance that only knows the old key refuses them.
    const fresh = new Browser();
    await fresh.login(rotated);
    expect(await pagePoll(fresh, dropped, rotated)).toEqual([200, 200]);
    expect((await fresh.send(before, "/api/system/status")).status).toBe(401);
  });

  it("a tampered payload (a later expiry, another id) is refused", async () => {
    const t = START;
    const app = makeApp({ store, sessionKeys: [KEY_A], now: () => t });
    const browser = new Browser();
    await browser.login(app);
    const cookie = browser.cookie as string;
    const value = decodeURIComponent(cookie.slice(cookie.indexOf("=") + 1));
    const [v, id, exp, sig] = value.split(".");
    const later = `${v}.${id}.${Number(exp) + SESSION_TTL_MS}.${sig}`;
    browser.cookie = `svcmon_session=${encodeURIComponent(later)}`;
    expect((await browser.send(app, "/api/system/status")).status).toBe(401);
    const otherId = `${v}.${"0".repeat(32)}.${exp}.${sig}`;
    browser.cookie = `svcmon_session=${encodeURIComponent(otherId)}`;
    expect((await browser.send(app, "/api/system/status")).status).toBe(401);
  });

  it("a session cookie never opens the write routes (they still need the bearer token)", async () => {
    const app = makeApp({ store, sessionKeys: [KEY_A] });
    const browser = new Browser();
    await browser.login(app);
    const put = await browser.send(app, "/api/system/collectors/config_ec2", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ expected_interval_minutes: 60, freshness_threshold_minutes: 120 }),
    });
    expect(put.status).toBe(401);
  });
});

describe("MONITOR_SESSION_KEYS", () => {
  it("is a comma-separated list: blanks ignored, order kept (the first signs)", () => {
    expect(parseSessionKeys(` ${KEY_B} , ${KEY_A},`)).toEqual({ ok: true, value: [KEY_B, KEY_A] });
  });

  it("refuses an empty list, a short key and a repeated key, naming each", () => {
    expect(parseSessionKeys(" , ")).toEqual({
      ok: false,
      errors: [{ path: "MONITOR_SESSION_KEYS", message: "lists no key" }],
    });
    const bad = parseSessionKeys(`short,${KEY_A},${KEY_A}`);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors.map((e) => e.path)).toEqual([
      "MONITOR_SESSION_KEYS[0]",
      "MONITOR_SESSION_KEYS[2]",
    ]);
  });

  it("a generated key is long enough", () => {
    expect(generateSessionKey().length).toBeGreaterThanOrEqual(43);
    expect(() => new SignedPageSessions(["too-short"])).toThrow(/at least 32/);
    expect(() => new SignedPageSessions([])).toThrow(/no session key/);
  });
});
