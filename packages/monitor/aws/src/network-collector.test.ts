import {
  DescribeNatGatewaysCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  type DescribeVpcsCommandInput,
  EC2Client,
} from "@aws-sdk/client-ec2";
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RoleAssumer } from "./assume-role.ts";
import { AwsCollectError } from "./errors.ts";
import { networkCollector } from "./network-collector.ts";
import { assumeRoleOutput, ec2Unauthorized, throttlingException } from "./test-support/aws-responses.ts";
import { context, MemoryQueue, MemorySink } from "./test-support/doubles.ts";

const sts = mockClient(STSClient);
const ec2 = mockClient(EC2Client);
const ACCT = "333333333333";
const REGION = "us-east-1";
const NOW = Date.parse("2025-03-01T12:00:00Z");
const meta = { httpStatusCode: 200, requestId: "7a62c49f-347e-4fc4-9331-6e8eEXAMPLE" };

// Shaped like the documented DescribeVpcs / DescribeSubnets / DescribeSecurityGroups / DescribeNatGateways answers.
const VPC = {
  CidrBlock: "10.0.0.0/16",
  DhcpOptionsId: "dopt-19edf471",
  State: "available" as const,
  VpcId: "vpc-0e9801d129EXAMPLE",
  OwnerId: ACCT,
  InstanceTenancy: "default" as const,
  IsDefault: false,
  Tags: [
    { Key: "Name", Value: "svcmon-vpc" },
    { Key: "svc:purpose", Value: "svc-infrastructure" },
  ],
};
const SUBNET = {
  AvailabilityZone: "us-east-1c",
  AvailableIpAddressCount: 251,
  CidrBlock: "10.0.1.0/24",
  State: "available" as const,
  SubnetId: "subnet-0bb1c79de3EXAMPLE",
  VpcId: VPC.VpcId,
  OwnerId: ACCT,
  DefaultForAz: false,
  SubnetArn: `arn:aws:ec2:us-east-1:${ACCT}:subnet/subnet-0bb1c79de3EXAMPLE`,
  Tags: [{ Key: "env", Value: "prod" }],
};
const SG = {
  Description: "svcmon collectors",
  GroupName: "svcmon-collectors",
  GroupId: "sg-903004f8",
  OwnerId: ACCT,
  VpcId: VPC.VpcId,
  IpPermissions: [],
  IpPermissionsEgress: [{ IpProtocol: "-1", IpRanges: [{ CidrIp: "0.0.0.0/0" }] }],
  SecurityGroupArn: `arn:aws:ec2:us-east-1:${ACCT}:security-group/sg-903004f8`,
};
const NAT = {
  CreateTime: new Date("2024-02-01T09:00:00.000Z"),
  NatGatewayAddresses: [
    {
      AllocationId: "eipalloc-89c620ec",
      NetworkInterfaceId: "eni-9dec76cd",
      PrivateIp: "10.0.0.149",
      PublicIp: "198.11.222.333",
    },
  ],
  NatGatewayId: "nat-05dba92075d71c408",
  State: "available" as const,
  SubnetId: SUBNET.SubnetId,
  VpcId: VPC.VpcId,
  ConnectivityType: "public" as const,
  Tags: [{ Key: "team", Value: "platform" }],
};

beforeEach(() => {
  sts.on(AssumeRoleCommand).resolves(assumeRoleOutput(ACCT, new Date(NOW + 3_600_000)));
});
afterEach(() => {
  sts.reset();
  ec2.reset();
});

function run(sink = new MemorySink()) {
  const c = networkCollector({
    credentials: new RoleAssumer({ sts: new STSClient({ region: "us-east-1" }), now: () => NOW }),
    sink,
    events: new MemoryQueue(),
  });
  return c.run(context(ACCT, REGION, NOW));
}

describe("config_network (EC2 and STS mocked with aws-sdk-client-mock)", () => {
  it("reads VPCs (2 pages), subnets, security groups and NAT gateways with their tags", async () => {
    ec2.on(DescribeVpcsCommand).callsFake(async (input: DescribeVpcsCommandInput) =>
      input.NextToken === undefined
        ? { $metadata: meta, Vpcs: [VPC], NextToken: "vpc-page-2" }
        : {
            $metadata: meta,
            Vpcs: [{ ...VPC, VpcId: "vpc-default0001", IsDefault: true, Tags: undefined }],
          },
    );
    ec2.on(DescribeSubnetsCommand).resolves({ $metadata: meta, Subnets: [SUBNET] });
    ec2.on(DescribeSecurityGroupsCommand).resolves({ $metadata: meta, SecurityGroups: [SG] });
    ec2.on(DescribeNatGatewaysCommand).resolves({
      $metadata: meta,
      NatGateways: [NAT, { ...NAT, NatGatewayId: "nat-0deleted000000001", State: "deleted" }],
    });
    const sink = new MemorySink();
    expect(await run(sink)).toEqual({ status: "succeeded", events_produced: 6, rows_inserted: 5 });
    const byId = Object.fromEntries(sink.rows.map((r) => [r.row.resource_id, r.row]));
    expect(Object.keys(byId)).toEqual([
      "vpc-0e9801d129EXAMPLE",
      "vpc-default0001",
      "subnet-0bb1c79de3EXAMPLE",
      "sg-903004f8",
      "nat-05dba92075d71c408",
    ]);
    expect(byId["vpc-0e9801d129EXAMPLE"]).toMatchObject({
      resource_type: "vpc",
      arn: `arn:aws:ec2:us-east-1:${ACCT}:vpc/vpc-0e9801d129EXAMPLE`,
      tags: { Name: "svcmon-vpc", "svc:purpose": "svc-infrastructure" },
      attributes: { cidr_block: "10.0.0.0/16", is_default: false, state: "available" },
    });
    expect(byId["subnet-0bb1c79de3EXAMPLE"]).toMatchObject({
      resource_type: "subnet",
      arn: SUBNET.SubnetArn,
    });
    expect(byId["sg-903004f8"]).toMatchObject({
      resource_type: "security_group",
      tags: {},
      attributes: { group_name: "svcmon-collectors", ingress_rules: 0, egress_rules: 1 },
    });
    expect(byId["nat-05dba92075d71c408"]).toMatchObject({
      resource_type: "nat_gateway",
      arn: `arn:aws:ec2:us-east-1:${ACCT}:natgateway/nat-05dba92075d71c408`,
      attributes: { public_ips: ["198.11.222.333"], connectivity_type: "public" },
    });
  });

  it("one API refused and one throttled past the client's attempts: partial over the others, both named", async () => {
    ec2.on(DescribeVpcsCommand).resolves({ $metadata: meta, Vpcs: [VPC] });
    ec2.on(DescribeSubnetsCommand).rejects(throttlingException(3));
    ec2.on(DescribeSecurityGroupsCommand).resolves({ $metadata: meta, SecurityGroups: [SG] });
    ec2.on(DescribeNatGatewaysCommand).rejects(ec2Unauthorized("DescribeNatGateways"));
    const result = await run();
    expect(result.status).toBe("partial");
    expect(result.rows_inserted).toBe(2);
    expect(result.error).toMatch(
      /^DescribeSubnets page 1 failed after 3 attempts: ThrottlingException: Rate exceeded; DescribeNatGateways page 1 failed after 1 attempt: UnauthorizedOperation: /,
    );
  });

  it("every API failing fails the run", async () => {
    for (const cmd of [
      DescribeVpcsCommand,
      DescribeSubnetsCommand,
      DescribeSecurityGroupsCommand,
      DescribeNatGatewaysCommand,
    ] as const) {
      ec2.on(cmd).rejects(ec2Unauthorized(cmd.name.replace(/Command$/, "")));
    }
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AwsCollectError);
    expect((err as AwsCollectError).problems).toHaveLength(4);
  });

  it("stops paging an API that repeats a NextToken, keeping what it read", async () => {
    ec2.on(DescribeVpcsCommand).resolves({ $metadata: meta, Vpcs: [VPC], NextToken: "same" });
    ec2.on(DescribeSubnetsCommand).resolves({ $metadata: meta, Subnets: [] });
    ec2.on(DescribeSecurityGroupsCommand).resolves({ $metadata: meta, SecurityGroups: [] });
    ec2.on(DescribeNatGatewaysCommand).resolves({ $metadata: meta, NatGateways: [] });
    const result = await run();
    expect(result).toMatchObject({
      status: "partial",
      rows_inserted: 1,
      error: "DescribeVpcs page 2 repeated an earlier NextToken; paging stopped",
    });
    expect(ec2.commandCalls(DescribeVpcsCommand)).toHaveLength(2);
  });
});
