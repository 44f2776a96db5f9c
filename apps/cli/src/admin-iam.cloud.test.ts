// The real `relevance` bin against a cloud environment whose admin API sits behind a LOCAL DOUBLE OF
// API GATEWAY IAM AUTH (procedures/iam-gateway-double.ts: it verifies each SigV4 signature with
// @smithy/signature-v4, then hands the request to the real admin app on SQLite). The bin signs with
// credentials from the AWS default provider chain, here the environment variables of the child process.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAdminApp } from "@relevance/admin";
import { ACCOUNT_SK, type Logger } from "@relevance/settings";
import { openDatabase, SqliteKv, SqliteSettingsTable } from "@relevance/settings/sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IamGatewayDouble } from "./procedures/iam-gateway-double.ts";
import { oneLine, relevance as run } from "./test-support.ts";

const REGION = "eu-central-1";
const TOKEN = "dev-admin-token-0123456789abcdef";
const IDENTITY = {
  accessKeyId: "ASIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  sessionToken: "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN",
};
const ACCOUNT = "acct_0123456789ab";
const MODEL = `${ACCOUNT}:products:v1`;
const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

let gateway: IamGatewayDouble;
let work: string;
let env: Record<string, string>;

beforeAll(async () => {
  const db = openDatabase(":memory:");
  const table = new SqliteSettingsTable(db);
  const at = new Date().toISOString();
  await table.put(ACCOUNT, ACCOUNT_SK, { name: "Shop", created_at: at }, { mustNotExist: true });
  await table.put(
    ACCOUNT,
    "INDEX#products",
    {
      type: "index",
      created_at: at,
      updated_at: at,
      relevance_trigger_config: { model_id: MODEL, title_field: "title", tags_field: null },
    },
    { mustNotExist: true },
  );
  const app = createAdminApp({
    table,
    kv: new SqliteKv(db),
    adminToken: TOKEN,
    log: silent,
    now: () => new Date(),
  });
  gateway = await IamGatewayDouble.start({
    region: REGION,
    identity: IDENTITY,
    upstream: (r) => app.fetch(r),
  });

  work = mkdtempSync(join(tmpdir(), "relevance-iam-"));
  const environments = {
    dev: {
      kind: "cloud",
      kvNamespaceId: "0123456789abcdef0123456789abcdef",
      storeAccountId: "fedcba9876543210fedcba9876543210",
      settingsTable: "dev-EcomIndexSettingsTable",
      awsRegion: REGION,
      adminBaseUrl: gateway.url,
      searchBaseUrl: "http://127.0.0.1:9",
      // Neither store is reached by the commands below.
      cloudflareApiBaseUrl: "http://127.0.0.1:9",
      dynamodbEndpoint: "http://127.0.0.1:9",
    },
  };
  writeFileSync(join(work, "environments.json"), JSON.stringify(environments));
  env = {
    RELEVANCE_ENVIRONMENTS: join(work, "environments.json"),
    CLOUDFLARE_API_TOKEN: "unused-in-these-commands",
    ADMIN_TOKEN: TOKEN,
    AWS_ACCESS_KEY_ID: IDENTITY.accessKeyId,
    AWS_SECRET_ACCESS_KEY: IDENTITY.secretAccessKey,
    AWS_SESSION_TOKEN: IDENTITY.sessionToken,
    // Nothing but the variables above: no profile files, no instance metadata.
    AWS_CONFIG_FILE: join(work, "no-aws-config"),
    AWS_SHARED_CREDENTIALS_FILE: join(work, "no-aws-credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_WEB_IDENTITY_TOKEN_FILE: "",
    AWS_CONTAINER_CREDENTIALS_FULL_URI: "",
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: "",
  };
});

afterAll(async () => {
  await gateway.close();
  rmSync(work, { recursive: true, force: true });
});

const relevance = (args: string[], extra: Record<string, string> = {}) =>
  run(work, args, { ...env, ...extra });
const target = ["--env", "dev", "--account", ACCOUNT, "--index", "products"];

describe("relevance config against the IAM-authorized admin API (local double of API Gateway IAM auth)", () => {
  it("config get and config disable sign their calls with the default chain's credentials and the session token", async () => {
    const got = await relevance(["config", "get", ...target, "--json"]);
    expect(got.stderr).toBe("");
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({
      ok: true,
      relevanceTriggerConfig: { modelId: MODEL, titleField: "title", tagsField: null },
    });

    const disabled = await relevance(["config", "disable", ...target]);
    expect(disabled.stderr).toBe("");
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain(`disabled scoring on ${ACCOUNT}/products`);
    expect(gateway.accepted.map((r) => r.method)).toEqual(["GET", "GET", "PUT"]);
    expect(gateway.accepted.every((r) => r.signedHeaders.includes("x-amz-security-token"))).toBe(true);
    expect(gateway.refused).toEqual([]);
  });

  it("refusals are one line: the gateway's (wrong key), the app's (wrong admin token), no credentials at all", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { AWS_SECRET_ACCESS_KEY: "not-the-secret-key-000000000000000000000" },
        /^relevance config get: the API gateway refused the signed request \(403: The request signature we calculated does not match/,
      ],
      [{ ADMIN_TOKEN: "wrong-admin-token-0123456789" }, /the admin API refused ADMIN_TOKEN \(401\)/],
      [
        { AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_SESSION_TOKEN: "" },
        /cannot sign the admin API request: no AWS credentials \(.*\); set AWS_PROFILE, or AWS_ACCESS_KEY_ID/,
      ],
    ];
    for (const [extra, message] of cases) {
      const r = await relevance(["config", "get", ...target], extra);
      expect(r.code, JSON.stringify(extra)).toBe(1);
      expect(oneLine(r)).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
  });
});
