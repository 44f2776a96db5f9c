import { DescribeVolumesCommand, type DescribeVolumesCommandInput, EC2Client } from "@aws-sdk/client-ec2";
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RoleAssumer } from "./assume-role.ts";
import { ebsCollector } from "./ebs-collector.ts";
import { AwsCollectError } from "./errors.ts";
import { assumeRoleOutput, ec2Unauthorized, volume, volumesPage } from "./test-support/aws-responses.ts";
import { context, MemoryQueue, MemorySink } from "./test-support/doubles.ts";

const sts = mockClient(STSClient);
const ec2 = mockClient(EC2Client);
const ACCT = "222222222222";
const NOW = Date.parse("2025-03-01T12:00:00Z");

beforeEach(() => {
  sts.on(AssumeRoleCommand).resolves(assumeRoleOutput(ACCT, new Date(NOW + 3_600_000)));
});
afterEach(() => {
  sts.reset();
  ec2.reset();
});

function run(sink = new MemorySink(), queue = new MemoryQueue()) {
  const c = ebsCollector({
    credentials: new RoleAssumer({ sts: new STSClient({ region: "us-east-1" }), now: () => NOW }),
    sink,
    events: queue,
    pageSize: 2000,
  });
  return c.run(context(ACCT, "us-east-1", NOW));
}

describe("config_ebs (EC2 and STS mocked with aws-sdk-client-mock)", () => {
  it("pages DescribeVolumes (MaxResults clamped to its 500 maximum), maps size, attachment and tags", async () => {
    ec2
      .on(DescribeVolumesCommand)
      .callsFake(async (input: DescribeVolumesCommandInput) =>
        input.NextToken === undefined
          ? volumesPage(
              [
                volume("vol-049df61146c4d7901", { tags: { team: "data", "cost-center": "cc-042" } }),
                volume("vol-049df61146c4d7902", { State: "deleted", Attachments: [] }),
              ],
              "AAEAAXlvbHVtZS1wYWdlLTI=",
            )
          : volumesPage([volume("vol-049df61146c4d7903", { Size: 8, VolumeType: "gp2", Attachments: [] })]),
      );
    const sink = new MemorySink();
    const result = await run(sink);
    expect(result).toEqual({ status: "succeeded", events_produced: 3, rows_inserted: 2 });
    expect(ec2.commandCalls(DescribeVolumesCommand).map((c) => c.args[0].input)).toEqual([
      { MaxResults: 500, NextToken: undefined },
      { MaxResults: 500, NextToken: "AAEAAXlvbHVtZS1wYWdlLTI=" },
    ]);
    expect(sink.rows.map((r) => r.row)).toMatchObject([
      {
        resource_id: "vol-049df61146c4d7901",
        resource_type: "ebs_volume",
        arn: `arn:aws:ec2:us-east-1:${ACCT}:volume/vol-049df61146c4d7901`,
        tags: { team: "data", "cost-center": "cc-042" },
        attributes: { size_gb: 100, volume_type: "gp3", state: "in-use", attached_to: "i-1234567890abcdef0" },
      },
      {
        resource_id: "vol-049df61146c4d7903",
        attributes: { size_gb: 8, volume_type: "gp2", attached_to: null, snapshot_id: null },
      },
    ]);
  });

  it("a role without ec2:DescribeVolumes fails the run with EC2's UnauthorizedOperation (not retried)", async () => {
    ec2.on(DescribeVolumesCommand).rejects(ec2Unauthorized("DescribeVolumes"));
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AwsCollectError);
    expect((err as Error).message).toMatch(
      /^DescribeVolumes page 1 failed after 1 attempt: UnauthorizedOperation: You are not authorized/,
    );
    expect(ec2.commandCalls(DescribeVolumesCommand)).toHaveLength(1);
  });
});
