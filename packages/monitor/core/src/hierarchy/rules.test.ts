import { describe, expect, it } from "vitest";
import {
  DEFAULT_HIERARCHY_RULES,
  DEFAULT_SERVICE_OWNERSHIP,
  parseHierarchyRules,
  validateHierarchyRules,
} from "./rules.ts";

describe("validateHierarchyRules", () => {
  it("accepts the defaults and returns them unchanged", () => {
    expect(validateHierarchyRules(DEFAULT_HIERARCHY_RULES)).toEqual({
      ok: true,
      value: DEFAULT_HIERARCHY_RULES,
    });
  });

  it("fills service from the defaults when absent; an empty rule list is valid", () => {
    expect(validateHierarchyRules({ rules: [] })).toEqual({
      ok: true,
      value: { rules: [], service: DEFAULT_SERVICE_OWNERSHIP },
    });
  });

  it("keeps equals and a partial service override", () => {
    const r = validateHierarchyRules({
      rules: [{ tag: "env", equals: "prod", node: "production/{account}" }],
      service: { name_prefixes: ["acme-svc-"] },
    });
    expect(r).toEqual({
      ok: true,
      value: {
        rules: [{ tag: "env", equals: "prod", node: "production/{account}" }],
        service: { name_prefixes: ["acme-svc-"], stack_names: DEFAULT_SERVICE_OWNERSHIP.stack_names },
      },
    });
  });

  it.each<[string, unknown, { path: string; message: RegExp }[]]>([
    ["not an object", [], [{ path: "", message: /must be an object/ }]],
    ["rules missing", {}, [{ path: "rules", message: /is required/ }]],
    ["unknown top-level field", { rules: [], rule: [] }, [{ path: "rule", message: /unknown field/ }]],
    [
      "a rule that is not an object",
      { rules: ["team"] },
      [{ path: "rules[0]", message: /must be an object/ }],
    ],
    [
      "empty tag and missing node",
      { rules: [{ tag: " " }] },
      [
        { path: "rules[0].tag", message: /non-empty string/ },
        { path: "rules[0].node", message: /non-empty string/ },
      ],
    ],
    [
      "svc:purpose cannot be overridden",
      { rules: [{ tag: "svc:purpose", node: "mine/{value}" }] },
      [{ path: "rules[0].tag", message: /svc:purpose is reserved/ }],
    ],
    [
      "a key that is svc:purpose in cost reports is reserved too",
      { rules: [{ tag: "SVC_purpose", node: "mine/{value}" }] },
      [{ path: "rules[0].tag", message: /reserved/ }],
    ],
    [
      "node under svc-infrastructure",
      { rules: [{ tag: "team", node: "svc-infrastructure/{value}" }] },
      [{ path: "rules[0].node", message: /must not start with svc-infrastructure/ }],
    ],
    [
      "node under unassigned",
      { rules: [{ tag: "team", node: "unassigned" }] },
      [{ path: "rules[0].node", message: /must not start with unassigned/ }],
    ],
    [
      "unknown placeholder",
      { rules: [{ tag: "team", node: "teams/{team}" }] },
      [{ path: "rules[0].node", message: /unknown placeholder \{team\}/ }],
    ],
    [
      "unmatched brace",
      { rules: [{ tag: "team", node: "teams/{value" }] },
      [{ path: "rules[0].node", message: /unmatched/ }],
    ],
    [
      "empty segment",
      { rules: [{ tag: "team", node: "teams//{value}" }] },
      [{ path: "rules[0].node", message: /none of them empty/ }],
    ],
    [
      "equals with surrounding spaces never matches",
      { rules: [{ tag: "env", equals: "prod ", node: "prod" }] },
      [{ path: "rules[0].equals", message: /must not start or end with a space/ }],
    ],
    [
      "a rule an earlier one pre-empts",
      {
        rules: [
          { tag: "team", node: "teams/{value}" },
          { tag: "team", equals: "web", node: "web" },
        ],
      },
      [{ path: "rules[1]", message: /never matches: rules\[0\]/ }],
    ],
    [
      "unknown rule field",
      { rules: [{ tag: "team", node: "t/{value}", value: "x" }] },
      [{ path: "rules[0].value", message: /unknown field/ }],
    ],
    [
      "bad service lists",
      { rules: [], service: { name_prefixes: "svcmon-", stack_names: ["ok", ""] } },
      [
        { path: "service.name_prefixes", message: /array of strings/ },
        { path: "service.stack_names[1]", message: /non-empty string/ },
      ],
    ],
  ])("rejects %s, naming the path", (_name, input, expected) => {
    const r = validateHierarchyRules(input);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path)).toEqual(expected.map((e) => e.path));
    r.errors.forEach((e, i) => {
      expect(e.message).toMatch((expected[i] as { message: RegExp }).message);
    });
  });

  it("a later rule with another value of the same tag is reachable", () => {
    const r = validateHierarchyRules({
      rules: [
        { tag: "env", equals: "prod", node: "prod" },
        { tag: "env", node: "other/{value}" },
      ],
    });
    expect(r.ok).toBe(true);
  });
});

describe("parseHierarchyRules", () => {
  it("reports a JSON syntax error at the root", () => {
    const r = parseHierarchyRules("{ rules: ");
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors[0]).toMatchObject({ path: "", message: expect.stringMatching(/^not valid JSON/) });
  });

  it("parses and validates", () => {
    expect(parseHierarchyRules('{"rules":[{"tag":"team","node":"teams/{value}"}]}').ok).toBe(true);
  });
});
