import { DEFAULT_HIERARCHY_RULES } from "@monitor/core";
import { describe, expect, it } from "vitest";
import { orThrow } from "./config.ts";
import { hierarchyRulesFromLambdaEnv } from "./hierarchy-rules-env.ts";

describe("hierarchy rules of the functions (HIERARCHY_RULES_JSON)", () => {
  it("are the built-in rules when the variable is unset or blank", () => {
    expect(hierarchyRulesFromLambdaEnv({})).toEqual({ ok: true, value: DEFAULT_HIERARCHY_RULES });
    expect(hierarchyRulesFromLambdaEnv({ HIERARCHY_RULES_JSON: "  " })).toEqual({
      ok: true,
      value: DEFAULT_HIERARCHY_RULES,
    });
  });

  it("are the configured rules, with the default service conventions when the config leaves them out", () => {
    const r = hierarchyRulesFromLambdaEnv({
      HIERARCHY_RULES_JSON: JSON.stringify({ rules: [{ tag: "squad", node: "squads/{value}" }] }),
    });
    expect(r.ok && r.value.rules).toEqual([{ tag: "squad", node: "squads/{value}" }]);
    expect(r.ok && r.value.service).toEqual(DEFAULT_HIERARCHY_RULES.service);
  });

  it("stop the cold start with one line naming the variable and each field at fault", () => {
    const env = {
      HIERARCHY_RULES_JSON: JSON.stringify({
        rules: [
          { tag: "svc:purpose", node: "x" },
          { tag: "team", node: "teams/{team}" },
        ],
      }),
    };
    expect(() => orThrow("svcmon-collector", hierarchyRulesFromLambdaEnv(env))).toThrow(
      "svcmon-collector: HIERARCHY_RULES_JSON.rules[0].tag svc:purpose is reserved: the svc-infrastructure rule is built in and always first; HIERARCHY_RULES_JSON.rules[1].node unknown placeholder {team}: use {value} or {account}",
    );
  });

  it("name the variable itself when its text is not JSON", () => {
    const r = hierarchyRulesFromLambdaEnv({ HIERARCHY_RULES_JSON: "{rules:" });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors[0]).toMatchObject({ path: "HIERARCHY_RULES_JSON", message: /^not valid JSON/ });
  });
});
