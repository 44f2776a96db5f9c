import type { AdminDeps } from "@relevance/admin";
import type { Logger } from "@relevance/settings";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { apiGatewayEvent } from "@shared/http/test-support/api-gateway-event";
import type { LambdaEvent } from "hono/aws-lambda";
import { describe, expect, it } from "vitest";
import { createHandler, depsFromEnv } from "./handler.ts";

const TOKEN = "lambda-admin-token-0123456789";
const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** An API Gateway HTTP API (payload format 2.0) event, as AWS documents it. */
function event(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  sourceIp = "10.0.0.1",
): LambdaEvent {
  return apiGatewayEvent({ method, path, body, headers, sourceIp, routeKey: "ANY /api/v1/admin/{proxy+}" });
}

function setup(overrides: Partial<AdminDeps> = {}) {
  const db = openDatabase(":memory:");
  return createHandler({
    table: new SqliteSettingsTable(db),
    kv: new SqliteKv(db),
    adminToken: TOKEN,
    log: silent,
    now: () => new Date("2026-11-21T12:00:00.000Z"),
    ...overrides,
  });
}

describe("admin Lambda", () => {
  it("serves the admin routes behind the bearer token", async () => {
    const handler = setup();
    const denied = await handler(event("POST", "/api/v1/admin/accounts", { name: "Shop" }));
    expect(denied.statusCode).toBe(401);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const created = await handler(event("POST", "/api/v1/admin/accounts", { name: "Shop" }, auth));
    expect(created.statusCode).toBe(201);
    const { systemAccountId } = JSON.parse(created.body);
    const path = `/api/v1/admin/accounts/${systemAccountId}/indexes/products/relevance-trigger-config`;
    const missing = await handler(event("GET", path, undefined, auth));
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ error: { code: "not_found", message: "index not found" } });
  });

  it("does not serve the customer API", async () => {
    const handler = setup();
    const res = await handler(event("GET", "/api/v1/indexes", undefined, { "x-api-key": "rk_x" }));
    expect(res.statusCode).toBe(404);
  });

  it("names the missing environment and checks ENV", () => {
    expect(() => depsFromEnv({ ENV: "prod" })).toThrow(
      "AdminInternalApi: missing environment ADMIN_TOKEN, CLOUDFLARE_ACCOUNT_ID, KV_NAMESPACE_ID, CLOUDFLARE_API_TOKEN",
    );
    const env = {
      ENV: "qa",
      ADMIN_TOKEN: TOKEN,
      CLOUDFLARE_ACCOUNT_ID: "a",
      KV_NAMESPACE_ID: "n",
      CLOUDFLARE_API_TOKEN: "t",
    };
    expect(() => depsFromEnv(env)).toThrow(/ENV must be one of/);
    const deps = depsFromEnv({ ...env, ENV: "staging" });
    expect(deps.adminToken).toBe(TOKEN);
    expect(Reflect.get(deps.table, "tableName")).toBe("staging-EcomIndexSettingsTable");
  });

  it("reads the body limits from MAX_JSON_BODY_BYTES and MAX_DOCUMENTS_BODY_BYTES, refusing a bad value", () => {
    const env = {
      ENV: "prod",
      ADMIN_TOKEN: TOKEN,
      CLOUDFLARE_ACCOUNT_ID: "a",
      KV_NAMESPACE_ID: "n",
      CLOUDFLARE_API_TOKEN: "t",
    };
    expect(depsFromEnv(env).limits).toEqual({});
    expect(
      depsFromEnv({ ...env, MAX_JSON_BODY_BYTES: "4096", MAX_DOCUMENTS_BODY_BYTES: "8192" }).limits,
    ).toEqual({
      jsonBodyBytes: 4096,
      documentsBodyBytes: 8192,
    });
    expect(() => depsFromEnv({ ...env, MAX_JSON_BODY_BYTES: "1 MB" })).toThrow(/MAX_JSON_BODY_BYTES/);
  });

  it("answers a body over the JSON limit with a JSON 413 and creates nothing", async () => {
    const handler = setup({ limits: { jsonBodyBytes: 100 } });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const big = await handler(event("POST", "/api/v1/admin/accounts", { name: "x".repeat(200) }, auth));
    expect(big.statusCode).toBe(413);
    expect(JSON.parse(big.body).error.details).toEqual([
      { path: "body", message: "must be at most 100 bytes" },
    ]);
    const ok = await handler(event("POST", "/api/v1/admin/accounts", { name: "Shop" }, auth));
    expect(ok.statusCode).toBe(201);
  });

  it("counts failed tokens per API Gateway source IP: 20 wrong ones get that IP a 429, another IP still gets in", async () => {
    const handler = setup();
    const wrong = { authorization: "Bearer wrong-token-0123456789", "x-real-ip": "spoofed" };
    for (let i = 0; i < 20; i++) {
      // A header the caller sets does not change the address counted.
      const res = await handler(
        event(
          "POST",
          "/api/v1/admin/accounts",
          { name: "x" },
          { ...wrong, "x-real-ip": `spoofed-${i}` },
          "203.0.113.5",
        ),
      );
      expect(res.statusCode).toBe(401);
    }
    const right = { authorization: `Bearer ${TOKEN}` };
    const refused = await handler(
      event("POST", "/api/v1/admin/accounts", { name: "x" }, right, "203.0.113.5"),
    );
    expect(refused.statusCode).toBe(429);
    expect(refused.headers?.["retry-after"]).toBe("60");
    const other = await handler(
      event("POST", "/api/v1/admin/accounts", { name: "Shop" }, right, "198.51.100.9"),
    );
    expect(other.statusCode).toBe(201);
  });

  it("answers a wrong method with a JSON 405 and Allow", async () => {
    const handler = setup();
    const res = await handler(
      event("GET", "/api/v1/admin/accounts", undefined, { authorization: `Bearer ${TOKEN}` }),
    );
    expect(res.statusCode).toBe(405);
    expect(res.headers?.allow).toBe("POST");
    expect(JSON.parse(res.body).error.code).toBe("method_not_allowed");
  });
});
