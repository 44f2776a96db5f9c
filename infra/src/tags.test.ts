/**
 * Every resource of the monitoring service carries svc:purpose=svc-infrastructure.
 * Taggability comes from the CloudFormation resource specification, as aws-cdk-lib generates it: an
 * L1 resource whose type has a tags property has a TagManager. A resource type without one must be in
 * the reviewed list below, with the reason it cannot carry a tag; an unknown untaggable type fails.
 */
import { DEFAULT_COLLECTORS } from "@monitor/core";
import { TagManager } from "aws-cdk-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLLECTOR_ROLE_STACK, MONITOR_STACK } from "./build-app.ts";
import { SEARCH_ENVIRONMENTS } from "./environments.ts";
import { SVC_PURPOSE_KEY, SVC_PURPOSE_VALUE } from "./tagging.ts";
import {
  asArray,
  type CfnResourceJson,
  cfnResources,
  policyStatements,
  removeSynthesized,
  type Synthesized,
  synthesize,
} from "./test-support.ts";

afterAll(removeSynthesized);

/** Resource types of the monitoring service that CloudFormation cannot tag, and why that is fine. */
export const UNTAGGABLE_REVIEWED: Readonly<Record<string, string>> = {
  "AWS::IAM::Policy": "an inline policy attached to a role; the role carries the tag, a policy costs nothing",
  "AWS::SQS::QueuePolicy": "the access policy of a queue; the queue carries the tag",
  "AWS::S3::BucketPolicy": "the policy of the CUR bucket; the bucket carries the tag",
  "AWS::Lambda::Permission": "a statement of a function's resource policy; the function carries the tag",
  "AWS::Lambda::Url": "the status function's HTTPS endpoint, billed as the function's invocations",
  "AWS::Lambda::EventInvokeConfig": "a function's asynchronous-invocation settings",
};

const MONITORING_STACKS = [MONITOR_STACK, COLLECTOR_ROLE_STACK];

function tagValue(tags: unknown, key: string): unknown {
  if (Array.isArray(tags)) {
    return (tags as { Key?: unknown; Value?: unknown }[]).find((t) => t.Key === key)?.Value;
  }
  if (typeof tags === "object" && tags !== null) return (tags as Record<string, unknown>)[key];
  return undefined;
}

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize();
});

describe("the app", () => {
  it("synthesizes every stack: each search environment, the monitor and the collector role", () => {
    expect(synth.stacks.map((s) => s.stackName).sort()).toEqual(
      [...SEARCH_ENVIRONMENTS.map((e) => `${e}-EcomSearch`), MONITOR_STACK, COLLECTOR_ROLE_STACK].sort(),
    );
  });
});

describe.each(MONITORING_STACKS)("%s", (name) => {
  it(`tags every taggable resource ${SVC_PURPOSE_KEY}=${SVC_PURPOSE_VALUE}; the rest are reviewed untaggable types`, () => {
    const stack = synth.stack(name);
    const resources = synth.json(name).Resources;
    const untagged: string[] = [];
    const unknownTypes: string[] = [];
    for (const { resource, logicalId } of cfnResources(stack)) {
      const type = resource.cfnResourceType;
      const manager = TagManager.isTaggable(resource)
        ? resource.tags
        : TagManager.isTaggableV2(resource)
          ? resource.cdkTagManager
          : undefined;
      if (manager === undefined) {
        if (!(type in UNTAGGABLE_REVIEWED)) unknownTypes.push(`${logicalId} (${type})`);
        continue;
      }
      // The L1 property name (tags, userPoolTags, ...) is the CloudFormation one with a lower-case first letter.
      const property = manager.tagPropertyName.charAt(0).toUpperCase() + manager.tagPropertyName.slice(1);
      const tags = resources[logicalId]?.Properties?.[property];
      if (tagValue(tags, SVC_PURPOSE_KEY) !== SVC_PURPOSE_VALUE) untagged.push(`${logicalId} (${type})`);
    }
    expect(untagged, "taggable resources without the tag").toEqual([]);
    expect(
      unknownTypes,
      "untaggable types nobody reviewed: tag them another way or add them with a reason",
    ).toEqual([]);
  });

  it("creates no custom resources (their provider functions would log to implicit, untagged log groups)", () => {
    const types = Object.values(synth.json(name).Resources).map((r) => r.Type);
    expect(
      types.filter((t) => t.startsWith("Custom::") || t === "AWS::CloudFormation::CustomResource"),
    ).toEqual([]);
  });
});

describe("what CDK's tag aspect cannot reach", () => {
  const resources = () => synth.json(MONITOR_STACK).Resources;
  const ofType = (type: string) => Object.entries(resources()).filter(([, r]) => r.Type === type);

  it("every function logs to an explicit, tagged log group of its own name, so Lambda creates none at run time", () => {
    const functions = ofType("AWS::Lambda::Function");
    expect(functions.length).toBeGreaterThan(0);
    for (const [id, fn] of functions) {
      const ref = (fn.Properties?.LoggingConfig as { LogGroup?: { Ref?: string } } | undefined)?.LogGroup
        ?.Ref;
      expect(ref, `${id} has no explicit log group`).toBeDefined();
      const group = resources()[ref as string] as CfnResourceJson;
      expect(group.Type).toBe("AWS::Logs::LogGroup");
      expect(group.Properties?.LogGroupName).toBe(`/aws/lambda/${fn.Properties?.FunctionName as string}`);
      expect(tagValue(group.Properties?.Tags, SVC_PURPOSE_KEY)).toBe(SVC_PURPOSE_VALUE);
      expect(group.Properties?.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it("no role may create log groups or carries a managed policy that could (AWSLambdaBasicExecutionRole)", () => {
    for (const [id, role] of ofType("AWS::IAM::Role")) {
      expect(role.Properties?.ManagedPolicyArns, id).toBeUndefined();
    }
    const creates = policyStatements(resources()).filter(
      ({ statement }) =>
        statement.Effect === "Allow" &&
        asArray(statement.Action).some((a) => a === "logs:CreateLogGroup" || a === "logs:*" || a === "*"),
    );
    expect(creates).toEqual([]);
  });

  it("schedules are EventBridge rules, which carry the tag (EventBridge Scheduler schedules cannot)", () => {
    expect(ofType("AWS::Scheduler::Schedule")).toEqual([]);
    const rules = ofType("AWS::Events::Rule");
    // One per collector, the alert engine's, and the CUR delivery trigger (an event pattern, no schedule).
    expect(rules.length).toBe(DEFAULT_COLLECTORS.length + 2);
    for (const [, rule] of rules)
      expect(tagValue(rule.Properties?.Tags, SVC_PURPOSE_KEY)).toBe(SVC_PURPOSE_VALUE);
  });

  it("the template carries no AWS::CDK::Metadata (an untaggable resource nobody asked for)", () => {
    expect(ofType("AWS::CDK::Metadata")).toEqual([]);
  });
});

describe.each(SEARCH_ENVIRONMENTS)("%s-EcomSearch", (env) => {
  it("is not tagged as the monitoring service (its cost is not the monitor's)", () => {
    const tagged = Object.entries(synth.json(`${env}-EcomSearch`).Resources).filter(
      ([, r]) => tagValue(r.Properties?.Tags, SVC_PURPOSE_KEY) !== undefined,
    );
    expect(tagged).toEqual([]);
  });
});
