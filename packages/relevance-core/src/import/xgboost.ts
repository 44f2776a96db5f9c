import type { ModelDraft, TreeArrays } from "../artifact/model.ts";
import { baseMargin, knownObjectives, outputTransform } from "../artifact/objectives.ts";
import { at, describeType, fail, type Issue, isPlainObject, issue, ok, type Result } from "../result.ts";
import { flattenFromRoot, uniqueNames } from "./shared.ts";

function get(obj: unknown, path: string[]): unknown {
  let cur = obj;
  for (const key of path) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** `0.5`, `"5E-1"` (1.x, 2.x) or `"[5E-1]"` (3.x, a vector for multi-target models). */
export function parseBaseScore(raw: unknown): number[] | null {
  if (typeof raw === "number") return [raw];
  if (typeof raw !== "string") return null;
  const body = raw.trim().replace(/^\[(.*)\]$/s, "$1");
  const parts = body.split(",").map((p) => p.trim());
  const values = parts.map((p) => (p === "" ? Number.NaN : Number(p)));
  return values.every(Number.isFinite) ? values : null;
}

function intParam(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) ? n : undefined;
}

function convertTree(tree: unknown, path: string, nFeatures: number): Result<TreeArrays> {
  if (!isPlainObject(tree)) return fail([issue(path, `must be an object, got ${describeType(tree)}`)]);
  const sizeLeafVector = intParam(get(tree, ["tree_param", "size_leaf_vector"]));
  if (sizeLeafVector !== undefined && sizeLeafVector > 1) {
    return fail([
      issue(
        at(path, "tree_param.size_leaf_vector"),
        "multi-target trees are not supported; train one output",
      ),
    ]);
  }
  const splitType = tree.split_type;
  const categories = tree.categories;
  if (
    (Array.isArray(splitType) && splitType.some((t) => t !== 0)) ||
    (Array.isArray(categories) && categories.length > 0)
  ) {
    return fail([
      issue(at(path, "split_type"), "categorical splits are not supported; encode categories as numbers"),
    ]);
  }
  const arrays: Record<string, unknown[]> = {};
  for (const key of [
    "left_children",
    "right_children",
    "split_indices",
    "split_conditions",
    "default_left",
  ]) {
    const value = tree[key];
    if (!Array.isArray(value))
      return fail([issue(at(path, key), `must be an array, got ${describeType(value)}`)]);
    arrays[key] = value;
  }
  const left = arrays.left_children as unknown[];
  const n = left.length;
  for (const [key, arr] of Object.entries(arrays)) {
    if (arr.length !== n)
      return fail([issue(at(path, key), `has ${arr.length} entries but left_children has ${n}`)]);
  }
  const defaultLeft = (arrays.default_left as unknown[]).map((d) =>
    d === true || d === 1 ? 1 : d === false || d === 0 ? 0 : -1,
  );
  const bad = defaultLeft.indexOf(-1);
  if (bad !== -1) return fail([issue(at(at(path, "default_left"), bad), "must be a boolean or 0/1")]);
  // Pruning leaves deleted nodes in the arrays; only what the root reaches is the tree.
  return flattenFromRoot(
    {
      left: left as number[],
      right: arrays.right_children as number[],
      feature: arrays.split_indices as number[],
      value: arrays.split_conditions as number[],
      defaultLeft,
    },
    path,
    nFeatures,
    { left: "left_children", right: "right_children", feature: "split_indices", value: "split_conditions" },
  );
}

/** Imports XGBoost `save_model` JSON (1.x to 3.x) into a model draft; features keep their names. */
export function importXgboost(input: unknown): Result<ModelDraft> {
  if (!isPlainObject(input) || !isPlainObject(input.learner)) {
    return fail([issue("learner", "is missing: this is not an XGBoost save_model JSON document")]);
  }
  const learner = input.learner;
  const booster = get(learner, ["gradient_booster", "name"]);
  if (booster === "dart") {
    return fail([
      issue(
        "learner.gradient_booster.name",
        "dart boosters are not supported (prediction depends on per-tree drop weights); train with booster=gbtree",
      ),
    ]);
  }
  if (booster === "gblinear") {
    return fail([
      issue(
        "learner.gradient_booster.name",
        "gblinear boosters are not supported; only tree models can be exported",
      ),
    ]);
  }
  if (booster !== "gbtree") {
    return fail([
      issue("learner.gradient_booster.name", `must be "gbtree", got ${JSON.stringify(booster) ?? "nothing"}`),
    ]);
  }

  const objective = get(learner, ["objective", "name"]);
  const transform = typeof objective === "string" ? outputTransform("xgboost", objective) : undefined;
  if (typeof objective !== "string" || transform === undefined) {
    return fail([
      issue(
        "learner.objective.name",
        `unknown objective ${JSON.stringify(objective) ?? "(none)"}; supported: ${knownObjectives("xgboost").join(", ")}`,
      ),
    ]);
  }

  const param = get(learner, ["learner_model_param"]);
  const numClass = intParam(get(param, ["num_class"])) ?? 0;
  const numTarget = intParam(get(param, ["num_target"])) ?? 1;
  if (numClass > 1 || numTarget > 1) {
    return fail([
      issue(
        "learner.learner_model_param",
        `multi-target models are not supported (num_class ${numClass}, num_target ${numTarget})`,
      ),
    ]);
  }
  const baseScores = parseBaseScore(get(param, ["base_score"]));
  if (baseScores === null) {
    return fail([
      issue(
        "learner.learner_model_param.base_score",
        `is not a number: ${JSON.stringify(get(param, ["base_score"]))}`,
      ),
    ]);
  }
  if (baseScores.length !== 1) {
    return fail([
      issue(
        "learner.learner_model_param.base_score",
        "has several values: multi-target models are not supported",
      ),
    ]);
  }
  const baseScore = baseScores[0] as number;
  const margin = baseMargin(transform, baseScore);
  if (typeof margin === "string") return fail([issue("learner.learner_model_param.base_score", margin)]);

  const names = learner.feature_names;
  if (!Array.isArray(names) || names.length === 0) {
    return fail([
      issue(
        "learner.feature_names",
        "are missing: train with named features (DMatrix(feature_names=...) or a pandas DataFrame) so they can be mapped",
      ),
    ]);
  }
  const namesCheck = uniqueNames(names, "learner.feature_names");
  if (!namesCheck.ok) return namesCheck;
  const numFeature = intParam(get(param, ["num_feature"]));
  if (numFeature !== undefined && numFeature !== names.length) {
    return fail([
      issue("learner.feature_names", `has ${names.length} names but the model has ${numFeature} features`),
    ]);
  }

  const treesPath = "learner.gradient_booster.model.trees";
  const rawTrees = get(learner, ["gradient_booster", "model", "trees"]);
  if (!Array.isArray(rawTrees) || rawTrees.length === 0)
    return fail([issue(treesPath, "must be a non-empty array")]);
  const treeInfo = get(learner, ["gradient_booster", "model", "tree_info"]);
  if (Array.isArray(treeInfo) && treeInfo.some((g) => g !== 0)) {
    return fail([
      issue(
        "learner.gradient_booster.model.tree_info",
        "names several output groups: multi-target models are not supported",
      ),
    ]);
  }
  const trees: TreeArrays[] = [];
  const errors: Issue[] = [];
  rawTrees.forEach((raw: unknown, t: number) => {
    const converted = convertTree(raw, at(treesPath, t), names.length);
    if (converted.ok) trees.push(converted.value);
    else errors.push(...converted.errors);
  });
  if (errors.length > 0) return fail(errors);

  const version = Array.isArray(input.version) ? input.version.join(".") : "unknown";
  return ok({
    semantics: "xgboost",
    objective,
    objectiveParams: {},
    baseScore,
    averageOutput: false,
    features: namesCheck.value,
    trees,
    source: { library: "xgboost", version },
  });
}
