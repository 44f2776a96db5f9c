import { describe, expect, it } from "vitest";
import { assignNode, nodeFor, nodeForCurTags, nodeSegment } from "./node-for.ts";
import { DEFAULT_HIERARCHY_RULES, type HierarchyRules } from "./rules.ts";
import { curTagKey } from "./tags.ts";

const RULES: HierarchyRules = {
  rules: [
    { tag: "env", equals: "prod", node: "production/{account}" },
    { tag: "team", node: "teams/{value}" },
    { tag: "cost-center", node: "cost-centers/{value}/{account}" },
  ],
  service: { name_prefixes: [], stack_names: [] },
};
const ACCOUNT = "111111111111";

describe("nodeFor (AWS tag keys)", () => {
  it.each<[string, Record<string, string>, string, string]>([
    [
      "svc:purpose=svc-infrastructure wins over every other rule",
      { "svc:purpose": "svc-infrastructure", env: "prod", team: "web" },
      "svc-infrastructure",
      "svc:purpose",
    ],
    [
      "the svc value is compared trimmed",
      { "svc:purpose": "  svc-infrastructure " },
      "svc-infrastructure",
      "svc:purpose",
    ],
    [
      "another svc:purpose value is not the service",
      { "svc:purpose": "svc-infra", team: "web" },
      "teams/web",
      "rules[1]",
    ],
    [
      "tag keys are case-sensitive",
      { "SVC:PURPOSE": "svc-infrastructure" },
      `unassigned/${ACCOUNT}`,
      "unassigned",
    ],
    [
      "first matching rule wins (order of the config)",
      { env: "prod", team: "web" },
      `production/${ACCOUNT}`,
      "rules[0]",
    ],
    ["equals must match exactly", { env: "staging", team: "web" }, "teams/web", "rules[1]"],
    [
      "an empty or blank value counts as absent",
      { team: "  ", "cost-center": "cc-7" },
      `cost-centers/cc-7/${ACCOUNT}`,
      "rules[2]",
    ],
    ["a value with / stays one segment", { team: "data/platform" }, "teams/data%2Fplatform", "rules[1]"],
    ["a value with % is encoded", { team: "50%" }, "teams/50%25", "rules[1]"],
    ["no tag at all", {}, `unassigned/${ACCOUNT}`, "unassigned"],
  ])("%s", (_name, tags, node, rule) => {
    expect(assignNode(tags, ACCOUNT, RULES)).toEqual({ node, rule });
    expect(nodeFor(tags, ACCOUNT, RULES)).toBe(node);
  });

  it("the default rules: team, then cost-center, then env", () => {
    expect(nodeFor({ env: "dev", "cost-center": "42" }, "acc", DEFAULT_HIERARCHY_RULES)).toBe(
      "cost-centers/42",
    );
    expect(nodeFor({ env: "dev" }, "acc", DEFAULT_HIERARCHY_RULES)).toBe("environments/dev/acc");
    expect(nodeFor({ Name: "x" }, "acc", DEFAULT_HIERARCHY_RULES)).toBe("unassigned/acc");
  });
});

describe("nodeForCurTags (CUR keys)", () => {
  it.each<[string, Record<string, string>, string]>([
    [
      "svc tag in CUR form",
      { user_svc_purpose: "svc-infrastructure", user_team: "web" },
      "svc-infrastructure",
    ],
    ["team in CUR form", { user_team: "web" }, "teams/web"],
    ["cost-center becomes user_cost_center", { user_cost_center: "cc-1" }, `cost-centers/cc-1/${ACCOUNT}`],
    ["an AWS key does not match in CUR form", { team: "web" }, `unassigned/${ACCOUNT}`],
  ])("%s", (_name, tags, node) => {
    expect(nodeForCurTags(tags, ACCOUNT, RULES)).toBe(node);
  });
});

describe("tag keys and segments", () => {
  it.each([
    ["svc:purpose", "user_svc_purpose"],
    ["team", "user_team"],
    ["Cost Center", "user_cost_center"],
    ["aws:cloudformation:stack-name", "aws_cloudformation_stack_name"],
    ["aws:createdBy", "aws_createdby"],
  ])("curTagKey(%s) = %s", (aws, cur) => {
    expect(curTagKey(aws)).toBe(cur);
  });

  it("nodeSegment encodes only % and /", () => {
    expect(nodeSegment("a/b%c d:e")).toBe("a%2Fb%25c d:e");
  });
});
