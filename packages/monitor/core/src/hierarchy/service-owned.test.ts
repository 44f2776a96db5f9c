import { describe, expect, it } from "vitest";
import type { ServiceOwnershipRules } from "./rules.ts";
import {
  arnResourceNames,
  type OwnershipSubject,
  serviceOwnership,
  untaggedServiceReason,
} from "./service-owned.ts";

const SERVICE: ServiceOwnershipRules = {
  name_prefixes: ["svcmon-"],
  stack_names: ["svcmon-*", "Monitoring"],
};

describe("serviceOwnership and untaggedServiceReason (AWS keys)", () => {
  it.each<[string, OwnershipSubject, string | null, string | null]>([
    [
      "made by a monitor stack",
      { resource_id: "i-0abc", tags: { "aws:cloudformation:stack-name": "svcmon-prod" } },
      "stack svcmon-prod (aws:cloudformation:stack-name matches svcmon-*)",
      "stack svcmon-prod (aws:cloudformation:stack-name matches svcmon-*)",
    ],
    [
      "an exact stack name, case-insensitive",
      { resource_id: "vol-1", tags: { "aws:cloudformation:stack-name": "monitoring" } },
      "stack monitoring (aws:cloudformation:stack-name matches Monitoring)",
      "stack monitoring (aws:cloudformation:stack-name matches Monitoring)",
    ],
    [
      "another stack is not the service's",
      { resource_id: "i-1", tags: { "aws:cloudformation:stack-name": "shop-prod" } },
      null,
      null,
    ],
    [
      "Name tag with the prefix",
      { resource_id: "i-0abc", tags: { Name: "SvcMon-clickhouse-1" } },
      "Name tag SvcMon-clickhouse-1 starts with svcmon-",
      "Name tag SvcMon-clickhouse-1 starts with svcmon-",
    ],
    [
      "id with the prefix (an S3 bucket)",
      { resource_id: "svcmon-cur-reports", tags: {} },
      "id svcmon-cur-reports starts with svcmon-",
      "id svcmon-cur-reports starts with svcmon-",
    ],
    [
      "ARN resource name (a Lambda function)",
      { resource_id: "arn:aws:lambda:us-east-1:111111111111:function:svcmon-collector", tags: {} },
      "ARN name svcmon-collector starts with svcmon-",
      "ARN name svcmon-collector starts with svcmon-",
    ],
    [
      "ARN given separately (a secret under a path)",
      { resource_id: "x", arn: "arn:aws:secretsmanager:us-east-1:1:secret:svcmon/db-AbC", tags: {} },
      null,
      null,
    ],
    [
      "tagged svc-infrastructure: owned, but not missing the tag",
      { resource_id: "svcmon-events", tags: { "svc:purpose": "svc-infrastructure" } },
      "id svcmon-events starts with svcmon-",
      null,
    ],
    [
      "a wrong svc:purpose value still lacks the tag",
      { resource_id: "svcmon-dlq", tags: { "svc:purpose": "monitoring" } },
      "id svcmon-dlq starts with svcmon-",
      "id svcmon-dlq starts with svcmon-",
    ],
    ["nothing points at the service", { resource_id: "i-0abc", tags: { team: "web" } }, null, null],
    ["prefix only counts at the start", { resource_id: "my-svcmon-thing", tags: {} }, null, null],
  ])("%s", (_name, subject, owned, untagged) => {
    expect(serviceOwnership(subject, SERVICE, "aws")).toBe(owned);
    expect(untaggedServiceReason(subject, SERVICE, "aws")).toBe(untagged);
  });

  it("a secret whose path starts with the prefix is found by its ARN", () => {
    const service = { name_prefixes: ["svcmon/"], stack_names: [] };
    expect(
      serviceOwnership(
        { resource_id: "x", arn: "arn:aws:secretsmanager:us-east-1:1:secret:svcmon/db-AbC", tags: {} },
        service,
        "aws",
      ),
    ).toBe("ARN name svcmon/db-AbC starts with svcmon/");
  });

  it("reads CUR keys for cost lines", () => {
    const line = {
      resource_id: "i-1",
      tags: { aws_cloudformation_stack_name: "svcmon-prod", user_name: "db" },
    };
    expect(untaggedServiceReason(line, SERVICE, "cur")).toMatch(/^stack svcmon-prod/);
    expect(
      untaggedServiceReason(
        { ...line, tags: { ...line.tags, user_svc_purpose: "svc-infrastructure" } },
        SERVICE,
        "cur",
      ),
    ).toBeNull();
  });

  it("arnResourceNames", () => {
    expect(arnResourceNames("arn:aws:sqs:us-east-1:111:svcmon-events")).toEqual(["svcmon-events"]);
    expect(arnResourceNames("arn:aws:ec2:us-east-1:111:volume/vol-1")).toEqual(["volume/vol-1", "vol-1"]);
    expect(arnResourceNames("arn:aws:secretsmanager:us-east-1:1:secret:svcmon/db-AbC")).toEqual([
      "secret:svcmon/db-AbC",
      "svcmon/db-AbC",
      "db-AbC",
    ]);
    expect(arnResourceNames("i-0abc")).toEqual([]);
    expect(arnResourceNames("arn:aws:s3")).toEqual([]);
  });
});
