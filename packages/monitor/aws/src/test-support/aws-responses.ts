/**
 * Responses and errors shaped like the ones the AWS API reference documents (DescribeInstances,
 * DescribeVolumes, the VPC Describe calls, STS AssumeRole, SQS SendMessageBatch), for tests run
 * with aws-sdk-client-mock. The values are invented; the shapes and error codes are AWS's.
 * aws-sdk-client-mock replaces `send`, so the SDK's retries do not run under it: an error made with
 * `attempts` > 1 stands for the one the SDK throws after that many attempts (`$metadata.attempts`).
 */
import {
  type DescribeInstancesCommandOutput,
  type DescribeVolumesCommandOutput,
  EC2ServiceException,
  type Instance,
  type Volume,
} from "@aws-sdk/client-ec2";
import { type AssumeRoleCommandOutput, STSServiceException } from "@aws-sdk/client-sts";

const meta = (httpStatusCode: number, attempts = 1) => ({
  httpStatusCode,
  requestId: "59dbff89-35bd-4eac-99ed-be587EXAMPLE",
  attempts,
  totalRetryDelay: 0,
});

export function assumeRoleOutput(
  accountId: string,
  expiration: Date,
  keySuffix = "EXAMPLE",
): AssumeRoleCommandOutput {
  return {
    $metadata: meta(200),
    Credentials: {
      AccessKeyId: `ASIAIOSFODNN7${keySuffix}`,
      SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
      SessionToken: "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQW",
      Expiration: expiration,
    },
    AssumedRoleUser: {
      AssumedRoleId: "AROA3XFRBF535PLBIFPI4:svcmon-collector",
      Arn: `arn:aws:sts::${accountId}:assumed-role/svcmon-collector/svcmon-collector`,
    },
    PackedPolicySize: 0,
  };
}

/** STS's answer when the role's trust policy (or external id) refuses the caller. */
export function assumeRoleAccessDenied(accountId: string): STSServiceException {
  return new STSServiceException({
    name: "AccessDenied",
    $fault: "client",
    $metadata: meta(403),
    message:
      "User: arn:aws:sts::999999999999:assumed-role/svcmon-runtime/svcmon is not authorized to perform: " +
      `sts:AssumeRole on resource: arn:aws:iam::${accountId}:role/svcmon-collector`,
  });
}

export function stsThrottling(attempts = 1): STSServiceException {
  return new STSServiceException({
    name: "Throttling",
    $fault: "client",
    $metadata: meta(400, attempts),
    message: "Rate exceeded",
  });
}

/** EC2's throttling error (HTTP 503, code RequestLimitExceeded). */
export function ec2RequestLimitExceeded(attempts = 1): EC2ServiceException {
  return new EC2ServiceException({
    name: "RequestLimitExceeded",
    $fault: "client",
    $metadata: meta(503, attempts),
    message: "Request limit exceeded.",
  });
}

/** The error name used by newer AWS services and the SDK's own throttling classification. */
export function throttlingException(attempts = 1): EC2ServiceException {
  return new EC2ServiceException({
    name: "ThrottlingException",
    $fault: "client",
    $metadata: meta(400, attempts),
    message: "Rate exceeded",
  });
}

export function ec2Unauthorized(action: string): EC2ServiceException {
  return new EC2ServiceException({
    name: "UnauthorizedOperation",
    $fault: "client",
    $metadata: meta(403),
    message: `You are not authorized to perform this operation. User: arn:aws:sts::111111111111:assumed-role/svcmon-collector/svcmon-collector is not authorized to perform: ec2:${action} because no identity-based policy allows the ec2:${action} action`,
  });
}

export function instance(
  id: string,
  opts: Partial<Instance> & { tags?: Record<string, string> } = {},
): Instance {
  const { tags, ...rest } = opts;
  return {
    InstanceId: id,
    ImageId: "ami-0abcdef1234567890",
    InstanceType: "t3.micro",
    State: { Code: 16, Name: "running" },
    Placement: { AvailabilityZone: "us-east-1a", GroupName: "", Tenancy: "default" },
    LaunchTime: new Date("2024-05-01T10:00:00.000Z"),
    PrivateIpAddress: "10.0.1.23",
    SubnetId: "subnet-0bb1c79de3EXAMPLE",
    VpcId: "vpc-0ec95b4d0eEXAMPLE",
    Architecture: "x86_64",
    PlatformDetails: "Linux/UNIX",
    BlockDeviceMappings: [
      {
        DeviceName: "/dev/xvda",
        Ebs: {
          AttachTime: new Date("2024-05-01T10:00:01.000Z"),
          DeleteOnTermination: true,
          Status: "attached",
          VolumeId: `vol-${id.slice(2)}`,
        },
      },
    ],
    Tags: Object.entries(tags ?? {}).map(([Key, Value]) => ({ Key, Value })),
    ...rest,
  };
}

/**
 * The resource row the EC2 collector makes of `instance(id, { tags })` (every other field as that
 * fixture sets it), seen from `account` / `region` at `observedAt` by run `runId`.
 */
export function instanceRow(
  id: string,
  tags: Record<string, string>,
  at: { account: string; region: string; observedAt: number; runId: string },
) {
  return {
    resource_id: id,
    resource_type: "ec2_instance",
    arn: `arn:aws:ec2:${at.region}:${at.account}:instance/${id}`,
    cloud_account_id: at.account,
    cloud_region: at.region,
    tags,
    attributes: {
      instance_type: "t3.micro",
      state: "running",
      availability_zone: "us-east-1a",
      launch_time: "2024-05-01T10:00:00.000Z",
      vpc_id: "vpc-0ec95b4d0eEXAMPLE",
      subnet_id: "subnet-0bb1c79de3EXAMPLE",
      image_id: "ami-0abcdef1234567890",
      platform: "Linux/UNIX",
      architecture: "x86_64",
      lifecycle: "on-demand",
      private_ip: "10.0.1.23",
      volume_ids: [`vol-${id.slice(2)}`],
    },
    observed_at: at.observedAt,
    run_id: at.runId,
    collector: "config_ec2",
  };
}

/** One page of DescribeInstances: one reservation per instance, NextToken when more follow. */
export function instancesPage(instances: Instance[], nextToken?: string): DescribeInstancesCommandOutput {
  return {
    $metadata: meta(200),
    Reservations: instances.map((i, n) => ({
      ReservationId: `r-0${n}1234567890abcdef`,
      OwnerId: "111111111111",
      Groups: [],
      Instances: [i],
    })),
    ...(nextToken === undefined ? {} : { NextToken: nextToken }),
  };
}

export function volume(id: string, opts: Partial<Volume> & { tags?: Record<string, string> } = {}): Volume {
  const { tags, ...rest } = opts;
  return {
    VolumeId: id,
    Size: 100,
    VolumeType: "gp3",
    Iops: 3000,
    Throughput: 125,
    Encrypted: true,
    State: "in-use",
    AvailabilityZone: "us-east-1a",
    CreateTime: new Date("2024-05-01T10:00:00.000Z"),
    SnapshotId: "",
    MultiAttachEnabled: false,
    Attachments: [
      {
        AttachTime: new Date("2024-05-01T10:00:01.000Z"),
        Device: "/dev/xvda",
        InstanceId: "i-1234567890abcdef0",
        State: "attached",
        VolumeId: id,
        DeleteOnTermination: true,
      },
    ],
    Tags: Object.entries(tags ?? {}).map(([Key, Value]) => ({ Key, Value })),
    ...rest,
  };
}

export function volumesPage(volumes: Volume[], nextToken?: string): DescribeVolumesCommandOutput {
  return {
    $metadata: meta(200),
    Volumes: volumes,
    ...(nextToken === undefined ? {} : { NextToken: nextToken }),
  };
}
