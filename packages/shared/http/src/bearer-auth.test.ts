// The one throttled bearer check: the right token passes, a wrong or malformed one answers 401 and
// counts, a missing header answers 401 without counting, and past the budget even the right token
// is refused from a new address but not from one where it already worked.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { throttledBearerAuth } from "./bearer-auth.ts";
import { onError } from "./errors.ts";
import { parseJsonBody } from "./json-body.ts";
import { AuthThrottle } from "./throttle.ts";

const TOKEN = "the-right-token-0123";
const silent = { info() {}, warn() {}, error() {}, debug() {} };

function app(maxFailures: number) {
  const throttle = new AuthThrottle({ maxFailuresPerAddress: maxFailures, now: () => 0 });
  const a = new Hono();
  a.onError(onError(silent as never));
  a.use(
    "*",
    throttledBearerAuth({
      token: TOKEN,
      throttle,
      address: (c) => c.req.header("x-address") ?? "unknown",
      message: "a token is required",
      maxChars: 64,
    }),
  );
  a.get("/", (c) => c.json({ ok: true }));
  const call = async (authorization: string | undefined, address = "1.1.1.1") => {
    const headers: Record<string, string> = { "x-address": address };
    if (authorization !== undefined) headers.authorization = authorization;
    const res = await a.request("/", { headers });
    return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
  };
  return call;
}

describe("throttledBearerAuth", () => {
  it("lets the right token through and answers 401 with the API's error body otherwise", async () => {
    const call = app(20);
    expect((await call(`Bearer ${TOKEN}`)).status).toBe(200);
    for (const header of [undefined, "", "Bearer wrong", "Basic abc", `Bearer ${"x".repeat(65)}`]) {
      const res = await call(header);
      expect(res.status, String(header)).toBe(401);
      expect(res.body.error).toEqual({ code: "unauthorized", message: "a token is required" });
    }
  });

  it("counts wrong and empty credentials but not a missing header; the token that worked still works", async () => {
    const call = app(2);
    expect((await call(`Bearer ${TOKEN}`, "1.1.1.1")).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await call(undefined, "2.2.2.2")).status).toBe(401);
    expect((await call(`Bearer ${TOKEN}`, "2.2.2.2")).status).toBe(200);
    expect((await call("Bearer wrong", "1.1.1.1")).status).toBe(401);
    expect((await call("", "1.1.1.1")).status).toBe(401);
    expect((await call("Bearer wrong", "1.1.1.1")).status).toBe(429);
    expect((await call(`Bearer ${TOKEN}`, "1.1.1.1")).status).toBe(200);
  });
});

describe("parseJsonBody", () => {
  it("parses JSON and answers invalid_json with the route's status otherwise", () => {
    expect(parseJsonBody('{"a":1}')).toEqual({ a: 1 });
    expect(() => parseJsonBody("{")).toThrow(expect.objectContaining({ status: 400, code: "invalid_json" }));
    expect(() => parseJsonBody("", 422)).toThrow(
      expect.objectContaining({ status: 422, code: "invalid_json" }),
    );
  });
});
