import { DescribeInstancesCommand, type DescribeInstancesCommandInput, EC2Client } from "@aws-sdk/client-ec2";
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts";
import { parseResourceEvent } from "@monitor/core";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RoleAssumer } from "./assume-role.ts";
import { ec2Collector } from "./ec2-collector.ts";
import { AccessDeniedError, AwsCollectError } from "./errors.ts";
import {
  assumeRoleAccessDenied,
  assumeRoleOutput,
  ec2RequestLimitExceeded,
  instance,
  instanceRow,
  instancesPage,
  throttlingException,
} from "./test-support/aws-responses.ts";
import { context, MemoryQueue, MemorySink, RUN_ID } from "./test-support/doubles.ts";

const sts = mockClient(STSClient);
const ec2 = mockClient(EC2Client);
const ACCT = "111111111111";
const REGION = "eu-west-1";
const NOW = Date.parse("2025-03-01T12:00:00Z");

let sink: MemorySink;
let queue: MemoryQueue;
let noAccess: string[];

beforeEach(() => {
  sts.on(AssumeRoleCommand).resolves(assumeRoleOutput(ACCT, new Date(NOW + 3_600_000)));
  sink = new MemorySink();
  queue = new MemoryQueue();
  noAccess = [];
});
afterEach(() => {
  sts.reset();
  ec2.reset();
});

function collector() {
  return ec2Collector({
    credentials: new RoleAssumer({
      sts: new STSClient({ region: "us-east-1" }),
      externalId: "ext-1",
      now: () => NOW,
    }),
    sink,
    events: queue,
    onNoAccess: (id) => void noAccess.push(id),
  });
}

/** Three pages joined by NextToken, as DescribeInstances documents its pagination. */
const PAGES: Record<string, ReturnType<typeof instancesPage>> = {
  first: instancesPage(
    [
      instance("i-0a1b2c3d4e5f60001", {
        tags: { Name: "web-1", team: "search", env: "prod", "svc:purpose": "svc-infrastructure" },
      }),
      instance("i-0a1b2c3d4e5f60002", { InstanceType: "m6i.xlarge", tags: { team: "search" } }),
    ],
    "eyJ2IjoiMiIsImMiOiJwYWdlMiJ9",
  ),
  eyJ2IjoiMiIsImMiOiJwYWdlMiJ9: instancesPage(
    [
      instance("i-0a1b2c3d4e5f60003", { State: { Code: 48, Name: "terminated" } }),
      instance("i-0a1b2c3d4e5f60004", { State: { Code: 80, Name: "stopped" } }),
    ],
    "eyJ2IjoiMiIsImMiOiJwYWdlMyJ9",
  ),
  eyJ2IjoiMiIsImMiOiJwYWdlMyJ9: instancesPage([instance("i-0a1b2c3d4e5f60005", { Tags: undefined })]),
};

function pageFor(input: DescribeInstancesCommandInput) {
  const page = PAGES[input.NextToken ?? "first"];
  if (!page) throw new Error(`unexpected NextToken ${input.NextToken}`);
  return page;
}

describe("config_ec2 (EC2 and STS mocked with aws-sdk-client-mock)", () => {
  it("pages DescribeInstances across 3 pages with the assumed role's credentials and stores tagged rows", async () => {
    const seenCreds: string[] = [];
    const seenRegions: string[] = [];
    ec2.on(DescribeInstancesCommand).callsFake(async (input: DescribeInstancesCommandInput, getClient) => {
      seenCreds.push((await getClient().config.credentials()).accessKeyId);
      seenRegions.push(await getClient().config.region());
      return pageFor(input);
    });
    const result = await collector().run(context(ACCT, REGION, NOW));
    // 5 instances seen (5 events); the terminated one has no row.
    expect(result).toEqual({ status: "succeeded", events_produced: 5, rows_inserted: 4 });
    expect(ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input)).toEqual([
      { MaxResults: 1000, NextToken: undefined },
      { MaxResults: 1000, NextToken: "eyJ2IjoiMiIsImMiOiJwYWdlMiJ9" },
      { MaxResults: 1000, NextToken: "eyJ2IjoiMiIsImMiOiJwYWdlMyJ9" },
    ]);
    expect(seenCreds).toEqual(["ASIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE"]);
    expect(seenRegions).toEqual([REGION, REGION, REGION]);
    expect(sts.commandCalls(AssumeRoleCommand)[0]?.args[0].input).toMatchObject({
      RoleArn: `arn:aws:iam::${ACCT}:role/svcmon-collector`,
      ExternalId: "ext-1",
    });

    expect(sink.rows.every((r) => r.table === "resources")).toBe(true);
    const first = sink.rows[0]?.row;
    expect(first).toEqual(
      instanceRow(
        "i-0a1b2c3d4e5f60001",
        { Name: "web-1", team: "search", env: "prod", "svc:purpose": "svc-infrastructure" },
        { account: ACCT, region: REGION, observedAt: NOW, runId: RUN_ID },
      ),
    );
    expect(sink.rows.map((r) => r.row.resource_id)).not.toContain("i-0a1b2c3d4e5f60003");
    expect(sink.rows.at(-1)?.row.tags).toEqual({});

    // One event per instance seen, in the queue's ResourceEvent format (the ingest consumer accepts it).
    expect(queue.bodies).toHaveLength(5);
    const events = queue.bodies.map((b) => JSON.parse(b) as Record<string, unknown>);
    expect(queue.bodies.every((b) => parseResourceEvent(b).ok)).toBe(true);
    expect(events[2]).toMatchObject({
      kind: "resource_observed",
      collector: "config_ec2",
      account_id: ACCT,
      region: REGION,
      resource_type: "ec2_instance",
      resource_id: "i-0a1b2c3d4e5f60003",
      observed_at: NOW,
      run_id: RUN_ID,
      stored: false,
      attributes: { state: "terminated" },
    });
    expect(events[0]?.tags).toEqual(first?.tags);
  });

  it("page 2 throttled past the client's attempts: partial, page 1 kept, the error names the API, page and attempts", async () => {
    ec2.on(DescribeInstancesCommand).callsFake(async (input: DescribeInstancesCommandInput) => {
      if (input.NextToken === "eyJ2IjoiMiIsImMiOiJwYWdlMiJ9") throw ec2RequestLimitExceeded(5);
      return pageFor(input);
    });
    const result = await collector().run(context(ACCT, REGION, NOW));
    expect(result).toEqual({
      status: "partial",
      events_produced: 2,
      rows_inserted: 2,
      error:
        "DescribeInstances page 2 failed after 5 attempts: RequestLimitExceeded: Request limit exceeded.",
    });
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(2);
    expect(sink.rows.map((r) => r.row.resource_id)).toEqual(["i-0a1b2c3d4e5f60001", "i-0a1b2c3d4e5f60002"]);
  });

  it("page 1 throttled past the client's attempts: nothing read, the run fails with the API's error", async () => {
    ec2.on(DescribeInstancesCommand).rejects(throttlingException(5));
    const err = await collector()
      .run(context(ACCT, REGION, NOW))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AwsCollectError);
    expect((err as Error).message).toBe(
      "DescribeInstances page 1 failed after 5 attempts: ThrottlingException: Rate exceeded",
    );
    expect(sink.rows).toHaveLength(0);
    expect(queue.bodies).toHaveLength(0);
  });

  it("AccessDenied on AssumeRole: the run throws AccessDeniedError, onNoAccess gets the account, EC2 is not called", async () => {
    sts.reset();
    sts.on(AssumeRoleCommand).rejects(assumeRoleAccessDenied(ACCT));
    await expect(collector().run(context(ACCT, REGION, NOW))).rejects.toBeInstanceOf(AccessDeniedError);
    expect(noAccess).toEqual([ACCT]);
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(0);
  });

  it("a queue that accepts fewer events than sent makes the run partial, rows still stored", async () => {
    ec2
      .on(DescribeInstancesCommand)
      .callsFake(async (input: DescribeInstancesCommandInput) => pageFor(input));
    queue.acceptAtMost = 3;
    const result = await collector().run(context(ACCT, REGION, NOW));
    expect(result).toEqual({
      status: "partial",
      events_produced: 3,
      rows_inserted: 4,
      error: "events: the queue accepted 3 of 5",
    });
  });

  it("a sink that cannot write fails the run (no event is sent for rows that were not stored)", async () => {
    ec2
      .on(DescribeInstancesCommand)
      .callsFake(async (input: DescribeInstancesCommandInput) => pageFor(input));
    sink.fail = new Error("analytics database unavailable during resources insert: ECONNREFUSED");
    await expect(collector().run(context(ACCT, REGION, NOW))).rejects.toThrow("ECONNREFUSED");
    expect(queue.bodies).toHaveLength(0);
  });

  it("an aborted run stops a DescribeInstances call that never answers", async () => {
    ec2.on(DescribeInstancesCommand).callsFake(() => new Promise(() => {}));
    const ac = new AbortController();
    const p = collector().run(context(ACCT, REGION, NOW, ac.signal));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ec2.commandCalls(DescribeInstancesCommand)).toHaveLength(1);
    ac.abort(new Error("timed out after 5000 ms"));
    await expect(p).rejects.toThrow("timed out after 5000 ms");
    expect(sink.rows).toHaveLength(0);
  });
});
