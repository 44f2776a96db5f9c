/**
 * Least privilege across every stack: no Allow statement grants a whole service or every action,
 * and a resource "*" appears only where the action has no resource-level permission at all (each
 * case below, with its reason). Deny statements (TLS-only bucket and queue policies) are not grants.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  asArray,
  policyStatements,
  removeSynthesized,
  type Synthesized,
  synthesize,
} from "./test-support.ts";

afterAll(removeSynthesized);

/** Actions that IAM only grants on resource "*", and why each is needed. */
const STAR_RESOURCE_ACTIONS: Readonly<Record<string, string>> = {
  "dynamodb:ListStreams":
    "the exporter's stream mapping lists the table's streams; ListStreams has no resource type",
  "ec2:DescribeInstances": "collector read in a monitored account; EC2 Describe* have no resource type",
  "ec2:DescribeVolumes": "as above",
  "ec2:DescribeVpcs": "as above",
  "ec2:DescribeSubnets": "as above",
  "ec2:DescribeSecurityGroups": "as above",
  "ec2:DescribeNatGateways": "as above",
  "ec2:DescribeRegions": "the collectors' region source",
};

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize();
});

const names = () => synth.stacks.map((s) => s.stackName);

describe("IAM grants of every stack", () => {
  it.each([
    "dev-EcomSearch",
    "staging-EcomSearch",
    "preprod-EcomSearch",
    "prod-EcomSearch",
    "svcmon-Monitor",
    "svcmon-CollectorRole",
  ])("%s: no wildcard action, and resource * only for actions that have no resource type", (name) => {
    expect(names()).toContain(name);
    const problems: string[] = [];
    for (const { logicalId, statement } of policyStatements(synth.json(name).Resources)) {
      if (statement.Effect !== "Allow") continue;
      const actions = asArray(statement.Action) as string[];
      for (const action of actions) {
        if (action === "*" || action.endsWith(":*")) problems.push(`${logicalId}: action ${action}`);
      }
      if (asArray(statement.Resource).includes("*")) {
        for (const action of actions) {
          if (!(action in STAR_RESOURCE_ACTIONS)) problems.push(`${logicalId}: ${action} on resource *`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("lets the collectors assume only the collector role name, in whichever account is monitored", () => {
    const assume = policyStatements(synth.json("svcmon-Monitor").Resources).filter((s) =>
      asArray(s.statement.Action).includes("sts:AssumeRole"),
    );
    expect(assume.length).toBe(4);
    for (const { statement } of assume) {
      expect(statement.Resource).toEqual({
        "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":iam::*:role/svcmon-collector"]],
      });
    }
  });
});
