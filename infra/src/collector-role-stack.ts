/**
 * Deployed into every monitored account (or as a StackSet over an organizational unit): the
 * read-only role the collectors assume there. It trusts only the collector functions' execution
 * roles of the monitoring account, and only with the external id.
 */
import { Aws, CfnOutput, CfnParameter, Duration, Stack, type StackProps } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import type { Construct } from "constructs";
import { COLLECTOR_EXECUTION_ROLE_PREFIX, COLLECTOR_ROLE_NAME } from "./monitor-stack.ts";
import { tagMonitoringService } from "./tagging.ts";

/**
 * What the AWS collectors call in a monitored account (packages/monitor/aws: config_ec2,
 * config_ebs, config_network, and the region source). EC2 Describe* calls have no resource-level
 * permissions, so the resource is "*"; the actions are the whole grant.
 */
export const COLLECTOR_READ_ACTIONS = [
  "ec2:DescribeInstances",
  "ec2:DescribeVolumes",
  "ec2:DescribeVpcs",
  "ec2:DescribeSubnets",
  "ec2:DescribeSecurityGroups",
  "ec2:DescribeNatGateways",
  "ec2:DescribeRegions",
];

export class CollectorRoleStack extends Stack {
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    tagMonitoringService(this);

    const monitorAccount = new CfnParameter(this, "MonitorAccountId", {
      type: "String",
      description: "Account of the monitoring service (where svcmon-Monitor runs)",
      allowedPattern: "^\\d{12}$",
    });
    const externalId = new CfnParameter(this, "CollectorExternalId", {
      type: "String",
      description: "The same value as svcmon-Monitor's CollectorExternalId",
      allowedPattern: "^[\\w+=,.@:/-]{2,1224}$",
    });

    this.role = new iam.Role(this, "CollectorRole", {
      roleName: COLLECTOR_ROLE_NAME,
      description: "Read-only inventory role assumed by the monitoring service's collectors",
      maxSessionDuration: Duration.hours(1),
      assumedBy: new iam.AccountPrincipal(monitorAccount.valueAsString).withConditions({
        StringEquals: { "sts:ExternalId": externalId.valueAsString },
        ArnLike: {
          "aws:PrincipalArn": `arn:${Aws.PARTITION}:iam::${monitorAccount.valueAsString}:role/${COLLECTOR_EXECUTION_ROLE_PREFIX}*`,
        },
      }),
    });
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: COLLECTOR_READ_ACTIONS, resources: ["*"] }),
    );

    new CfnOutput(this, "CollectorRoleArn", { value: this.role.roleArn });
  }
}
