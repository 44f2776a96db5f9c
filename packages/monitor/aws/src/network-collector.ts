/**
 * `config_network`: VPCs, subnets, security groups and NAT gateways of one account and region
 * (DescribeVpcs, DescribeSubnets, DescribeSecurityGroups, DescribeNatGateways, each paginated).
 * One API failing does not stop the others: the run is then `partial`.
 */

import {
  DescribeNatGatewaysCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  type NatGateway,
  type SecurityGroup,
  type Subnet,
  type Vpc,
} from "@aws-sdk/client-ec2";
import { type Collector, tagsFromAws } from "@monitor/core";
import { ec2Arn } from "./clients.ts";
import {
  type AwsCollectorDeps,
  awsCollector,
  type Observation,
  type PagedApi,
  type RowBase,
} from "./collect.ts";

export function vpcObservation(v: Vpc, base: RowBase): Observation | null {
  if (!v.VpcId) return null;
  return {
    stored: true,
    row: {
      ...base,
      resource_id: v.VpcId,
      resource_type: "vpc",
      arn: ec2Arn(base.cloud_region, base.cloud_account_id, `vpc/${v.VpcId}`),
      tags: tagsFromAws(v.Tags),
      attributes: {
        cidr_block: v.CidrBlock ?? null,
        state: v.State ?? null,
        is_default: v.IsDefault ?? false,
        owner_id: v.OwnerId ?? null,
      },
    },
  };
}

export function subnetObservation(s: Subnet, base: RowBase): Observation | null {
  if (!s.SubnetId) return null;
  return {
    stored: true,
    row: {
      ...base,
      resource_id: s.SubnetId,
      resource_type: "subnet",
      arn: s.SubnetArn ?? ec2Arn(base.cloud_region, base.cloud_account_id, `subnet/${s.SubnetId}`),
      tags: tagsFromAws(s.Tags),
      attributes: {
        vpc_id: s.VpcId ?? null,
        cidr_block: s.CidrBlock ?? null,
        availability_zone: s.AvailabilityZone ?? null,
        available_ip_address_count: s.AvailableIpAddressCount ?? null,
        state: s.State ?? null,
        default_for_az: s.DefaultForAz ?? false,
      },
    },
  };
}

export function securityGroupObservation(g: SecurityGroup, base: RowBase): Observation | null {
  if (!g.GroupId) return null;
  return {
    stored: true,
    row: {
      ...base,
      resource_id: g.GroupId,
      resource_type: "security_group",
      arn:
        g.SecurityGroupArn ?? ec2Arn(base.cloud_region, base.cloud_account_id, `security-group/${g.GroupId}`),
      tags: tagsFromAws(g.Tags),
      attributes: {
        group_name: g.GroupName ?? null,
        description: g.Description ?? null,
        vpc_id: g.VpcId ?? null,
        ingress_rules: g.IpPermissions?.length ?? 0,
        egress_rules: g.IpPermissionsEgress?.length ?? 0,
      },
    },
  };
}

/** A `deleted` NAT gateway (listed for about an hour after deletion) is an event without a row. */
export function natGatewayObservation(n: NatGateway, base: RowBase): Observation | null {
  if (!n.NatGatewayId) return null;
  const state = n.State ?? "unknown";
  return {
    stored: state !== "deleted",
    row: {
      ...base,
      resource_id: n.NatGatewayId,
      resource_type: "nat_gateway",
      arn: ec2Arn(base.cloud_region, base.cloud_account_id, `natgateway/${n.NatGatewayId}`),
      tags: tagsFromAws(n.Tags),
      attributes: {
        state,
        vpc_id: n.VpcId ?? null,
        subnet_id: n.SubnetId ?? null,
        connectivity_type: n.ConnectivityType ?? null,
        create_time: n.CreateTime instanceof Date ? n.CreateTime.toISOString() : null,
        public_ips: (n.NatGatewayAddresses ?? []).flatMap((a) => a.PublicIp ?? []),
      },
    },
  };
}

export const describeVpcs: PagedApi = {
  api: "DescribeVpcs",
  minPageSize: 5,
  maxPageSize: 1000,
  async page(client, { nextToken, pageSize, signal }, base) {
    const out = await client.send(new DescribeVpcsCommand({ MaxResults: pageSize, NextToken: nextToken }), {
      abortSignal: signal,
    });
    return {
      observations: (out.Vpcs ?? []).flatMap((v) => vpcObservation(v, base) ?? []),
      nextToken: out.NextToken,
    };
  },
};

export const describeSubnets: PagedApi = {
  api: "DescribeSubnets",
  minPageSize: 5,
  maxPageSize: 1000,
  async page(client, { nextToken, pageSize, signal }, base) {
    const out = await client.send(
      new DescribeSubnetsCommand({ MaxResults: pageSize, NextToken: nextToken }),
      {
        abortSignal: signal,
      },
    );
    return {
      observations: (out.Subnets ?? []).flatMap((s) => subnetObservation(s, base) ?? []),
      nextToken: out.NextToken,
    };
  },
};

export const describeSecurityGroups: PagedApi = {
  api: "DescribeSecurityGroups",
  minPageSize: 5,
  maxPageSize: 1000,
  async page(client, { nextToken, pageSize, signal }, base) {
    const out = await client.send(
      new DescribeSecurityGroupsCommand({ MaxResults: pageSize, NextToken: nextToken }),
      { abortSignal: signal },
    );
    return {
      observations: (out.SecurityGroups ?? []).flatMap((g) => securityGroupObservation(g, base) ?? []),
      nextToken: out.NextToken,
    };
  },
};

export const describeNatGateways: PagedApi = {
  api: "DescribeNatGateways",
  minPageSize: 5,
  maxPageSize: 1000,
  async page(client, { nextToken, pageSize, signal }, base) {
    const out = await client.send(
      new DescribeNatGatewaysCommand({ MaxResults: pageSize, NextToken: nextToken }),
      {
        abortSignal: signal,
      },
    );
    return {
      observations: (out.NatGateways ?? []).flatMap((n) => natGatewayObservation(n, base) ?? []),
      nextToken: out.NextToken,
    };
  },
};

export const NETWORK_APIS: readonly PagedApi[] = [
  describeVpcs,
  describeSubnets,
  describeSecurityGroups,
  describeNatGateways,
];

export function networkCollector(deps: AwsCollectorDeps): Collector {
  return awsCollector("config_network", NETWORK_APIS, deps);
}
