/**
 * Where a resource (or a cost line) sits in the resource hierarchy: the built-in svc-infrastructure
 * rule first, then the configured tag rules in order, else `unassigned/<account>`.
 */
import { type HierarchyRules, type TagRule, UNASSIGNED_ROOT } from "./rules.ts";
import {
  isSvcInfrastructure,
  SVC_INFRASTRUCTURE,
  SVC_PURPOSE_TAG,
  type TagKeyForm,
  type Tags,
  tagValue,
  trimSpaces,
} from "./tags.ts";

export interface NodeAssignment {
  node: string;
  /** What placed it: `svc:purpose`, `rules[i]` (the config index) or `unassigned`. */
  rule: string;
}

/**
 * A tag value (or account id) as one node segment: `%` and `/` are percent-encoded, so a value can
 * neither add segments nor collide with an encoded one (`a/b` → `a%2Fb`).
 */
export function nodeSegment(value: string): string {
  return value.replaceAll("%", "%25").replaceAll("/", "%2F");
}

export function expandNode(template: string, value: string, account: string): string {
  return template.replace(/\{(value|account)\}/g, (_, name: string) =>
    nodeSegment(name === "value" ? value : account),
  );
}

/** The trimmed value that makes `rule` match, or null. */
export function ruleValue(rule: TagRule, tags: Tags, form: TagKeyForm): string | null {
  const value = trimSpaces(tagValue(tags, rule.tag, form));
  if (value === "") return null;
  if (rule.equals !== undefined && value !== rule.equals) return null;
  return value;
}

export function assignNode(
  tags: Tags,
  account: string,
  rules: HierarchyRules,
  form: TagKeyForm = "aws",
): NodeAssignment {
  if (isSvcInfrastructure(tags, form)) return { node: SVC_INFRASTRUCTURE, rule: SVC_PURPOSE_TAG };
  for (let i = 0; i < rules.rules.length; i++) {
    const rule = rules.rules[i] as TagRule;
    const value = ruleValue(rule, tags, form);
    if (value !== null) return { node: expandNode(rule.node, value, account), rule: `rules[${i}]` };
  }
  return { node: `${UNASSIGNED_ROOT}/${nodeSegment(account)}`, rule: UNASSIGNED_ROOT };
}

/** The node of a resource whose tags are AWS keys (svc.resources). */
export function nodeFor(tags: Tags, account: string, rules: HierarchyRules): string {
  return assignNode(tags, account, rules, "aws").node;
}

/** The node of a cost line whose tags are CUR keys (`user_team`). */
export function nodeForCurTags(tags: Tags, account: string, rules: HierarchyRules): string {
  return assignNode(tags, account, rules, "cur").node;
}
