import { Token } from "aws-cdk-lib";
import { afterAll, describe, expect, it } from "vitest";
import { MONITOR_STACK } from "./build-app.ts";
import { removeSynthesized, statementsOf, synthesize } from "./test-support.ts";

afterAll(removeSynthesized);

describe("buildApp context", () => {
  it("pins a stack to an account with -c <stack>:account=<id>; the others follow the credentials", () => {
    const synth = synthesize({ context: { "prod-EcomSearch:account": "123456789012" } });
    expect(synth.stack("prod-EcomSearch").account).toBe("123456789012");
    expect(synth.stack("prod-EcomSearch").region).toBe("eu-west-1");
    // Without credentials (CDK_DEFAULT_ACCOUNT unset), the account is resolved at deploy time.
    expect(Token.isUnresolved(synth.stack("dev-EcomSearch").account)).toBe(true);
  });

  it("refuses a pinned account that is not a 12-digit id, naming the context key", () => {
    expect(() => synthesize({ context: { "svcmon-Monitor:account": "prod" } })).toThrow(
      'context svcmon-Monitor:account must be a 12-digit AWS account id, got "prod"',
    );
  });

  it("lets the roles named by -c svcmon-Monitor:curReaderArn list and read the CUR bucket, nothing more", () => {
    const reader = "arn:aws:iam::123456789012:role/clickhouse-server";
    const synth = synthesize({ context: { [`${MONITOR_STACK}:curReaderArn`]: reader } });
    const policy = Object.values(synth.json(MONITOR_STACK).Resources).find(
      (r) => r.Type === "AWS::S3::BucketPolicy",
    );
    const statements = statementsOf(policy);
    const forReader = statements.filter(
      (s) => JSON.stringify(s.Principal) === JSON.stringify({ AWS: reader }),
    );
    expect(forReader.map((s) => [s.Sid, s.Action])).toEqual([
      ["CurReadersList", "s3:ListBucket"],
      ["CurReadersGet", "s3:GetObject"],
    ]);
  });

  it("refuses a CUR reader that is not a role ARN", () => {
    expect(() => synthesize({ context: { [`${MONITOR_STACK}:curReaderArn`]: "clickhouse" } })).toThrow(
      /context svcmon-Monitor:curReaderArn must be IAM role ARNs/,
    );
  });
});
