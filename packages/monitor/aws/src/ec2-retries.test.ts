import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TemporaryCredentials } from "./assume-role.ts";
import { ec2ClientFactory } from "./clients.ts";
import type { CredentialSource } from "./collect.ts";
import { ec2Collector } from "./ec2-collector.ts";
import { AwsCollectError } from "./errors.ts";
import { describeRegionsSource } from "./regions.ts";
import { instance, instanceRow } from "./test-support/aws-responses.ts";
import { context, MemoryQueue, MemorySink, RUN_ID } from "./test-support/doubles.ts";
import {
  EC2_REQUEST_LIMIT_EXCEEDED,
  type Ec2DoubleAnswer,
  type Ec2HttpDouble,
  ec2InvalidParameterValue,
  ec2UnauthorizedOperation,
  startEc2HttpDouble,
} from "./test-support/ec2-http-double.ts";

const ACCT = "111111111111";
const REGION = "eu-west-1";
const NOW = Date.parse("2025-03-01T12:00:00Z");
const TOKEN = "eyJ2IjoiMiIsImMiOiJwYWdlMiJ9";

/** The account's role, already assumed: these tests are about EC2's answers, not STS's. */
const credentials: CredentialSource = {
  credentials: async (): Promise<TemporaryCredentials> => ({
    accessKeyId: "ASIAIOSFODNN7EXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    sessionToken: "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQW",
    expiration: new Date(NOW + 3_600_000),
  }),
};

const PAGE_1 = [
  instance("i-0a1b2c3d4e5f60001", {
    tags: { Name: "web-1", team: "search", env: "prod", "svc:purpose": "svc-infrastructure" },
  }),
  instance("i-0a1b2c3d4e5f60002", { InstanceType: "m6i.xlarge", tags: { team: "search" } }),
];
const PAGE_2 = [
  instance("i-0a1b2c3d4e5f60003", { State: { Code: 48, Name: "terminated" } }),
  instance("i-0a1b2c3d4e5f60004", { State: { Code: 80, Name: "stopped" }, InstanceLifecycle: "spot" }),
];

let double: Ec2HttpDouble | undefined;
let sink: MemorySink;
let queue: MemoryQueue;
beforeEach(() => {
  sink = new MemorySink();
  queue = new MemoryQueue();
});
afterEach(async () => {
  await double?.close();
  double = undefined;
});

/** The double answers with `answers` in turn, then with the last of them. */
async function ec2Double(answers: Ec2DoubleAnswer[]) {
  double = await startEc2HttpDouble((n) => answers[Math.min(n, answers.length) - 1] as Ec2DoubleAnswer);
  return double;
}

/** config_ec2 on real EC2Clients from ec2ClientFactory, pointed at the double: 3 attempts, 1 ms apart. */
function collectorAgainst(d: Ec2HttpDouble, maxAttempts = 3) {
  return ec2Collector({
    credentials,
    sink,
    events: queue,
    ec2: ec2ClientFactory({ retry: { maxAttempts, retryDelayMs: 1 }, endpoint: d.endpoint }),
  });
}

const ids = () => sink.rows.map((r) => r.row.resource_id);

describe("config_ec2 on a real EC2Client against an HTTP double of EC2 (query protocol)", () => {
  it("sends DescribeInstances as the EC2 query protocol and pages it by nextToken across two pages", async () => {
    const d = await ec2Double([{ instances: PAGE_1, nextToken: TOKEN }, { instances: PAGE_2 }]);
    const result = await collectorAgainst(d).run(context(ACCT, REGION, NOW));
    // 4 instances seen (4 events); the terminated one has no row.
    expect(result).toEqual({ status: "succeeded", events_produced: 4, rows_inserted: 3 });
    expect(d.requests.map((p) => Object.fromEntries(p))).toEqual([
      { Action: "DescribeInstances", Version: "2016-11-15", MaxResults: "1000" },
      { Action: "DescribeInstances", Version: "2016-11-15", MaxResults: "1000", NextToken: TOKEN },
    ]);
    expect(ids()).toEqual(["i-0a1b2c3d4e5f60001", "i-0a1b2c3d4e5f60002", "i-0a1b2c3d4e5f60004"]);
    // Every field the collector reads came through the XML.
    expect(sink.rows[0]?.row).toEqual(
      instanceRow(
        "i-0a1b2c3d4e5f60001",
        { Name: "web-1", team: "search", env: "prod", "svc:purpose": "svc-infrastructure" },
        { account: ACCT, region: REGION, observedAt: NOW, runId: RUN_ID },
      ),
    );
    expect(sink.rows[2]?.row).toMatchObject({
      attributes: { state: "stopped", lifecycle: "spot" },
      tags: {},
    });
    expect(JSON.parse(queue.bodies[2] ?? "{}")).toMatchObject({
      resource_id: "i-0a1b2c3d4e5f60003",
      stored: false,
      attributes: { state: "terminated" },
    });
  });

  it("collects the instances through EC2 throttling (RequestLimitExceeded, HTTP 503, twice, then the page): 3 requests", async () => {
    const d = await ec2Double([
      EC2_REQUEST_LIMIT_EXCEEDED,
      EC2_REQUEST_LIMIT_EXCEEDED,
      { instances: PAGE_1 },
    ]);
    const result = await collectorAgainst(d).run(context(ACCT, REGION, NOW));
    expect(result).toEqual({ status: "succeeded", events_produced: 2, rows_inserted: 2 });
    expect(ids()).toEqual(["i-0a1b2c3d4e5f60001", "i-0a1b2c3d4e5f60002"]);
    expect(d.requests).toHaveLength(3);
    expect(d.requests.every((p) => p.get("Action") === "DescribeInstances" && !p.has("NextToken"))).toBe(
      true,
    );
  });

  it("does not retry UnauthorizedOperation: 1 request, the run fails with EC2's error after 1 attempt", async () => {
    const d = await ec2Double([ec2UnauthorizedOperation("DescribeInstances"), { instances: PAGE_1 }]);
    const err = await collectorAgainst(d)
      .run(context(ACCT, REGION, NOW))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AwsCollectError);
    expect((err as Error).message).toBe(
      "DescribeInstances page 1 failed after 1 attempt: UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::111111111111:assumed-role/svcmon-collector/svcmon-collector is not authorized to perform: ec2:DescribeInstances because no identity-based policy allows the ec2:DescribeInstances action",
    );
    expect(d.requests).toHaveLength(1);
    expect(sink.rows).toHaveLength(0);
    expect(queue.bodies).toHaveLength(0);
  });

  it("does not retry a bad request (InvalidParameterValue, HTTP 400): 1 request", async () => {
    const d = await ec2Double([
      ec2InvalidParameterValue("Value (1001) for parameter maxResults is invalid."),
      { instances: PAGE_1 },
    ]);
    const err = await collectorAgainst(d)
      .run(context(ACCT, REGION, NOW))
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      "DescribeInstances page 1 failed after 1 attempt: InvalidParameterValue: Value (1001) for parameter maxResults is invalid.",
    );
    expect(d.requests).toHaveLength(1);
  });

  it("gives up after maxAttempts when EC2 stays throttled: exactly 3 requests, the error says 3 attempts", async () => {
    const d = await ec2Double([EC2_REQUEST_LIMIT_EXCEEDED]);
    const err = await collectorAgainst(d)
      .run(context(ACCT, REGION, NOW))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AwsCollectError);
    expect((err as Error).message).toBe(
      "DescribeInstances page 1 failed after 3 attempts: RequestLimitExceeded: Request limit exceeded.",
    );
    expect(d.requests).toHaveLength(3);
    expect(sink.rows).toHaveLength(0);
  });

  it("takes its attempts from the factory's retry options, not the SDK's default of 3: maxAttempts 4 → 4 requests", async () => {
    const d = await ec2Double([EC2_REQUEST_LIMIT_EXCEEDED]);
    const err = await collectorAgainst(d, 4)
      .run(context(ACCT, REGION, NOW))
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      "DescribeInstances page 1 failed after 4 attempts: RequestLimitExceeded: Request limit exceeded.",
    );
    expect(d.requests).toHaveLength(4);
  });

  it("page 2 throttled past maxAttempts: partial, page 1 kept, 1 + 3 requests, the error names page and attempts", async () => {
    const d = await ec2Double([{ instances: PAGE_1, nextToken: TOKEN }, EC2_REQUEST_LIMIT_EXCEEDED]);
    const result = await collectorAgainst(d).run(context(ACCT, REGION, NOW));
    expect(result).toEqual({
      status: "partial",
      events_produced: 2,
      rows_inserted: 2,
      error:
        "DescribeInstances page 2 failed after 3 attempts: RequestLimitExceeded: Request limit exceeded.",
    });
    expect(d.requests.map((p) => p.get("NextToken"))).toEqual([null, TOKEN, TOKEN, TOKEN]);
    expect(ids()).toEqual(["i-0a1b2c3d4e5f60001", "i-0a1b2c3d4e5f60002"]);
  });
});

describe("describeRegionsSource on a real EC2Client against the HTTP double of EC2", () => {
  const account = { account_id: ACCT, account_name: "prod" };
  function source(d: Ec2HttpDouble, log: string[] = []) {
    return describeRegionsSource({
      credentials,
      fallback: ["us-east-1"],
      ec2: ec2ClientFactory({ retry: { maxAttempts: 3, retryDelayMs: 1 }, endpoint: d.endpoint }),
      log: (e) => void log.push(e.msg),
    });
  }

  it("reads the enabled regions through throttling (RequestLimitExceeded once, then DescribeRegions): 2 requests", async () => {
    const d = await ec2Double([
      EC2_REQUEST_LIMIT_EXCEEDED,
      { regions: ["us-east-1", "eu-west-1", "ap-south-1"] },
    ]);
    expect(await source(d)(account)).toEqual(["ap-south-1", "eu-west-1", "us-east-1"]);
    expect(d.requests.map((p) => p.get("Action"))).toEqual(["DescribeRegions", "DescribeRegions"]);
    expect(d.requests[0]?.get("Version")).toBe("2016-11-15");
  });

  it("falls back after 1 request when DescribeRegions is refused (UnauthorizedOperation is not retried)", async () => {
    const d = await ec2Double([ec2UnauthorizedOperation("DescribeRegions"), { regions: ["eu-west-1"] }]);
    const log: string[] = [];
    expect(await source(d, log)(account)).toEqual(["us-east-1"]);
    expect(d.requests).toHaveLength(1);
    expect(log).toEqual([
      expect.stringMatching(
        /^regions of the account unreadable, using us-east-1: UnauthorizedOperation: You are not authorized/,
      ),
    ]);
  });
});
