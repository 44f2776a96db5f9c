/** ARNs of EC2 resources (pure): `arn:<partition>:ec2:<region>:<account>:<type>/<id>`. */

/** The partition of a region. */
export function partitionOf(region: string): string {
  if (region.startsWith("cn-")) return "aws-cn";
  if (region.startsWith("us-gov-")) return "aws-us-gov";
  return "aws";
}

export function ec2Arn(region: string, accountId: string, resource: string): string {
  return `arn:${partitionOf(region)}:ec2:${region}:${accountId}:${resource}`;
}

/** The ARN resource part per resource type (instance/…, volume/…, natgateway/…). */
const ARN_TYPES: Readonly<Record<string, string>> = {
  ec2_instance: "instance",
  ebs_volume: "volume",
  vpc: "vpc",
  subnet: "subnet",
  security_group: "security-group",
  nat_gateway: "natgateway",
};

/** The ARN of a resource of a known EC2 type; "" for other types. */
export function resourceArn(type: string, region: string, accountId: string, id: string): string {
  const t = ARN_TYPES[type];
  return t === undefined ? "" : ec2Arn(region, accountId, `${t}/${id}`);
}
