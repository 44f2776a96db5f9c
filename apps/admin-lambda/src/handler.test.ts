import type { Logger } from "@relevance/settings";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
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
): LambdaEvent {
  return {
    version: "2.0",
    routeKey: "ANY /api/v1/admin/{proxy+}",
    rawPath: path,
    rawQueryString: "",
    headers: { host: "admin.example.com", "content-type": "application/json", ...headers },
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      authentication: null,
      authorizer: {},
      domainName: "admin.example.com",
      domainPrefix: "admin",
      http: { method, path, protocol: "HTTP/1.1", sourceIp: "10.0.0.1", userAgent: "test" },
      requestId: "id",
      routeKey: "ANY /api/v1/admin/{proxy+}",
      stage: "$default",
      time: "21/Nov/2026:12:00:00 +0000",
      timeEpoch: 1795348800000,
    },
    body: body === undefined ? null : JSON.stringify(body),
    isBase64Encoded: false,
  };
}

function setup() {
  const db = openDatabase(":memory:");
  return createHandler({
    table: new SqliteSettingsTable(db),
    kv: new SqliteKv(db),
    adminToken: TOKEN,
    log: silent,
    now: () => new Date("2026-11-21T12:00:00.000Z"),
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
});
