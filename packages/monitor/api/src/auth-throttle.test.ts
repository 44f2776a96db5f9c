import type { InMemoryRunStore } from "@monitor/core";
import { AUTH_FAILURES_PER_ADDRESS } from "@monitor/core";
import { AuthThrottle, type ClientAddress } from "@shared/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeApp, openMemoryStore, TOKEN } from "./test-support.ts";

let store: InMemoryRunStore;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const t = await openMemoryStore("svcmon-api-throttle-");
  store = t.store;
  cleanup = t.cleanup;
});

afterAll(async () => {
  await cleanup();
});

/** The connection's address as a runtime reports it: here the `peer` the test passes as the app's env. */
const peer: ClientAddress = (c) => (c.env as { peer?: string } | undefined)?.peer ?? "unknown";

function clock(start = Date.UTC(2025, 0, 31, 12)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

async function get(
  app: ReturnType<typeof makeApp>,
  from: string,
  token: string | undefined,
  headers: Record<string, string> = {},
): Promise<Response> {
  return app.request(
    "/api/system/collectors",
    { headers: { ...headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) } },
    { peer: from },
  );
}

describe("failed bearer authentication is throttled per client address", () => {
  it("after 20 wrong tokens from one address: 429 with Retry-After, even for the right token from there", async () => {
    const c = clock();
    const app = makeApp({ store, now: c.now, clientAddress: peer });
    for (let i = 0; i < AUTH_FAILURES_PER_ADDRESS; i++) {
      expect((await get(app, "198.51.100.1", `guess-${i}-0000000`)).status).toBe(401);
    }
    const refused = await get(app, "198.51.100.1", "guess-last");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toMatchObject({ error: { code: "too_many_requests" } });
    expect((await get(app, "198.51.100.1", TOKEN)).status).toBe(429);

    // Another address with the right token is not slowed by someone else's guessing.
    expect((await get(app, "203.0.113.9", TOKEN)).status).toBe(200);

    // The window ends: the address may try again.
    c.advance(30_000);
    expect((await get(app, "198.51.100.1", TOKEN)).headers.get("retry-after")).toBe("30");
    c.advance(30_000);
    expect((await get(app, "198.51.100.1", TOKEN)).status).toBe(200);
  });

  it("a client that authenticated from an address keeps working while guesses from there are refused", async () => {
    const c = clock();
    const app = makeApp({ store, now: c.now, clientAddress: peer });
    expect((await get(app, "198.51.100.3", TOKEN)).status).toBe(200);
    for (let i = 0; i <= AUTH_FAILURES_PER_ADDRESS; i++) await get(app, "198.51.100.3", `guess-${i}-0000000`);
    expect((await get(app, "198.51.100.3", "guess-again")).status).toBe(429);
    expect((await get(app, "198.51.100.3", TOKEN)).status).toBe(200);
  });

  it("correct tokens and requests without any credential never count", async () => {
    const c = clock();
    const app = makeApp({ store, now: c.now, clientAddress: peer });
    for (let i = 0; i < AUTH_FAILURES_PER_ADDRESS * 2; i++) {
      expect((await get(app, "198.51.100.2", TOKEN)).status).toBe(200);
      expect((await get(app, "198.51.100.2", undefined)).status).toBe(401);
    }
    expect((await get(app, "198.51.100.2", TOKEN)).status).toBe(200);
  });

  it("uses an injected throttle, shared with whoever else holds it", async () => {
    const c = clock();
    const throttle = new AuthThrottle({ maxFailuresPerAddress: 2, now: c.now });
    const app = makeApp({ store, now: c.now, clientAddress: peer, authThrottle: throttle });
    await get(app, "198.51.100.3", "wrong-a");
    await get(app, "198.51.100.3", "wrong-b");
    expect((await get(app, "198.51.100.3", TOKEN)).status).toBe(429);
    expect(throttle.retryAfterSeconds("198.51.100.3", undefined)).toBe(60);
  });
});

describe("the client address behind a proxy", () => {
  it("X-Forwarded-For is ignored unless trustProxy: guesses with made-up addresses still count against the connection", async () => {
    const c = clock();
    const app = makeApp({ store, now: c.now, clientAddress: peer });
    for (let i = 0; i < AUTH_FAILURES_PER_ADDRESS; i++) {
      await get(app, "198.51.100.4", `guess-${i}-0000000`, { "x-forwarded-for": `10.0.0.${i}` });
    }
    expect((await get(app, "198.51.100.4", TOKEN, { "x-forwarded-for": "10.9.9.9" })).status).toBe(429);
  });

  it("with trustProxy, the proxy's X-Forwarded-For names the client", async () => {
    const c = clock();
    const app = makeApp({ store, now: c.now, clientAddress: peer, trustProxy: true });
    for (let i = 0; i < AUTH_FAILURES_PER_ADDRESS; i++) {
      await get(app, "10.0.0.1", `guess-${i}-0000000`, { "x-forwarded-for": "198.51.100.5" });
    }
    expect((await get(app, "10.0.0.1", TOKEN, { "x-forwarded-for": "198.51.100.5" })).status).toBe(429);
    // Another client behind the same proxy is not affected.
    expect((await get(app, "10.0.0.1", TOKEN, { "x-forwarded-for": "198.51.100.6" })).status).toBe(200);
  });
});
