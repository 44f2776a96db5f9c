/** `config_ec2`: EC2 instances of one account and region (DescribeInstances, paginated). */

import { DescribeInstancesCommand, type Instance } from "@aws-sdk/client-ec2";
import { type Collector, tagsFromAws } from "@monitor/core";
import { ec2Arn } from "./clients.ts";
import {
  type AwsCollectorDeps,
  awsCollector,
  type Observation,
  type PagedApi,
  type RowBase,
} from "./collect.ts";

const iso = (d: Date | undefined) => (d instanceof Date ? d.toISOString() : null);

/** Terminated instances are reported (an event) but have no svc.resources row: they are gone. */
export function instanceObservation(i: Instance, base: RowBase): Observation | null {
  if (!i.InstanceId) return null;
  const state = i.State?.Name ?? "unknown";
  return {
    stored: state !== "terminated",
    row: {
      ...base,
      resource_id: i.InstanceId,
      resource_type: "ec2_instance",
      arn: ec2Arn(base.cloud_region, base.cloud_account_id, `instance/${i.InstanceId}`),
      tags: tagsFromAws(i.Tags),
      attributes: {
        instance_type: i.InstanceType ?? null,
        state,
        availability_zone: i.Placement?.AvailabilityZone ?? null,
        launch_time: iso(i.LaunchTime),
        vpc_id: i.VpcId ?? null,
        subnet_id: i.SubnetId ?? null,
        image_id: i.ImageId ?? null,
        platform: i.PlatformDetails ?? i.Platform ?? null,
        architecture: i.Architecture ?? null,
        lifecycle: i.InstanceLifecycle ?? "on-demand",
        private_ip: i.PrivateIpAddress ?? null,
        volume_ids: (i.BlockDeviceMappings ?? []).flatMap((m) => m.Ebs?.VolumeId ?? []),
      },
    },
  };
}

export const describeInstances: PagedApi = {
  api: "DescribeInstances",
  minPageSize: 5,
  maxPageSize: 1000,
  async page(client, { nextToken, pageSize, signal }, base) {
    const out = await client.send(
      new DescribeInstancesCommand({ MaxResults: pageSize, NextToken: nextToken }),
      {
        abortSignal: signal,
      },
    );
    const observations = (out.Reservations ?? [])
      .flatMap((r) => r.Instances ?? [])
      .flatMap((i) => instanceObservation(i, base) ?? []);
    return { observations, nextToken: out.NextToken };
  },
};

export function ec2Collector(deps: AwsCollectorDeps): Collector {
  return awsCollector("config_ec2", [describeInstances], deps);
}
