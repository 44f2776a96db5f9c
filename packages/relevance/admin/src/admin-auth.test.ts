import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, makeHarness } from "./test-support/harness.ts";

/** The deployment's client address, stood in for by a test header (as in auth-throttle.test.ts). */
const peer = (c: { req: { header(name: string): string | undefined } }) =>
  c.req.header("x-test-peer") ?? "unknown";
const create = ["POST", "/api/v1/admin/accounts", { name: "x" }] as const;

describe("admin bearer token (Hono's bearerAuth with the API's errors and throttle)", () => {
  it("answers a malformed Authorization header 401 with the API's JSON error, not bearerAuth's 400 or plain text", async () => {
    const h = makeHarness();
    for (const authorization of ["Basic abc", "Bearer", "Bearer two words", `Token ${ADMIN_TOKEN}`]) {
      const res = await h.call(...create, { authorization });
      expect(res.status, authorization).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
      expect(res.headers.get("www-authenticate")).toBeNull();
    }
  });

  it("accepts the token after any number of spaces and in any case of the scheme", async () => {
    const h = makeHarness();
    for (const authorization of [`Bearer   ${ADMIN_TOKEN}`, `BEARER ${ADMIN_TOKEN}`]) {
      expect((await h.call(...create, { authorization })).status, authorization).toBe(201);
    }
  });

  it("counts malformed and wrong headers against the address, but not a request without one", async () => {
    const h = makeHarness({ clientAddress: peer });
    for (let i = 0; i < 25; i++) {
      expect((await h.call(...create, { "x-test-peer": "192.0.2.1" })).status).toBe(401);
    }
    for (let i = 0; i < 20; i++) {
      const authorization = i % 2 === 0 ? "Basic abc" : "Bearer wrong-token-0123456789";
      expect((await h.call(...create, { "x-test-peer": "192.0.2.1", authorization })).status).toBe(401);
    }
    const refused = await h.call(...create, { "x-test-peer": "192.0.2.1", authorization: "Basic abc" });
    expect(refused.status).toBe(429);
  });
});
