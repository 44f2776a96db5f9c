/** `config_ebs`: EBS volumes of one account and region (DescribeVolumes, paginated). */

import { DescribeVolumesCommand, type Volume } from "@aws-sdk/client-ec2";
import { type Collector, tagsFromAws } from "@monitor/core";
import { ec2Arn } from "./clients.ts";
import {
  type AwsCollectorDeps,
  awsCollector,
  type Observation,
  type PagedApi,
  type RowBase,
} from "./collect.ts";

/** A `deleted` volume is reported (an event) but has no svc.resources row: it is gone. */
export function volumeObservation(v: Volume, base: RowBase): Observation | null {
  if (!v.VolumeId) return null;
  const state = v.State ?? "unknown";
  return {
    stored: state !== "deleted",
    row: {
      ...base,
      resource_id: v.VolumeId,
      resource_type: "ebs_volume",
      arn: ec2Arn(base.cloud_region, base.cloud_account_id, `volume/${v.VolumeId}`),
      tags: tagsFromAws(v.Tags),
      attributes: {
        size_gb: v.Size ?? null,
        volume_type: v.VolumeType ?? null,
        state,
        iops: v.Iops ?? null,
        throughput: v.Throughput ?? null,
        encrypted: v.Encrypted ?? null,
        availability_zone: v.AvailabilityZone ?? null,
        create_time: v.CreateTime instanceof Date ? v.CreateTime.toISOString() : null,
        attached_to: v.Attachments?.[0]?.InstanceId ?? null,
        snapshot_id: v.SnapshotId || null,
      },
    },
  };
}

export const describeVolumes: PagedApi = {
  api: "DescribeVolumes",
  minPageSize: 5,
  maxPageSize: 500,
  async page(client, { nextToken, pageSize, signal }, base) {
    const out = await client.send(
      new DescribeVolumesCommand({ MaxResults: pageSize, NextToken: nextToken }),
      {
        abortSignal: signal,
      },
    );
    const observations = (out.Volumes ?? []).flatMap((v) => volumeObservation(v, base) ?? []);
    return { observations, nextToken: out.NextToken };
  },
};

export function ebsCollector(deps: AwsCollectorDeps): Collector {
  return awsCollector("config_ebs", [describeVolumes], deps);
}
