import { createHandler } from "@apps/admin-lambda";
import { withAdminTokenHeader } from "@relevance/admin/admin-token-header";
import type { Logger } from "@relevance/settings";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { apiGatewayEvent } from "@shared/http/test-support/api-gateway-event";
import type { LambdaEvent } from "hono/aws-lambda";
import { describe, expect, it } from "vitest";

const TOKEN = "lambda-admin-token-0123456789";
const SIGV4 =
  "AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20261121/eu-west-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc";
const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** A request as the IAM-authorized HTTP API hands it to the function (payload format 2.0). */
function event(headers: Record<string, string>): LambdaEvent {
  return apiGatewayEvent({
    method: "POST",
    path: "/api/v1/admin/accounts",
    body: { name: "Shop" },
    headers,
    routeKey: "ANY /api/v1/admin/{proxy+}",
  });
}

function adminBehindIam() {
  const db = openDatabase(":memory:");
  const handler = createHandler({
    table: new SqliteSettingsTable(db),
    kv: new SqliteKv(db),
    adminToken: TOKEN,
    log: silent,
    now: () => new Date("2026-11-21T12:00:00.000Z"),
  });
  return (e: LambdaEvent) => handler(withAdminTokenHeader(e));
}

describe("the admin app behind the IAM-authorized API", () => {
  it("takes the admin token from X-Admin-Token while Authorization carries the SigV4 signature", async () => {
    const res = await adminBehindIam()(event({ authorization: SIGV4, "x-admin-token": TOKEN }));
    expect(res.statusCode).toBe(201);
  });

  it("refuses a signed request without the admin token, or with a wrong one", async () => {
    const call = adminBehindIam();
    expect((await call(event({ authorization: SIGV4 }))).statusCode).toBe(401);
    expect(
      (await call(event({ authorization: SIGV4, "X-Admin-Token": "wrong-token-0123456789" }))).statusCode,
    ).toBe(401);
  });

  it("never hands the signature to the app as a bearer token", () => {
    const out = withAdminTokenHeader({ headers: { Authorization: `Bearer ${TOKEN}`, accept: "*/*" } });
    expect(out.headers).toEqual({ accept: "*/*" });
  });
});
