import type { InMemoryRunStore } from "@monitor/core";
import { AUTH_FAILURES_PER_ADDRESS } from "@monitor/core";
import type { ClientAddress } from "@shared/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeApp, openMemoryStore, TOKEN } from "../test-support.ts";

let store: InMemoryRunStore;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-page-login-");
  store = t.store;
  cleanup = t.cleanup;
});

afterAll(async () => {
  await cleanup();
});

const peer: ClientAddress = (c) => (c.env as { peer?: string } | undefined)?.peer ?? "unknown";

function login(
  app: ReturnType<typeof makeApp>,
  token: string,
  opts: { url?: string; headers?: Record<string, string>; from?: string } = {},
): Response | Promise<Response> {
  return app.request(
    opts.url ?? "http://monitor.internal/system/login",
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...opts.headers },
      body: new URLSearchParams({ token }).toString(),
    },
    { peer: opts.from ?? "192.0.2.1" },
  );
}

/** A Set-Cookie header's value and its attributes, in a fixed order (the order carries no meaning). */
function parts(setCookie: string | null): { value: string; attributes: string[] } {
  const [pair = "", ...attributes] = (setCookie ?? "").split("; ");
  return { value: pair.slice(pair.indexOf("=") + 1), attributes: attributes.sort() };
}

describe("the /system session cookie", () => {
  it("over plain HTTP: a signed, expiring value; HttpOnly and SameSite=Strict, not Secure", async () => {
    const res = await login(makeApp({ store }), TOKEN);
    expect(res.status).toBe(303);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie.startsWith("svcmon_session=")).toBe(true);
    const { value, attributes } = parts(cookie);
    // v1.<id>.<expires at, epoch ms>.<HMAC-SHA256, base64> (URL-encoded by Hono's setSignedCookie).
    expect(decodeURIComponent(value)).toMatch(/^v1\.[0-9a-f]{32}\.\d{13}\.[A-Za-z0-9+/]{43}=$/);
    expect(attributes).toEqual(["HttpOnly", "Max-Age=43200", "Path=/", "SameSite=Strict"]);
  });

  it("over HTTPS (the request URL): Secure", async () => {
    const res = await login(makeApp({ store }), TOKEN, { url: "https://monitor.example/system/login" });
    expect(parts(res.headers.get("set-cookie")).attributes).toEqual([
      "HttpOnly",
      "Max-Age=43200",
      "Path=/",
      "SameSite=Strict",
      "Secure",
    ]);
  });

  it("X-Forwarded-Proto: https makes it Secure only when the app trusts its proxy", async () => {
    const headers = { "x-forwarded-proto": "https" };
    const untrusted = await login(makeApp({ store }), TOKEN, { headers });
    expect(untrusted.headers.get("set-cookie")).not.toContain("Secure");
    const trusted = await login(makeApp({ store, trustProxy: true }), TOKEN, { headers });
    expect(parts(trusted.headers.get("set-cookie")).attributes).toContain("Secure");
    const plain = await login(makeApp({ store, trustProxy: true }), TOKEN, {
      headers: { "x-forwarded-proto": "http" },
    });
    expect(plain.headers.get("set-cookie")).not.toContain("Secure");
  });

  it("logout clears the cookie with the same flags", async () => {
    const app = makeApp({ store, trustProxy: true });
    const res = await app.request("http://monitor.internal/system/logout", {
      method: "POST",
      headers: { "x-forwarded-proto": "https" },
    });
    expect(res.headers.get("set-cookie")?.startsWith("svcmon_session=; ")).toBe(true);
    expect(parts(res.headers.get("set-cookie")).attributes).toEqual([
      "HttpOnly",
      "Max-Age=0",
      "Path=/",
      "SameSite=Strict",
      "Secure",
    ]);
  });
});

describe("POST /system/login is throttled", () => {
  it("after 20 wrong tokens from one address: a 429 page saying how long to wait, with Retry-After", async () => {
    let t = Date.UTC(2025, 0, 31, 12);
    const app = makeApp({ store, now: () => t, clientAddress: peer });
    for (let i = 0; i < AUTH_FAILURES_PER_ADDRESS; i++) {
      expect((await login(app, `wrong-${i}-token`)).status).toBe(401);
    }
    const refused = await login(app, TOKEN);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect(await refused.text()).toContain("Wait 60 seconds");

    // The same budget guards the API's bearer token from that address.
    const api = await app.request(
      "/api/system/collectors",
      { headers: { authorization: `Bearer ${TOKEN}` } },
      { peer: "192.0.2.1" },
    );
    expect(api.status).toBe(429);

    // Elsewhere, the right token still logs in; here, after the window.
    expect((await login(app, TOKEN, { from: "192.0.2.2" })).status).toBe(303);
    t += 60_000;
    expect((await login(app, TOKEN)).status).toBe(303);
  });

  it("an empty form is not a guess", async () => {
    const app = makeApp({ store, clientAddress: peer });
    for (let i = 0; i < AUTH_FAILURES_PER_ADDRESS + 5; i++) {
      expect((await login(app, "")).status).toBe(401);
    }
    expect((await login(app, TOKEN)).status).toBe(303);
  });

  it("a login form over the body limit is a 413", async () => {
    const app = makeApp({ store, maxBodyBytes: 64 });
    const res = await login(app, "x".repeat(100));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: "payload_too_large" } });
  });
});
