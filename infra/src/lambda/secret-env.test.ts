import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EXTENSION_PORT_ENV,
  extensionSecretSource,
  resolveSecretEnv,
  SECRET_ENV_MAP,
  type SecretSource,
  validateSecretEnvMap,
  withSecretEnv,
} from "./secret-env.ts";

const SESSION = "session-token-of-the-function";
const SECRETS: Record<string, string> = {
  "arn:aws:secretsmanager:eu-west-1:111111111111:secret:cf-token-AbCdEf": "cf-token-value",
  "arn:aws:secretsmanager:eu-west-1:111111111111:secret:clickhouse-XyZ123": JSON.stringify({
    username: "svcmon",
    password: "ch-password-value",
  }),
};

/** A local double of the Parameters and Secrets Lambda Extension's HTTP interface. */
let server: Server;
let port: number;
const requests: { secretId: string | null; token: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const secretId = url.searchParams.get("secretId");
    const token = req.headers["x-aws-parameters-secrets-token"] as string | undefined;
    requests.push({ secretId, token });
    if (url.pathname !== "/secretsmanager/get" || token !== SESSION) {
      res.writeHead(401).end("unauthorized");
      return;
    }
    const value = secretId === null ? undefined : SECRETS[secretId];
    if (value === undefined) {
      res.writeHead(400).end(JSON.stringify({ message: "ResourceNotFoundException" }));
      return;
    }
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ ARN: secretId, Name: "n", SecretString: value, VersionId: "v1" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const CF = "arn:aws:secretsmanager:eu-west-1:111111111111:secret:cf-token-AbCdEf";
const CH = "arn:aws:secretsmanager:eu-west-1:111111111111:secret:clickhouse-XyZ123";

function lambdaEnv(map: unknown): Record<string, string | undefined> {
  return {
    [SECRET_ENV_MAP]: JSON.stringify(map),
    [EXTENSION_PORT_ENV]: String(port),
    AWS_SESSION_TOKEN: SESSION,
  };
}

describe("validateSecretEnvMap", () => {
  it("accepts variables mapped to a secret, with an optional JSON key", () => {
    expect(validateSecretEnvMap({ A: { secretId: "s" }, B_2: { secretId: "t", jsonKey: "k" } })).toEqual({
      ok: true,
      value: { A: { secretId: "s" }, B_2: { secretId: "t", jsonKey: "k" } },
    });
  });

  it("names every problem with its variable", () => {
    const r = validateSecretEnvMap({
      "bad-name": { secretId: "s" },
      A: { secretId: "" },
      B: { secretId: "s", x: 1 },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path)).toEqual(["bad-name", "A.secretId", "B.x"]);
  });

  it("refuses something that is not an object", () => {
    expect(validateSecretEnvMap([])).toEqual({
      ok: false,
      errors: [{ path: "", message: "must be a JSON object" }],
    });
  });
});

describe("the extension source, against a local double of the Parameters and Secrets extension", () => {
  it("reads a secret string with the function's session token", async () => {
    const source = extensionSecretSource(lambdaEnv({}));
    expect(await source.secretString(CF)).toBe("cf-token-value");
    expect(requests.at(-1)).toEqual({ secretId: CF, token: SESSION });
  });

  it("says which secret the extension refused", async () => {
    const source = extensionSecretSource(lambdaEnv({}));
    await expect(source.secretString("arn:missing")).rejects.toThrow(/answered 400 for arn:missing/);
  });

  it("needs the session token Lambda provides", async () => {
    const source = extensionSecretSource({ [EXTENSION_PORT_ENV]: String(port) });
    await expect(source.secretString(CF)).rejects.toThrow(/AWS_SESSION_TOKEN is not set/);
  });
});

describe("resolveSecretEnv", () => {
  const counting = (): SecretSource & { calls: string[] } => {
    const calls: string[] = [];
    return {
      calls,
      async secretString(id) {
        calls.push(id);
        const v = SECRETS[id];
        if (v === undefined) throw new Error("not found");
        return v;
      },
    };
  };

  it("takes JSON keys and reads each secret once", async () => {
    const source = counting();
    const values = await resolveSecretEnv(
      {
        CLICKHOUSE_USERNAME: { secretId: CH, jsonKey: "username" },
        CLICKHOUSE_PASSWORD: { secretId: CH, jsonKey: "password" },
        CLOUDFLARE_API_TOKEN: { secretId: CF },
      },
      source,
    );
    expect(values).toEqual({
      CLICKHOUSE_USERNAME: "svcmon",
      CLICKHOUSE_PASSWORD: "ch-password-value",
      CLOUDFLARE_API_TOKEN: "cf-token-value",
    });
    expect(source.calls).toEqual([CH, CF]);
  });

  it("names the variable and the missing key without printing the secret", async () => {
    const error = await resolveSecretEnv({ X: { secretId: CH, jsonKey: "token" } }, counting()).catch(
      (e) => e,
    );
    expect(String(error)).toMatch(/X: secret .*clickhouse-XyZ123 has no non-empty string under "token"/);
    expect(String(error)).not.toContain("ch-password-value");
  });

  it("refuses a JSON key on a secret that is not JSON", async () => {
    await expect(resolveSecretEnv({ Y: { secretId: CF, jsonKey: "k" } }, counting())).rejects.toThrow(
      /Y: secret .* is not JSON/,
    );
  });
});

describe("withSecretEnv, against a local double of the Parameters and Secrets extension", () => {
  it("fills the environment before the handler's first invocation, and only once", async () => {
    const env = lambdaEnv({
      CLOUDFLARE_API_TOKEN: { secretId: CF },
      CLICKHOUSE_PASSWORD: { secretId: CH, jsonKey: "password" },
    });
    const seen: (string | undefined)[] = [];
    const wrapped = withSecretEnv(
      async (n: number) => {
        seen.push(env.CLOUDFLARE_API_TOKEN, env.CLICKHOUSE_PASSWORD);
        return n * 2;
      },
      { env },
    );
    const before = requests.length;
    expect(await wrapped(21)).toBe(42);
    expect(await wrapped(1)).toBe(2);
    expect(seen).toEqual(["cf-token-value", "ch-password-value", "cf-token-value", "ch-password-value"]);
    expect(requests.length - before).toBe(2);
  });

  it("fails the invocation when a secret cannot be read, and tries again on the next one", async () => {
    const env = lambdaEnv({ TOKEN: { secretId: "arn:not-yet-created" } });
    const wrapped = withSecretEnv(async () => env.TOKEN, { env });
    await expect(wrapped()).rejects.toThrow(/TOKEN: cannot read secret arn:not-yet-created/);
    SECRETS["arn:not-yet-created"] = "now-it-exists";
    expect(await wrapped()).toBe("now-it-exists");
  });

  it("refuses an invalid map naming the variable", async () => {
    const env = lambdaEnv({ A: { secretId: "" } });
    await expect(withSecretEnv(async () => 1, { env })()).rejects.toThrow(/SECRET_ENV_MAP: A.secretId/);
  });

  it("passes straight through when the function has no secrets", async () => {
    const wrapped = withSecretEnv(async (a: string, b: string) => a + b, { env: {} });
    expect(await wrapped("x", "y")).toBe("xy");
  });
});
