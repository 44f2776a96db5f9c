// The admin API client against a LOCAL DOUBLE OF API GATEWAY IAM AUTH (iam-gateway-double.ts), which
// verifies each SigV4 signature with @smithy/signature-v4 itself and hands accepted requests to the
// real admin app (SQLite stores), as the deployed `{env}-AdminInternalApi` entry does.
import { createAdminApp } from "@relevance/admin";
import { ACCOUNT_SK, type Logger } from "@relevance/settings";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserError } from "../io.ts";
import { adminAuthFor, bearerAuth, sigV4Auth } from "./admin-auth.ts";
import { AdminApi } from "./http.ts";
import { IamGatewayDouble } from "./iam-gateway-double.ts";

const REGION = "eu-west-1";
const TOKEN = "admin-token-behind-iam-0123456789";
const IDENTITY = {
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
};
const ACCOUNT = "acct_0123456789ab";
const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

let gateway: IamGatewayDouble;
let table: SqliteSettingsTable;

beforeAll(async () => {
  const db = openDatabase(":memory:");
  table = new SqliteSettingsTable(db);
  const app = createAdminApp({
    table,
    kv: new SqliteKv(db),
    adminToken: TOKEN,
    log: silent,
    now: () => new Date(),
  });
  const at = new Date().toISOString();
  await table.put(ACCOUNT, ACCOUNT_SK, { name: "Shop", created_at: at }, { mustNotExist: true });
  await table.put(
    ACCOUNT,
    "INDEX#products",
    { type: "index", created_at: at, updated_at: at },
    { mustNotExist: true },
  );
  gateway = await IamGatewayDouble.start({
    region: REGION,
    identity: IDENTITY,
    upstream: (r) => app.fetch(r),
  });
});
afterAll(async () => {
  await gateway.close();
});

const signed = (over: { region?: string; secret?: string; token?: string; now?: () => Date } = {}) =>
  new AdminApi(
    gateway.url,
    sigV4Auth({
      token: over.token ?? TOKEN,
      region: over.region ?? REGION,
      credentials: {
        accessKeyId: IDENTITY.accessKeyId,
        secretAccessKey: over.secret ?? IDENTITY.secretAccessKey,
      },
      ...(over.now === undefined ? {} : { now: over.now }),
    }),
  );

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("admin API calls SigV4-signed for execute-api, against a local double of API Gateway IAM auth", () => {
  it("a signed GET and a signed PUT (body, If-Match) pass the gateway and reach the app with the admin token", async () => {
    const api = signed();
    const before = await api.get(ACCOUNT, "products");
    expect(before).toMatchObject({ config: null });
    const put = await api.put(
      ACCOUNT,
      "products",
      { modelId: `${ACCOUNT}:products:v1`, titleField: "title", tagsField: null },
      before.version,
    );
    expect(put).toMatchObject({ ok: true, version: before.version + 1 });
    expect((await api.get(ACCOUNT, "products")).config).toEqual({
      modelId: `${ACCOUNT}:products:v1`,
      titleField: "title",
      tagsField: null,
    });
    const [get, write] = gateway.accepted;
    expect(get).toMatchObject({
      method: "GET",
      path: `/api/v1/admin/accounts/${ACCOUNT}/indexes/products/relevance-trigger-config`,
    });
    // The token and the body's hash are signed: neither can be swapped in a captured request.
    expect(write?.signedHeaders).toEqual(
      expect.arrayContaining([
        "host",
        "if-match",
        "content-type",
        "x-admin-token",
        "x-amz-content-sha256",
        "x-amz-date",
      ]),
    );
  });

  it("a wrong secret key is refused by the gateway, and the CLI says what the identity needs", async () => {
    const message = await refusal(
      signed({ secret: "not-the-secret-key-0000000000000000000000" }).get(ACCOUNT, "products"),
    );
    expect(gateway.refused.at(-1)).toBe("signature");
    expect(message).toMatch(
      /^the API gateway refused the signed request \(403: The request signature we calculated does not match/,
    );
    expect(message).toContain("execute-api:Invoke");
  });

  it("a request signed for another region is refused", async () => {
    await refusal(signed({ region: "us-east-1" }).get(ACCOUNT, "products"));
    expect(gateway.refused.at(-1)).toBe("signature");
  });

  it("a request signed too long ago is refused", async () => {
    await refusal(signed({ now: () => new Date(Date.now() - 20 * 60_000) }).get(ACCOUNT, "products"));
    expect(gateway.refused.at(-1)).toBe("expired");
  });

  it("an unsigned request (the bearer token alone) is refused by the gateway", async () => {
    const message = await refusal(new AdminApi(gateway.url, bearerAuth(TOKEN)).get(ACCOUNT, "products"));
    expect(gateway.refused.at(-1)).toBe("unsigned");
    expect(message).toBe("the admin API refused ADMIN_TOKEN (403): set the token of this environment");
  });

  it("a correctly signed request with a wrong admin token passes the gateway and is refused by the app", async () => {
    const message = await refusal(signed({ token: "wrong-admin-token-0123456789" }).get(ACCOUNT, "products"));
    expect(message).toBe("the admin API refused ADMIN_TOKEN (401): set the token of this environment");
  });

  it("without AWS credentials nothing is sent, and the line says which variables to set", async () => {
    const before = gateway.accepted.length + gateway.refused.length;
    const auth = adminAuthFor({ region: REGION }, TOKEN, () => async () => {
      throw new Error("Could not load credentials from any providers");
    });
    const message = await refusal(new AdminApi(gateway.url, auth).get(ACCOUNT, "products"));
    expect(message).toBe(
      "cannot sign the admin API request: no AWS credentials (Could not load credentials from any providers); " +
        "set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, for the environment's account",
    );
    expect(gateway.accepted.length + gateway.refused.length).toBe(before);
  });
});

describe("local: the admin app itself", () => {
  it("sends Authorization: Bearer and nothing of SigV4", async () => {
    const headers = await adminAuthFor(null, TOKEN).headers({
      method: "GET",
      url: "http://127.0.0.1:8787/api/v1/admin/accounts",
      headers: { accept: "application/json" },
    });
    expect(headers).toEqual({ accept: "application/json", authorization: `Bearer ${TOKEN}` });
  });
});
