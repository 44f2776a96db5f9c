import {
  MISSING_NAN,
  MISSING_NONE,
  MISSING_ZERO,
  type ModelDraft,
  type ObjectiveParams,
  type TreeArrays,
} from "../artifact/model.ts";
import { knownObjectives, outputTransform } from "../artifact/objectives.ts";
import { validateTree } from "../artifact/validate-trees.ts";
import { at, describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "../result.ts";
import { uniqueNames } from "./shared.ts";

// LightGBM writes aliases in some versions; the artifact stores the canonical name.
const ALIASES: Record<string, string> = {
  regression_l2: "regression",
  l2: "regression",
  mean_squared_error: "regression",
  mse: "regression",
  l2_root: "regression",
  root_mean_squared_error: "regression",
  rmse: "regression",
  l1: "regression_l1",
  mean_absolute_error: "regression_l1",
  mae: "regression_l1",
  xentropy: "cross_entropy",
};

const MISSING: Record<string, number> = { None: MISSING_NONE, Zero: MISSING_ZERO, NaN: MISSING_NAN };

/** `"binary sigmoid:1"` → name and parameters. */
export function parseLightgbmObjective(raw: string): { name: string; params: ObjectiveParams } {
  const [head = "", ...rest] = raw.trim().split(/\s+/);
  const params: ObjectiveParams = {};
  for (const part of rest) {
    const [key, value] = part.split(":");
    if (key === "sigmoid" && value !== undefined) params.sigmoid = Number(value);
  }
  return { name: ALIASES[head] ?? head, params };
}

function convertTree(structure: unknown, path: string, nFeatures: number): Result<TreeArrays> {
  const out: TreeArrays = { left: [], right: [], feature: [], value: [], defaultLeft: [], missingType: [] };
  const missingType = out.missingType as number[];
  const stack: [node: unknown, nodePath: string, parent: number, side: "left" | "right" | null][] = [
    [structure, path, -1, null],
  ];
  while (stack.length > 0) {
    const [node, nodePath, parent, side] = stack.pop() as [unknown, string, number, "left" | "right" | null];
    if (!isPlainObject(node))
      return fail([issue(nodePath, `must be a node object, got ${describeType(node)}`)]);
    const id = out.left.length;
    if (parent >= 0 && side !== null) out[side][parent] = id;
    out.left.push(-1);
    out.right.push(-1);
    if ("leaf_value" in node || !("split_feature" in node)) {
      if (Array.isArray(node.leaf_coeff) && node.leaf_coeff.length > 0) {
        return fail([
          issue(at(nodePath, "leaf_coeff"), "linear trees are not supported; train with linear_tree=false"),
        ]);
      }
      if (typeof node.leaf_value !== "number" || !Number.isFinite(node.leaf_value)) {
        return fail([
          issue(at(nodePath, "leaf_value"), `must be a finite number, got ${describeType(node.leaf_value)}`),
        ]);
      }
      out.feature.push(-1);
      out.value.push(node.leaf_value);
      out.defaultLeft.push(0);
      missingType.push(MISSING_NONE);
      continue;
    }
    if (node.decision_type !== "<=") {
      const what =
        node.decision_type === "=="
          ? "categorical splits are not supported; encode categories as numbers"
          : `unknown decision_type ${JSON.stringify(node.decision_type)}`;
      return fail([issue(at(nodePath, "decision_type"), what)]);
    }
    const f = node.split_feature;
    if (!Number.isInteger(f) || (f as number) < 0 || (f as number) >= nFeatures) {
      return fail([
        issue(
          at(nodePath, "split_feature"),
          `feature index ${JSON.stringify(f)} is out of range (the model has ${nFeatures} features)`,
        ),
      ]);
    }
    if (typeof node.threshold !== "number" || !Number.isFinite(node.threshold)) {
      return fail([
        issue(at(nodePath, "threshold"), `must be a finite number, got ${describeType(node.threshold)}`),
      ]);
    }
    const missing = MISSING[String(node.missing_type ?? "None")];
    if (missing === undefined)
      return fail([
        issue(
          at(nodePath, "missing_type"),
          `must be None, Zero or NaN, got ${JSON.stringify(node.missing_type)}`,
        ),
      ]);
    out.feature.push(f as number);
    out.value.push(node.threshold);
    out.defaultLeft.push(node.default_left === true ? 1 : 0);
    missingType.push(missing);
    stack.push(
      [node.right_child, at(nodePath, "right_child"), id, "right"],
      [node.left_child, at(nodePath, "left_child"), id, "left"],
    );
  }
  const errors = validateTree(out, path, nFeatures, "lightgbm");
  return errors.length > 0 ? fail(errors) : ok(out);
}

/**
 * Imports LightGBM `dump_model()` JSON. Leaves already include shrinkage and the initial score,
 * so the prediction is the plain sum of the trees (divided by their number with average_output).
 */
export function importLightgbm(input: unknown, options: { objective?: string } = {}): Result<ModelDraft> {
  if (!isPlainObject(input) || !Array.isArray(input.tree_info)) {
    return fail([issue("tree_info", "is missing: this is not a LightGBM dump_model JSON document")]);
  }
  const numClass = input.num_class ?? 1;
  const perIteration = input.num_tree_per_iteration ?? 1;
  if (numClass !== 1 || perIteration !== 1) {
    return fail([
      issue(
        "num_class",
        `multi-target models are not supported (num_class ${numClass}, num_tree_per_iteration ${perIteration})`,
      ),
    ]);
  }
  const rawObjective = options.objective ?? input.objective;
  if (typeof rawObjective !== "string") {
    return fail([
      issue("objective", "is missing from the dump; pass the training objective explicitly (--objective)"),
    ]);
  }
  const { name, params } = parseLightgbmObjective(rawObjective);
  if (outputTransform("lightgbm", name) === undefined) {
    return fail([
      issue(
        "objective",
        `unknown objective ${JSON.stringify(rawObjective)}; supported: ${knownObjectives("lightgbm").join(", ")}`,
      ),
    ]);
  }
  if (params.sigmoid !== undefined && !(params.sigmoid > 0)) {
    return fail([
      issue("objective", `sigmoid parameter must be positive in ${JSON.stringify(rawObjective)}`),
    ]);
  }
  if (!Array.isArray(input.feature_names) || input.feature_names.length === 0) {
    return fail([issue("feature_names", "are missing: train with named features so they can be mapped")]);
  }
  const names = uniqueNames(input.feature_names, "feature_names");
  if (!names.ok) return names;
  if (input.tree_info.length === 0) return fail([issue("tree_info", "must contain at least one tree")]);

  const trees: TreeArrays[] = [];
  const errors: Issue[] = [];
  input.tree_info.forEach((info: unknown, t: number) => {
    const path = at("tree_info", t);
    if (!isPlainObject(info)) {
      errors.push(issue(path, `must be an object, got ${describeType(info)}`));
      return;
    }
    if (typeof info.num_cat === "number" && info.num_cat > 0) {
      errors.push(
        issue(at(path, "num_cat"), "categorical splits are not supported; encode categories as numbers"),
      );
      return;
    }
    const converted = convertTree(info.tree_structure, at(path, "tree_structure"), names.value.length);
    if (converted.ok) trees.push(converted.value);
    else errors.push(...converted.errors);
  });
  if (errors.length > 0) return fail(errors);

  return ok({
    semantics: "lightgbm",
    objective: name,
    objectiveParams: params,
    baseScore: 0,
    averageOutput: input.average_output === true,
    features: names.value,
    trees,
    source: {
      library: "lightgbm",
      version: typeof input.version === "string" ? `dump ${input.version}` : "unknown",
    },
  });
}
