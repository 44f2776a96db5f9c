/**
 * The hierarchy rules config (docs/monitor-cost.md): the defaults of @monitor/core, or a JSON file
 * named by HIERARCHY_RULES. Reading is here; validation is the core's validateHierarchyRules.
 */
import { readFile } from "node:fs/promises";
import { DEFAULT_HIERARCHY_RULES, type HierarchyRules, parseHierarchyRules } from "@monitor/core";

export class HierarchyRulesError extends Error {
  override name = "HierarchyRulesError";
}

/** Reads and validates a rules file; every problem is named with its path in the file. */
export async function loadHierarchyRules(path: string): Promise<HierarchyRules> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new HierarchyRulesError(`hierarchy rules ${path}: cannot read: ${(err as Error).message}`);
  }
  const parsed = parseHierarchyRules(text);
  if (!parsed.ok) {
    const problems = parsed.errors.map((e) => `${e.path || "(root)"}: ${e.message}`).join("; ");
    throw new HierarchyRulesError(`hierarchy rules ${path}: ${problems}`);
  }
  return parsed.value;
}

/** HIERARCHY_RULES (a JSON file path) when set, else the defaults. */
export async function hierarchyRulesFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<HierarchyRules> {
  const path = env.HIERARCHY_RULES;
  return path === undefined || path === "" ? DEFAULT_HIERARCHY_RULES : loadHierarchyRules(path);
}
