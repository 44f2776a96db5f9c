/**
 * The hierarchy rules config (docs/monitor-cost.md): ordered tag rules that place a resource (or a
 * cost line) in a node of the resource hierarchy, and what identifies the service's own resources.
 * The `svc-infrastructure` rule is built in, always first, and cannot be overridden: user rules may
 * neither match `svc:purpose` nor produce a node under `svc-infrastructure` or `unassigned`.
 */
import { at, type Issue, isPlainObject, type Result } from "../result.ts";
import { curTagKey, SVC_INFRASTRUCTURE, SVC_PURPOSE_TAG, trimSpaces } from "./tags.ts";

export interface TagRule {
  /** AWS tag key, as written on resources (case-sensitive), e.g. `team`. */
  tag: string;
  /** Only this value (compared after trimming spaces); absent: any non-empty value. */
  equals?: string;
  /** Node template: `/`-separated segments; `{value}` is the tag's value, `{account}` the account id. */
  node: string;
}

/** What identifies a resource as the service's own when it lacks `svc:purpose=svc-infrastructure`. */
export interface ServiceOwnershipRules {
  /** Case-insensitive prefixes of the resource's id, `Name` tag or a name in its ARN, e.g. `svcmon-`. */
  name_prefixes: string[];
  /** Patterns of the `aws:cloudformation:stack-name` tag (`*` matches any run of characters). */
  stack_names: string[];
}

export interface HierarchyRules {
  rules: TagRule[];
  service: ServiceOwnershipRules;
}

/** Root of nodes for resources no rule places; `unassigned/<account>`. */
export const UNASSIGNED_ROOT = "unassigned";

/** The monitor's own naming (infra/: stacks svcmon-Monitor and svcmon-CollectorRole, functions
 * svcmon-*, bucket svcmon-cur-*, secrets svcmon/*). */
export const DEFAULT_SERVICE_OWNERSHIP: ServiceOwnershipRules = {
  name_prefixes: ["svcmon-", "svcmon/"],
  stack_names: ["svcmon-*"],
};

export const DEFAULT_HIERARCHY_RULES: HierarchyRules = {
  rules: [
    { tag: "team", node: "teams/{value}" },
    { tag: "cost-center", node: "cost-centers/{value}" },
    { tag: "env", node: "environments/{value}/{account}" },
  ],
  service: DEFAULT_SERVICE_OWNERSHIP,
};

const PLACEHOLDER = /\{([^{}]*)\}/g;
const PLACEHOLDERS = new Set(["value", "account"]);
const MAX_TAG_KEY = 128;
const MAX_NODE = 512;

function checkTemplate(node: string, path: string, errors: Issue[]): void {
  if (node.length > MAX_NODE) {
    errors.push({ path, message: `must be at most ${MAX_NODE} characters` });
    return;
  }
  for (const m of node.matchAll(PLACEHOLDER)) {
    if (!PLACEHOLDERS.has(m[1] as string)) {
      errors.push({ path, message: `unknown placeholder {${m[1]}}: use {value} or {account}` });
    }
  }
  if (/[{}]/.test(node.replace(PLACEHOLDER, ""))) {
    errors.push({ path, message: "has an unmatched { or }" });
  }
  const segments = node.split("/");
  if (segments.some((s) => trimSpaces(s) === "")) {
    errors.push({ path, message: "must be /-separated segments, none of them empty" });
    return;
  }
  const root = segments[0] as string;
  if (root === SVC_INFRASTRUCTURE || root === UNASSIGNED_ROOT) {
    errors.push({
      path,
      message: `must not start with ${root}: that node is reserved (${root === SVC_INFRASTRUCTURE ? "svc:purpose=svc-infrastructure only" : "resources no rule places"})`,
    });
  }
}

function checkKeys(
  input: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  errors: Issue[],
) {
  for (const key of Object.keys(input)) {
    if (!allowed.includes(key)) {
      errors.push({ path: at(path, key), message: `unknown field (expected ${allowed.join(", ")})` });
    }
  }
}

function stringList(value: unknown, path: string, errors: Issue[]): string[] {
  if (!Array.isArray(value)) {
    errors.push({ path, message: "must be an array of strings" });
    return [];
  }
  const out: string[] = [];
  value.forEach((v, i) => {
    if (typeof v !== "string" || trimSpaces(v) === "") {
      errors.push({ path: at(path, i), message: "must be a non-empty string" });
    } else out.push(v);
  });
  return out;
}

function validateRule(input: unknown, path: string, errors: Issue[]): TagRule | undefined {
  if (!isPlainObject(input)) {
    errors.push({ path, message: "must be an object with tag and node" });
    return undefined;
  }
  const before = errors.length;
  checkKeys(input, ["tag", "equals", "node"], path, errors);
  const { tag, equals, node } = input;
  if (typeof tag !== "string" || trimSpaces(tag) === "") {
    errors.push({ path: at(path, "tag"), message: "must be a non-empty string" });
  } else if (tag.length > MAX_TAG_KEY) {
    errors.push({ path: at(path, "tag"), message: `must be at most ${MAX_TAG_KEY} characters` });
  } else if (curTagKey(tag) === curTagKey(SVC_PURPOSE_TAG)) {
    errors.push({
      path: at(path, "tag"),
      message: `${SVC_PURPOSE_TAG} is reserved: the svc-infrastructure rule is built in and always first`,
    });
  }
  if (equals !== undefined) {
    if (typeof equals !== "string" || equals === "") {
      errors.push({ path: at(path, "equals"), message: "must be a non-empty string when given" });
    } else if (trimSpaces(equals) !== equals) {
      errors.push({
        path: at(path, "equals"),
        message: "must not start or end with a space (values are compared trimmed)",
      });
    }
  }
  if (typeof node !== "string" || node === "") {
    errors.push({ path: at(path, "node"), message: "must be a non-empty string" });
  } else checkTemplate(node, at(path, "node"), errors);
  if (errors.length > before) return undefined;
  const rule: TagRule = { tag: tag as string, node: node as string };
  if (equals !== undefined) rule.equals = equals as string;
  return rule;
}

/**
 * Validates a rules config (parsed JSON). Every problem is reported with its path (`rules[2].node`);
 * unknown fields are errors (a misspelt key would otherwise be silently ignored). `service` defaults
 * to DEFAULT_SERVICE_OWNERSHIP; `rules` is required (an empty list sends everything to `unassigned`).
 */
export function validateHierarchyRules(input: unknown): Result<HierarchyRules> {
  if (!isPlainObject(input)) return { ok: false, errors: [{ path: "", message: "must be an object" }] };
  const errors: Issue[] = [];
  checkKeys(input, ["rules", "service"], "", errors);
  const rules: TagRule[] = [];
  if (!Array.isArray(input.rules)) {
    errors.push({ path: "rules", message: "is required: an array of {tag, equals?, node}" });
  } else {
    input.rules.forEach((r, i) => {
      const path = at("rules", i);
      const rule = validateRule(r, path, errors);
      if (rule === undefined) return;
      // A rule that an earlier one always pre-empts would never place anything: a config mistake.
      const earlier = rules.findIndex(
        (e) =>
          curTagKey(e.tag) === curTagKey(rule.tag) && (e.equals === undefined || e.equals === rule.equals),
      );
      if (earlier >= 0) {
        errors.push({
          path,
          message: `never matches: rules[${earlier}] already places every resource this rule would`,
        });
      }
      rules.push(rule);
    });
  }
  let service: ServiceOwnershipRules = {
    name_prefixes: [...DEFAULT_SERVICE_OWNERSHIP.name_prefixes],
    stack_names: [...DEFAULT_SERVICE_OWNERSHIP.stack_names],
  };
  if (input.service !== undefined) {
    if (!isPlainObject(input.service)) {
      errors.push({ path: "service", message: "must be an object with name_prefixes and stack_names" });
    } else {
      checkKeys(input.service, ["name_prefixes", "stack_names"], "service", errors);
      service = {
        name_prefixes:
          input.service.name_prefixes === undefined
            ? service.name_prefixes
            : stringList(input.service.name_prefixes, "service.name_prefixes", errors),
        stack_names:
          input.service.stack_names === undefined
            ? service.stack_names
            : stringList(input.service.stack_names, "service.stack_names", errors),
      };
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { rules, service } };
}

/** JSON text → rules (a JSON syntax error is one issue at the root). */
export function parseHierarchyRules(text: string): Result<HierarchyRules> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [{ path: "", message: `not valid JSON: ${(err as Error).message}` }] };
  }
  return validateHierarchyRules(parsed);
}
