/**
 * The resource hierarchy rules of the functions that place resources or cost lines (hierarchy_builder
 * in the collector function, svcmon-cur-ingest). A function has no rules file, so the stack puts the
 * rules themselves in HIERARCHY_RULES_JSON (infra: `-c svcmon-Monitor:hierarchyRules=<file>`); unset
 * or blank means the built-in rules (docs/monitor-cost.md).
 */
import {
  DEFAULT_HIERARCHY_RULES,
  type HierarchyRules,
  parseHierarchyRules,
  type Result,
} from "@monitor/core";

export const HIERARCHY_RULES_JSON = "HIERARCHY_RULES_JSON";

/** The rules of HIERARCHY_RULES_JSON, or the defaults; problems name the variable and the field. */
export function hierarchyRulesFromLambdaEnv(
  env: Readonly<Record<string, string | undefined>>,
): Result<HierarchyRules> {
  const text = env[HIERARCHY_RULES_JSON]?.trim() ?? "";
  if (text === "") return { ok: true, value: DEFAULT_HIERARCHY_RULES };
  const parsed = parseHierarchyRules(text);
  if (parsed.ok) return parsed;
  return {
    ok: false,
    errors: parsed.errors.map((e) => ({
      path: e.path === "" ? HIERARCHY_RULES_JSON : `${HIERARCHY_RULES_JSON}.${e.path}`,
      message: e.message,
    })),
  };
}
