import {
  MISSING_NAN,
  MISSING_NONE,
  MISSING_ZERO,
  type ModelDraft,
  type ObjectiveParams,
  type TreeArrays,
} from "../artifact/model.ts";
import { knownObjectives, LIGHTGBM_SQRT_OBJECTIVES } from "../artifact/objectives.ts";
import { validateTree } from "../artifact/validate-trees.ts";
import { at, describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "../result.ts";
import { uniqueNames } from "./shared.ts";

// Refuse by default: the importer reads the fields below (LightGBM's GBDT::DumpModel, Tree::ToJSON
// and Tree::NodeToJSON, dump versions v2 to v4, plus the Python package's pandas_categorical) and
// refuses any other field or value, naming it. See docs/artifact-format.md, "LightGBM".

/** The `version` values of dumps whose fields are listed here (LightGBM 2.x to 4.x). */
const VERSIONS = ["v2", "v3", "v4"];

/** Top-level fields; the ones not used for prediction are checked for their type only. */
const TOP_LEVEL = new Set([
  "name",
  "version",
  "num_class",
  "num_tree_per_iteration",
  "label_index",
  "max_feature_idx",
  "objective",
  "average_output",
  "feature_names",
  "monotone_constraints",
  "feature_infos",
  "tree_info",
  "feature_importances",
  "pandas_categorical",
]);
const TREE_INFO = new Set(["tree_index", "num_leaves", "num_cat", "shrinkage", "tree_structure"]);
const SPLIT_NODE = new Set([
  "split_index",
  "split_feature",
  "split_gain",
  "threshold",
  "decision_type",
  "default_left",
  "missing_type",
  "internal_value",
  "internal_weight",
  "internal_count",
  "left_child",
  "right_child",
]);
const LEAF_NODE = new Set(["leaf_index", "leaf_value", "leaf_weight", "leaf_count"]);
/** Leaf fields of linear trees (Tree::LinearModelToJSON). */
const LINEAR_LEAF = new Set(["leaf_const", "leaf_features", "leaf_coeff"]);

const LINEAR = "linear trees are not supported; train with linear_tree=false";
const CATEGORICAL = "categorical splits are not supported; encode categories as numbers";

// LightGBM's objective aliases (config.h), for --objective; dumps write the canonical names.
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
  mean_absolute_percentage_error: "mape",
  xentropy: "cross_entropy",
};

/**
 * The objectives whose prediction the artifact reproduces exactly (objectives.ts), with the
 * parameters their `ObjectiveFunction::ToString()` writes: `sigmoid:<x>` for binary, and `sqrt`
 * (reg_sqrt) for LIGHTGBM_SQRT_OBJECTIVES.
 */
const OBJECTIVES = knownObjectives("lightgbm");

/** Objectives LightGBM has that the artifact cannot express, with what to do instead. */
const REFUSED_OBJECTIVES: Record<string, string> = {
  multiclass: "multi-class models are not supported; train one binary or regression model",
  multiclassova: "multi-class models are not supported; train one binary or regression model",
  cross_entropy_lambda:
    "its output log(1 + e^x) is not supported; train with objective=cross_entropy or binary",
  lambdarank: "ranking objectives are not supported; train a regression or binary model",
  rank_xendcg: "ranking objectives are not supported; train a regression or binary model",
  custom: "a custom objective's output transform is unknown; train with a built-in objective",
  none: "a custom objective's output transform is unknown; train with a built-in objective",
};

const MISSING: Record<string, number> = { None: MISSING_NONE, Zero: MISSING_ZERO, NaN: MISSING_NAN };

/**
 * `"binary sigmoid:1"` → name and parameters, or the reason the objective is refused. A dump always
 * writes binary's sigmoid; a training objective given by hand (`source: "option"`, e.g. `binary`)
 * may leave it out, and then gets LightGBM's default, sigmoid 1.
 */
export function parseLightgbmObjective(
  raw: string,
  source: "dump" | "option" = "dump",
): Result<{ name: string; params: ObjectiveParams }> {
  const [head = "", ...rest] = raw.trim().split(/\s+/);
  const name = ALIASES[head] ?? head;
  if (!OBJECTIVES.includes(name)) {
    const why = Object.hasOwn(REFUSED_OBJECTIVES, name)
      ? REFUSED_OBJECTIVES[name]
      : "not supported by the artifact";
    return fail([
      issue(
        "objective",
        `unknown objective ${JSON.stringify(raw)}: ${why}; supported: ${OBJECTIVES.join(", ")}`,
      ),
    ]);
  }
  const params: ObjectiveParams = {};
  for (const part of rest) {
    if (part === "sqrt" && LIGHTGBM_SQRT_OBJECTIVES.has(name) && params.sqrt === undefined) {
      params.sqrt = true;
      continue;
    }
    const [key, value, more] = part.split(":");
    if (key === "sigmoid" && name === "binary" && params.sigmoid === undefined && more === undefined) {
      const sigmoid = Number(value);
      if (!(sigmoid > 0) || !Number.isFinite(sigmoid) || value === "") {
        return fail([issue("objective", `sigmoid parameter must be positive in ${JSON.stringify(raw)}`)]);
      }
      params.sigmoid = sigmoid;
      continue;
    }
    return fail([
      issue(
        "objective",
        `parameter ${JSON.stringify(part)} of ${JSON.stringify(raw)} is not supported for ${name}`,
      ),
    ]);
  }
  if (name === "binary" && params.sigmoid === undefined && source === "option") params.sigmoid = 1;
  if (name === "binary" && params.sigmoid === undefined) {
    return fail([
      issue(
        "objective",
        `${JSON.stringify(raw)} lacks its sigmoid parameter; write it as "binary sigmoid:<x>"`,
      ),
    ]);
  }
  return ok({ name, params });
}

function unknownKeys(
  node: Record<string, unknown>,
  known: ReadonlySet<string>,
  path: string,
  what: string,
): Issue | null {
  for (const key of Object.keys(node)) {
    if (!known.has(key)) {
      return issue(
        at(path, key),
        `unknown field of a LightGBM dump ${what}; not supported (the importer reads dump_model JSON ${VERSIONS.join(", ")} and refuses what it does not know)`,
      );
    }
  }
  return null;
}

const isCount = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;

function convertLeaf(node: Record<string, unknown>, nodePath: string): Result<number> {
  for (const key of Object.keys(node)) {
    if (LINEAR_LEAF.has(key)) return fail([issue(at(nodePath, key), LINEAR)]);
  }
  const unknown = unknownKeys(node, LEAF_NODE, nodePath, "leaf");
  if (unknown) return fail([unknown]);
  if (typeof node.leaf_value !== "number" || !Number.isFinite(node.leaf_value)) {
    return fail([
      issue(at(nodePath, "leaf_value"), `must be a finite number, got ${describeType(node.leaf_value)}`),
    ]);
  }
  for (const key of ["leaf_index", "leaf_count"]) {
    if (key in node && !isCount(node[key]))
      return fail([
        issue(at(nodePath, key), `must be a non-negative integer, got ${describeType(node[key])}`),
      ]);
  }
  if ("leaf_weight" in node && typeof node.leaf_weight !== "number")
    return fail([
      issue(at(nodePath, "leaf_weight"), `must be a number, got ${describeType(node.leaf_weight)}`),
    ]);
  return ok(node.leaf_value);
}

interface Split {
  feature: number;
  threshold: number;
  defaultLeft: number;
  missingType: number;
}

function convertSplit(node: Record<string, unknown>, nodePath: string, nFeatures: number): Result<Split> {
  if (node.decision_type !== "<=") {
    const what =
      node.decision_type === "=="
        ? CATEGORICAL
        : `unknown decision_type ${JSON.stringify(node.decision_type)}; not supported (numerical "<=" splits only)`;
    return fail([issue(at(nodePath, "decision_type"), what)]);
  }
  const unknown = unknownKeys(node, SPLIT_NODE, nodePath, "split node");
  if (unknown) return fail([unknown]);
  const f = node.split_feature;
  if (!Number.isInteger(f) || (f as number) < 0 || (f as number) >= nFeatures) {
    return fail([
      issue(
        at(nodePath, "split_feature"),
        `feature index ${JSON.stringify(f)} is out of range (the model has ${nFeatures} features)`,
      ),
    ]);
  }
  // Finite: LightGBM's dump prints thresholds through AvoidInf, so ±inf appear as ±1e300.
  if (typeof node.threshold !== "number" || !Number.isFinite(node.threshold)) {
    return fail([
      issue(at(nodePath, "threshold"), `must be a finite number, got ${describeType(node.threshold)}`),
    ]);
  }
  if (typeof node.default_left !== "boolean") {
    return fail([
      issue(at(nodePath, "default_left"), `must be true or false, got ${describeType(node.default_left)}`),
    ]);
  }
  const missing =
    typeof node.missing_type === "string" && Object.hasOwn(MISSING, node.missing_type)
      ? MISSING[node.missing_type]
      : undefined;
  if (missing === undefined) {
    return fail([
      issue(
        at(nodePath, "missing_type"),
        `must be None, Zero or NaN, got ${JSON.stringify(node.missing_type) ?? "nothing"}; not supported`,
      ),
    ]);
  }
  for (const key of ["split_index", "internal_count"]) {
    if (key in node && !isCount(node[key]))
      return fail([
        issue(at(nodePath, key), `must be a non-negative integer, got ${describeType(node[key])}`),
      ]);
  }
  for (const key of ["split_gain", "internal_value", "internal_weight"]) {
    if (key in node && typeof node[key] !== "number")
      return fail([issue(at(nodePath, key), `must be a number, got ${describeType(node[key])}`)]);
  }
  return ok({
    feature: f as number,
    threshold: node.threshold,
    defaultLeft: node.default_left ? 1 : 0,
    missingType: missing,
  });
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
    const isSplit = "split_feature" in node;
    if (isSplit === "leaf_value" in node) {
      return fail([
        issue(
          nodePath,
          isSplit
            ? "has both split_feature and leaf_value; not a LightGBM dump node"
            : "has neither split_feature nor leaf_value; not a LightGBM dump node",
        ),
      ]);
    }
    if (!isSplit) {
      const leaf = convertLeaf(node, nodePath);
      if (!leaf.ok) return leaf;
      out.feature.push(-1);
      out.value.push(leaf.value);
      out.defaultLeft.push(0);
      missingType.push(MISSING_NONE);
      continue;
    }
    const split = convertSplit(node, nodePath, nFeatures);
    if (!split.ok) return split;
    out.feature.push(split.value.feature);
    out.value.push(split.value.threshold);
    out.defaultLeft.push(split.value.defaultLeft);
    missingType.push(split.value.missingType);
    stack.push(
      [node.right_child, at(nodePath, "right_child"), id, "right"],
      [node.left_child, at(nodePath, "left_child"), id, "left"],
    );
  }
  const errors = validateTree(out, path, nFeatures, "lightgbm");
  return errors.length > 0 ? fail(errors) : ok(out);
}

/** The top-level fields other than objective, feature_names and tree_info. */
function checkTopLevel(input: Record<string, unknown>): Issue | null {
  for (const key of Object.keys(input)) {
    if (!TOP_LEVEL.has(key)) {
      return issue(
        key,
        `unknown top-level field of a LightGBM dump; not supported (the importer reads dump_model JSON ${VERSIONS.join(", ")} and refuses what it does not know)`,
      );
    }
  }
  if ("name" in input && input.name !== "tree")
    return issue("name", `must be "tree" (a GBDT dump), got ${JSON.stringify(input.name)}; not supported`);
  if ("version" in input && !VERSIONS.includes(input.version as string)) {
    return issue(
      "version",
      `dump format ${JSON.stringify(input.version)} is not supported (known: ${VERSIONS.join(", ")}); export with LightGBM 2.x to 4.x`,
    );
  }
  if ("num_class" in input && input.num_class !== 1) {
    return issue(
      "num_class",
      `multi-target models are not supported (num_class ${JSON.stringify(input.num_class)}: multi-class); train one binary or regression model`,
    );
  }
  if ("num_tree_per_iteration" in input && input.num_tree_per_iteration !== 1) {
    return issue(
      "num_tree_per_iteration",
      `multi-target models are not supported (num_tree_per_iteration ${JSON.stringify(input.num_tree_per_iteration)}); train a single-output model`,
    );
  }
  if ("average_output" in input && typeof input.average_output !== "boolean")
    return issue("average_output", `must be true or false, got ${describeType(input.average_output)}`);
  for (const key of ["label_index", "max_feature_idx"]) {
    if (key in input && !isCount(input[key]))
      return issue(key, `must be a non-negative integer, got ${describeType(input[key])}`);
  }
  if (
    "monotone_constraints" in input &&
    !(Array.isArray(input.monotone_constraints) && input.monotone_constraints.every(Number.isInteger))
  )
    return issue("monotone_constraints", "must be an array of integers");
  for (const key of ["feature_infos", "feature_importances"]) {
    if (key in input && !isPlainObject(input[key]))
      return issue(key, `must be an object, got ${describeType(input[key])}`);
  }
  const pandas = input.pandas_categorical;
  if (pandas !== undefined && pandas !== null && !(Array.isArray(pandas) && pandas.length === 0))
    return issue("pandas_categorical", `pandas categorical columns are not supported; ${CATEGORICAL}`);
  return null;
}

/**
 * Imports LightGBM `dump_model()` JSON. Leaves already include shrinkage and the initial score,
 * so the prediction is the plain sum of the trees (divided by their number with average_output).
 */
export function importLightgbm(input: unknown, options: { objective?: string } = {}): Result<ModelDraft> {
  if (!isPlainObject(input) || !Array.isArray(input.tree_info)) {
    return fail([issue("tree_info", "is missing: this is not a LightGBM dump_model JSON document")]);
  }
  const top = checkTopLevel(input);
  if (top) return fail([top]);
  if ("objective" in input && typeof input.objective !== "string")
    return fail([issue("objective", `must be a string, got ${describeType(input.objective)}`)]);
  const rawObjective = options.objective ?? input.objective;
  if (typeof rawObjective !== "string") {
    return fail([
      issue("objective", "is missing from the dump; pass the training objective explicitly (--objective)"),
    ]);
  }
  const objective = parseLightgbmObjective(rawObjective, options.objective === undefined ? "dump" : "option");
  if (!objective.ok) return objective;
  const { name, params } = objective.value;
  if (options.objective !== undefined && typeof input.objective === "string") {
    // LightGBM predicts with the dump's objective; a different one given by hand would not match it.
    const own = parseLightgbmObjective(input.objective);
    if (!own.ok) return own;
    if (own.value.name !== name || JSON.stringify(own.value.params) !== JSON.stringify(params)) {
      return fail([
        issue(
          "objective",
          `the dump says ${JSON.stringify(input.objective)} but the objective given is ${JSON.stringify(options.objective)}; leave --objective out`,
        ),
      ]);
    }
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
    if ("num_cat" in info && info.num_cat !== 0) {
      errors.push(
        issue(
          at(path, "num_cat"),
          typeof info.num_cat === "number" && info.num_cat > 0
            ? CATEGORICAL
            : `must be 0, got ${describeType(info.num_cat)}`,
        ),
      );
      return;
    }
    const unknown = unknownKeys(info, TREE_INFO, path, "tree");
    if (unknown) {
      errors.push(unknown);
      return;
    }
    for (const key of ["tree_index", "num_leaves"]) {
      if (key in info && !isCount(info[key])) {
        errors.push(issue(at(path, key), `must be a non-negative integer, got ${describeType(info[key])}`));
        return;
      }
    }
    if ("shrinkage" in info && typeof info.shrinkage !== "number") {
      errors.push(issue(at(path, "shrinkage"), `must be a number, got ${describeType(info.shrinkage)}`));
      return;
    }
    const converted = convertTree(info.tree_structure, at(path, "tree_structure"), names.value.length);
    if (!converted.ok) {
      errors.push(...converted.errors);
      return;
    }
    const leaves = converted.value.feature.filter((f) => f < 0).length;
    if ("num_leaves" in info && info.num_leaves !== leaves) {
      errors.push(
        issue(
          at(path, "num_leaves"),
          `is ${info.num_leaves} but the tree has ${leaves} leaves; the dump is inconsistent`,
        ),
      );
      return;
    }
    trees.push(converted.value);
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
