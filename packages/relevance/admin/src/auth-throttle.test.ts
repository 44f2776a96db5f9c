import { AuthThrottle } from "@shared/http";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, makeHarness } from "./test-support/harness.ts";

/** A clock the test moves by hand: the throttle's window is read from the harness's `now`. */
function clock() {
  let ms = Date.parse("2026-11-21T12:00:00.000Z");
  return { now: () => new Date(ms), advance: (by: number) => (ms += by) };
}

/** The deployment's client address (Node's TCP peer, Lambda's sourceIp), stood in for by a test header. */
const peer = (c: { req: { header(name: string): string | undefined } }) =>
  c.req.header("x-test-peer") ?? "unknown";
const from = (address: string, headers: Record<string, string> = {}) => ({
  "x-test-peer": address,
  ...headers,
});

describe("failed-authentication throttle", () => {
  it("20 wrong admin tokens from one address: the next request from it gets 429 with Retry-After, even with the right token; another address is not slowed", async () => {
    const time = clock();
    const h = makeHarness({ now: time.now, clientAddress: peer });
    const empty = h.dump();
    const wrong = from("203.0.113.7", { authorization: "Bearer wrong-token-0123456789" });
    for (let i = 0; i < 20; i++) {
      const res = await h.call("POST", "/api/v1/admin/accounts", { name: "x" }, wrong);
      expect(res.status, `attempt ${i + 1}`).toBe(401);
    }
    const refused = await h.call("POST", "/api/v1/admin/accounts", { name: "x" }, wrong);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.body.error.code).toBe("too_many_requests");

    const right = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const sameAddress = await h.call(
      "POST",
      "/api/v1/admin/accounts",
      { name: "x" },
      from("203.0.113.7", right),
    );
    expect(sameAddress.status).toBe(429);
    expect(h.dump()).toEqual(empty);

    const other = await h.call(
      "POST",
      "/api/v1/admin/accounts",
      { name: "Shop" },
      from("198.51.100.1", right),
    );
    expect(other.status).toBe(201);

    // Retry-After counts down with the window, and the window's end lets the address in again.
    time.advance(45_000);
    const later = await h.call(
      "GET",
      "/api/v1/admin/accounts/x/indexes/y/relevance-trigger-config",
      undefined,
      wrong,
    );
    expect(later.headers.get("retry-after")).toBe("15");
    time.advance(15_000);
    const after = await h.call(
      "POST",
      "/api/v1/admin/accounts",
      { name: "Again" },
      from("203.0.113.7", right),
    );
    expect(after.status).toBe(201);
  });

  it("a missing credential is no guess: always 401, never counted", async () => {
    const h = makeHarness({ clientAddress: peer });
    for (let i = 0; i < 40; i++) {
      expect((await h.call("GET", "/api/v1/indexes", undefined, from("192.0.2.9"))).status).toBe(401);
    }
    const { apiKey } = await h.account();
    expect(
      (await h.call("GET", "/api/v1/indexes", undefined, from("192.0.2.9", { "x-api-key": apiKey }))).status,
    ).toBe(200);
  });

  it("a key that worked from an address keeps working there while guesses from it are refused", async () => {
    const h = makeHarness({ clientAddress: peer });
    const { apiKey } = await h.account();
    const mine = from("192.0.2.10", { "x-api-key": apiKey });
    expect((await h.call("GET", "/api/v1/indexes", undefined, mine)).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      await h.call("GET", "/api/v1/indexes", undefined, from("192.0.2.10", { "x-api-key": `rk_guess_${i}` }));
    }
    expect(
      (await h.call("GET", "/api/v1/indexes", undefined, from("192.0.2.10", { "x-api-key": "rk_guess_x" })))
        .status,
    ).toBe(429);
    expect((await h.call("GET", "/api/v1/indexes", undefined, mine)).status).toBe(200);
  });

  it("20 wrong API keys from one address: 429 for that address; the right key from another address answers 200", async () => {
    const h = makeHarness({ clientAddress: peer });
    const { apiKey } = await h.account();
    const before = h.dump();
    for (let i = 0; i < 20; i++) {
      const key = `rk_${String(i).padStart(43, "x")}`;
      const res = await h.call(
        "GET",
        "/api/v1/indexes",
        undefined,
        from("203.0.113.8", { "x-api-key": key }),
      );
      expect(res.status, `attempt ${i + 1}`).toBe(401);
    }
    const refused = await h.call(
      "POST",
      "/api/v1/indexes",
      { name: "products" },
      from("203.0.113.8", { "x-api-key": apiKey }),
    );
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(h.dump()).toEqual(before);

    const ok = await h.call(
      "GET",
      "/api/v1/indexes",
      undefined,
      from("198.51.100.2", { "x-api-key": apiKey }),
    );
    expect(ok.status).toBe(200);
  });

  it("guessing one key prefix from many addresses is refused after 50 tries, while other keys still work", async () => {
    const h = makeHarness({ clientAddress: peer });
    const { apiKey } = await h.account();
    for (let i = 0; i < 50; i++) {
      const res = await h.call(
        "GET",
        "/api/v1/indexes",
        undefined,
        from(`10.0.${Math.floor(i / 200)}.${i % 200}`, { "x-api-key": `rk_guess${i}` }),
      );
      expect(res.status).toBe(401);
    }
    const refused = await h.call(
      "GET",
      "/api/v1/indexes",
      undefined,
      from("10.9.9.9", { "x-api-key": "rk_guessZ" }),
    );
    expect(refused.status).toBe(429);
    expect(
      (await h.call("GET", "/api/v1/indexes", undefined, from("10.9.9.9", { "x-api-key": apiKey }))).status,
    ).toBe(200);
  });

  it("one budget for both APIs: wrong admin tokens and wrong API keys from one address add up", async () => {
    const h = makeHarness({ clientAddress: peer });
    for (let i = 0; i < 10; i++) {
      await h.call("GET", "/api/v1/indexes", undefined, from("192.0.2.50", { "x-api-key": `rk_k${i}` }));
      await h.call(
        "POST",
        "/api/v1/admin/accounts",
        { name: "x" },
        from("192.0.2.50", { authorization: `Bearer t${i}` }),
      );
    }
    expect(
      (await h.call("GET", "/api/v1/indexes", undefined, from("192.0.2.50", { "x-api-key": "rk_again" })))
        .status,
    ).toBe(429);
  });

  it("uses the client address the deployment supplies, and a throttle passed in", async () => {
    const throttle = new AuthThrottle({ maxFailuresPerAddress: 2, now: () => 0 });
    const h = makeHarness({
      authThrottle: throttle,
      clientAddress: (c) => c.req.header("x-test-peer") ?? "none",
    });
    for (let i = 0; i < 2; i++) {
      // A header the deployment does not trust names no address.
      await h.call("GET", "/api/v1/indexes", undefined, {
        "x-test-peer": "a",
        "x-real-ip": String(i),
        "x-api-key": `rk_${i}`,
      });
    }
    expect(
      (await h.call("GET", "/api/v1/indexes", undefined, { "x-test-peer": "a", "x-api-key": "rk_z" })).status,
    ).toBe(429);
    expect(
      (await h.call("GET", "/api/v1/indexes", undefined, { "x-test-peer": "b", "x-api-key": "rk_z" })).status,
    ).toBe(401);
    expect(throttle.size).toBeGreaterThan(0);
  });
});
