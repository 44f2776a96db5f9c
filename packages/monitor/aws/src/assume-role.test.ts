import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, describe, expect, it } from "vitest";
import { isAccessDenied, RoleAssumer } from "./assume-role.ts";
import { AccessDeniedError } from "./errors.ts";
import { assumeRoleAccessDenied, assumeRoleOutput, stsThrottling } from "./test-support/aws-responses.ts";

const sts = mockClient(STSClient);
afterEach(() => sts.reset());

const T0 = Date.parse("2025-01-01T00:00:00Z");

describe("RoleAssumer (STS mocked with aws-sdk-client-mock)", () => {
  it("assumes arn:aws:iam::<account>:role/<roleName> with the external id and session name", async () => {
    sts.on(AssumeRoleCommand).resolves(assumeRoleOutput("111111111111", new Date(T0 + 3_600_000)));
    const assumer = new RoleAssumer({
      sts: new STSClient({ region: "us-east-1" }),
      roleName: "svcmon-collector",
      externalId: "ext-7f3a",
      sessionName: "svcmon-config",
      now: () => T0,
    });
    const creds = await assumer.credentials("111111111111");
    expect(creds).toMatchObject({
      accessKeyId: "ASIAIOSFODNN7EXAMPLE",
      expiration: new Date(T0 + 3_600_000),
    });
    expect(sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input)).toEqual([
      {
        RoleArn: "arn:aws:iam::111111111111:role/svcmon-collector",
        RoleSessionName: "svcmon-config",
        ExternalId: "ext-7f3a",
        DurationSeconds: 3600,
      },
    ]);
  });

  it("caches per account until the refresh margin before expiry, and shares concurrent calls", async () => {
    let now = T0;
    let n = 0;
    sts.on(AssumeRoleCommand).callsFake(async (input: { RoleArn: string }) => {
      n++;
      const account = input.RoleArn.split(":")[4] as string;
      return assumeRoleOutput(account, new Date(now + 3_600_000), `KEY${n}`);
    });
    const assumer = new RoleAssumer({ sts: new STSClient({ region: "us-east-1" }), now: () => now });
    const [a, b, c] = await Promise.all([
      assumer.credentials("111111111111"),
      assumer.credentials("111111111111"),
      assumer.credentials("222222222222"),
    ]);
    expect(a).toBe(b);
    expect(c.accessKeyId).not.toBe(a.accessKeyId);
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);

    now = T0 + 54 * 60_000; // 6 min left: still cached (margin 5 min)
    expect(await assumer.credentials("111111111111")).toBe(a);
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
    now = T0 + 56 * 60_000; // 4 min left: refreshed
    const fresh = await assumer.credentials("111111111111");
    expect(fresh.accessKeyId).not.toBe(a.accessKeyId);
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(3);
  });

  it("AccessDenied from STS becomes AccessDeniedError naming the account and role, not cached", async () => {
    sts.on(AssumeRoleCommand).rejects(assumeRoleAccessDenied("555555555555"));
    const assumer = new RoleAssumer({ sts: new STSClient({ region: "us-east-1" }) });
    const err = await assumer.credentials("555555555555").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AccessDeniedError);
    expect(err).toMatchObject({
      accountId: "555555555555",
      roleArn: "arn:aws:iam::555555555555:role/svcmon-collector",
    });
    expect((err as Error).message).toContain("AccessDenied: User: arn:aws:sts::999999999999");
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(1); // a refusal is not retried
    await expect(assumer.credentials("555555555555")).rejects.toBeInstanceOf(AccessDeniedError);
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
  });

  it("STS throttled past the client's attempts rejects with its error, not AccessDeniedError, and is not cached", async () => {
    sts.on(AssumeRoleCommand).rejects(stsThrottling(5));
    const assumer = new RoleAssumer({ sts: new STSClient({ region: "us-east-1" }), now: () => T0 });
    const err = await assumer.credentials("222222222222").catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "Throttling", $metadata: { attempts: 5 } });
    expect(err).not.toBeInstanceOf(AccessDeniedError);
    sts.reset();
    sts.on(AssumeRoleCommand).resolves(assumeRoleOutput("222222222222", new Date(T0 + 3_600_000)));
    await expect(assumer.credentials("222222222222")).resolves.toMatchObject({
      accessKeyId: "ASIAIOSFODNN7EXAMPLE",
    });
  });

  it("refuses an account id that is not 12 digits before calling STS", async () => {
    const assumer = new RoleAssumer({ sts: new STSClient({ region: "us-east-1" }) });
    await expect(assumer.credentials("1234")).rejects.toThrow('account id must be 12 digits, got "1234"');
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(0);
    expect(isAccessDenied({ name: "AccessDeniedException" })).toBe(true);
    expect(isAccessDenied({ name: "ExpiredTokenException", $metadata: { httpStatusCode: 400 } })).toBe(false);
  });
});
