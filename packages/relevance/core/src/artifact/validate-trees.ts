import { at, describeType, type Issue, isPlainObject, issue } from "../result.ts";
import { MISSING_NAN, type Semantics, type TreeArrays } from "./model.ts";

// A broken artifact can have thousands of bad nodes; the first few say enough.
const MAX_ISSUES = 20;

const INTEGER = { test: Number.isInteger, plural: "integers", one: "an integer" };
const FINITE = {
  test: (v: unknown): boolean => typeof v === "number" && Number.isFinite(v),
  plural: "numbers",
  one: "a finite number",
};

/** The array `tree[key]` when every element passes `kind.test`; otherwise records the first problem. */
function arrayOf(
  tree: Record<string, unknown>,
  key: string,
  kind: typeof INTEGER,
  path: string,
  errors: Issue[],
): number[] | null {
  const value = tree[key];
  if (!Array.isArray(value)) {
    errors.push(issue(at(path, key), `must be an array of ${kind.plural}, got ${describeType(value)}`));
    return null;
  }
  for (let i = 0; i < value.length; i++) {
    if (!kind.test(value[i])) {
      errors.push(issue(at(at(path, key), i), `must be ${kind.one}, got ${describeType(value[i])}`));
      return null;
    }
  }
  return value as number[];
}

/** Checks one tree's arrays and that its links form a tree rooted at node 0 covering every node. */
export function validateTree(input: unknown, path: string, nFeatures: number, semantics: Semantics): Issue[] {
  if (!isPlainObject(input)) return [issue(path, `must be an object, got ${describeType(input)}`)];
  const errors: Issue[] = [];
  const left = arrayOf(input, "left", INTEGER, path, errors);
  const right = arrayOf(input, "right", INTEGER, path, errors);
  const feature = arrayOf(input, "feature", INTEGER, path, errors);
  const value = arrayOf(input, "value", FINITE, path, errors);
  const defaultLeft = arrayOf(input, "defaultLeft", INTEGER, path, errors);
  const missingType = semantics === "lightgbm" ? arrayOf(input, "missingType", INTEGER, path, errors) : [];
  if (!left || !right || !feature || !value || !defaultLeft || !missingType) return errors;

  const n = left.length;
  if (n === 0) return [issue(at(path, "left"), "a tree needs at least one node")];
  const lengths: [string, number[]][] = [
    ["right", right],
    ["feature", feature],
    ["value", value],
    ["defaultLeft", defaultLeft],
  ];
  if (semantics === "lightgbm") lengths.push(["missingType", missingType]);
  for (const [key, arr] of lengths) {
    if (arr.length !== n) errors.push(issue(at(path, key), `has ${arr.length} entries but left has ${n}`));
  }
  if (errors.length > 0) return errors;

  for (let i = 0; i < n && errors.length < MAX_ISSUES; i++) {
    const l = left[i] as number;
    const r = right[i] as number;
    const f = feature[i] as number;
    if (defaultLeft[i] !== 0 && defaultLeft[i] !== 1) {
      errors.push(issue(at(at(path, "defaultLeft"), i), "must be 0 or 1"));
    }
    if (l === -1 || r === -1) {
      if (l !== r) {
        const which = l === -1 ? "right" : "left";
        errors.push(
          issue(
            at(at(path, which), i),
            `node ${i} has a ${which} child but no ${which === "left" ? "right" : "left"} child (missing leaf)`,
          ),
        );
      } else if (f !== -1) {
        errors.push(issue(at(at(path, "feature"), i), `leaf node ${i} must have feature -1, got ${f}`));
      }
      continue;
    }
    for (const [key, child] of [
      ["left", l],
      ["right", r],
    ] as const) {
      if (child < 0 || child >= n) {
        errors.push(
          issue(at(at(path, key), i), `child index ${child} is out of range (the tree has ${n} nodes)`),
        );
      }
    }
    if (f < 0 || f >= nFeatures) {
      errors.push(
        issue(
          at(at(path, "feature"), i),
          `feature index ${f} is out of range (the model has ${nFeatures} features)`,
        ),
      );
    }
    const threshold = value[i] as number;
    if (semantics === "xgboost" && !Number.isFinite(Math.fround(threshold))) {
      errors.push(issue(at(at(path, "value"), i), `threshold ${threshold} is not finite in float32`));
    }
    if (semantics === "lightgbm") {
      const m = missingType[i] as number;
      if (m < 0 || m > MISSING_NAN)
        errors.push(issue(at(at(path, "missingType"), i), "must be 0 (none), 1 (zero) or 2 (NaN)"));
    }
  }
  if (errors.length > 0) return errors;

  // Walk from the root: every node must be reached exactly once.
  const seen = new Uint8Array(n);
  const stack = [0];
  while (stack.length > 0) {
    const node = stack.pop() as number;
    if (seen[node] === 1)
      return [issue(path, `node ${node} is reached twice: the child links form a cycle or share a node`)];
    seen[node] = 1;
    if (left[node] !== -1) stack.push(right[node] as number, left[node] as number);
  }
  const unreachable = seen.indexOf(0);
  if (unreachable !== -1) return [issue(path, `node ${unreachable} is unreachable from the root`)];
  return [];
}

export function validateTrees(
  input: unknown,
  path: string,
  nFeatures: number,
  semantics: Semantics,
): Issue[] {
  if (!Array.isArray(input)) return [issue(path, `must be an array of trees, got ${describeType(input)}`)];
  if (input.length === 0) return [issue(path, "must contain at least one tree")];
  const errors: Issue[] = [];
  for (let t = 0; t < input.length && errors.length < MAX_ISSUES; t++) {
    errors.push(...validateTree(input[t], at(path, t), nFeatures, semantics));
  }
  return errors;
}

export type { TreeArrays };
