import { STSClient } from "@aws-sdk/client-sts";
import { afterEach, describe, expect, it } from "vitest";
import { RoleAssumer } from "./assume-role.ts";
import { awsRetryConfig } from "./aws-retry.ts";
import { AccessDeniedError } from "./errors.ts";
import {
  STS_THROTTLED,
  type StsDoubleAnswer,
  type StsHttpDouble,
  startStsHttpDouble,
  stsAccessDenied,
} from "./test-support/sts-http-double.ts";

const EXPIRES = new Date(Date.now() + 3_600_000);
let double: StsHttpDouble | undefined;
afterEach(async () => {
  await double?.close();
  double = undefined;
});

/** A RoleAssumer on a real STSClient pointed at the double, retrying as awsRetryConfig sets (1 ms apart). */
async function assumerAgainst(answers: StsDoubleAnswer[]) {
  double = await startStsHttpDouble((n) => answers[Math.min(n, answers.length) - 1] as StsDoubleAnswer);
  const sts = new STSClient({
    region: "us-east-1",
    endpoint: double.endpoint,
    credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/EXAMPLEKEY" },
    ...awsRetryConfig({ maxAttempts: 3, retryDelayMs: 1 }),
  });
  return { assumer: new RoleAssumer({ sts, externalId: "ext-1" }), d: double };
}

describe("RoleAssumer on a real STSClient against an HTTP double of STS", () => {
  it("gets the credentials through STS throttling (Throttling twice, then the answer): 3 requests", async () => {
    const { assumer, d } = await assumerAgainst([
      STS_THROTTLED,
      STS_THROTTLED,
      { credentials: true, expiration: EXPIRES },
    ]);
    const creds = await assumer.credentials("111111111111");
    expect(creds).toMatchObject({ accessKeyId: "ASIAIOSFODNN7EXAMPLE", expiration: EXPIRES });
    expect(d.requests).toHaveLength(3);
    expect(d.requests.map((p) => p.get("RoleArn"))).toEqual(
      Array(3).fill("arn:aws:iam::111111111111:role/svcmon-collector"),
    );
    expect(d.requests[0]?.get("ExternalId")).toBe("ext-1");
  });

  it("does not retry AccessDenied (HTTP 403): AccessDeniedError after 1 request", async () => {
    const { assumer, d } = await assumerAgainst([
      stsAccessDenied("arn:aws:iam::555555555555:role/svcmon-collector"),
      { credentials: true, expiration: EXPIRES },
    ]);
    const err = await assumer.credentials("555555555555").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AccessDeniedError);
    expect((err as Error).message).toContain("AccessDenied: User: arn:aws:sts::999999999999");
    expect(d.requests).toHaveLength(1);
  });

  it("gives up after the client's attempts when STS stays throttled: exactly 3 requests", async () => {
    const { assumer, d } = await assumerAgainst([STS_THROTTLED]);
    const err = await assumer.credentials("222222222222").catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "Throttling", $metadata: { attempts: 3 } });
    expect(err).not.toBeInstanceOf(AccessDeniedError);
    expect(d.requests).toHaveLength(3);
  });
});
