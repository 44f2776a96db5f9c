/**
 * `-c svcmon-Monitor:hierarchyRules=<file>`: the resource hierarchy rules of the deployed functions,
 * from the same JSON file format as `npm start`'s HIERARCHY_RULES (docs/monitor-cost.md). Read and
 * validated at synthesis, so a bad file stops `cdk synth` / `cdk deploy` with one line naming the
 * file and each field, before anything is deployed.
 */
import { readFileSync } from "node:fs";
import { type HierarchyRules, parseHierarchyRules } from "@monitor/core";
import type { App } from "aws-cdk-lib";

export function hierarchyRulesFromContext(app: App, key: string): HierarchyRules | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") {
    throw new Error(`context ${key} must be the path of a hierarchy rules JSON file`);
  }
  let text: string;
  try {
    text = readFileSync(value, "utf8");
  } catch (err) {
    throw new Error(`context ${key}: cannot read ${value}: ${(err as Error).message}`);
  }
  const parsed = parseHierarchyRules(text);
  if (!parsed.ok) {
    const problems = parsed.errors.map((e) => `${e.path || "(root)"}: ${e.message}`).join("; ");
    throw new Error(`context ${key}: ${value}: ${problems}`);
  }
  return parsed.value;
}
