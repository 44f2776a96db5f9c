import type { ModelDraft, SourceInfo, TreeArrays } from "../artifact/model.ts";
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

type Major = 1 | 2 | 3;

const allMajors = (fields: string[]): Record<Major, string[]> => ({ 1: fields, 2: fields, 3: fields });

const TREE_FIELDS = [
  "base_weights",
  "categories",
  "categories_nodes",
  "categories_segments",
  "categories_sizes",
  "default_left",
  "id",
  "left_children",
  "loss_changes",
  "parents",
  "right_children",
  "split_conditions",
  "split_indices",
  "split_type",
  "sum_hessian",
  "tree_param",
];

/**
 * Every field of `save_model` JSON this importer reads or knows to be irrelevant to predictions, by
 * the major version that writes it (1.x, 2.x, 3.x). Anything else is refused: a field we do not
 * know might change predictions.
 */
const KNOWN_FIELDS = {
  root: allMajors(["learner", "version"]),
  learner: allMajors([
    "attributes",
    "feature_names",
    "feature_types",
    "gradient_booster",
    "learner_model_param",
    "objective",
  ]),
  learner_model_param: allMajors([
    "base_score",
    "boost_from_average",
    "num_class",
    "num_feature",
    "num_target",
  ]),
  // dart up to 3.2: {name: "dart", gbtree: {name: "gbtree", model}, weight_drop}.
  dart: allMajors(["name", "gbtree", "weight_drop"]),
  // 3.3 writes dart (and gbtree trained with dropout) as {name: "gbtree", model, weight_drop}.
  gbtree: { 1: ["name", "model"], 2: ["name", "model"], 3: ["name", "model", "weight_drop"] },
  model: {
    1: ["gbtree_model_param", "tree_info", "trees"],
    2: ["gbtree_model_param", "iteration_indptr", "tree_info", "trees"],
    // 3.1 adds the categories container, 3.4 keeps dropout weights with the trees.
    3: ["cats", "gbtree_model_param", "iteration_indptr", "tree_info", "trees", "weight_drop"],
  },
  gbtree_model_param: allMajors(["num_parallel_tree", "num_trees", "size_leaf_vector"]),
  tree: allMajors(TREE_FIELDS),
  tree_param: allMajors(["num_deleted", "num_feature", "num_nodes", "size_leaf_vector"]),
} satisfies Record<string, Record<Major, string[]>>;

/**
 * The objectives whose predictions the artifact reproduces exactly, with the fields of their
 * parameter block (training-only parameters: none changes a prediction) and the versions that
 * use the same link. Everything else is refused.
 */
const OBJECTIVES: Record<string, { params: string[]; majors: Major[] }> = {
  "reg:squarederror": { params: ["reg_loss_param"], majors: [1, 2, 3] },
  "reg:squaredlogerror": { params: ["reg_loss_param"], majors: [1, 2, 3] },
  "reg:pseudohubererror": { params: ["pseudo_huber_param"], majors: [1, 2, 3] },
  "reg:absoluteerror": { params: [], majors: [1, 2, 3] },
  "reg:quantileerror": { params: ["quantile_loss_param"], majors: [2, 3] },
  "reg:logistic": { params: ["reg_loss_param"], majors: [1, 2, 3] },
  "binary:logistic": { params: ["reg_loss_param"], majors: [1, 2, 3] },
  // base_score is used as the margin (ProbToMargin is the identity in 1.x to 3.x).
  "binary:logitraw": { params: ["reg_loss_param"], majors: [1, 2, 3] },
  "count:poisson": { params: ["poisson_regression_param"], majors: [1, 2, 3] },
  "reg:gamma": { params: ["reg_loss_param"], majors: [1, 2, 3] },
  "reg:tweedie": { params: ["tweedie_regression_param"], majors: [1, 2, 3] },
};

const REFUSED_OBJECTIVES: Record<string, string> = {
  "multi:softmax": "multi-class models are not supported; train one output",
  "multi:softprob": "multi-class models are not supported; train one output",
  "binary:hinge": "binary:hinge outputs a step function of the margin, which the artifact cannot express",
  "survival:cox": "survival objectives are not supported",
  "survival:aft": "survival objectives are not supported",
  "reg:linear": "reg:linear is the pre-1.0 name; retrain with reg:squarederror",
};

function unknownFields(
  obj: Record<string, unknown>,
  path: string,
  kind: keyof typeof KNOWN_FIELDS,
  major: Major,
): Issue[] {
  const known = KNOWN_FIELDS[kind][major];
  return Object.keys(obj)
    .filter((k) => !known.includes(k))
    .map((k) =>
      issue(
        at(path, k),
        `unknown field for XGBoost ${major}.x; it may change predictions, so the model is refused (export from a supported XGBoost version, or report the field)`,
      ),
    );
}

function parseVersion(raw: unknown): { major: Major; text: string } | string {
  if (!Array.isArray(raw) || raw.length !== 3 || !raw.every((v) => Number.isInteger(v) && v >= 0))
    return `must be [major, minor, patch], got ${JSON.stringify(raw) ?? "nothing"}: save the model with XGBoost 1.0 or later`;
  const major = raw[0] as number;
  const text = raw.join(".");
  if (major !== 1 && major !== 2 && major !== 3)
    return `XGBoost ${text} is not a version this importer knows (1.x, 2.x, 3.x); save the model with one of those`;
  return { major, text };
}

/** Checks a (possibly absent) list of a tree's categorical fields to be empty. */
function nonEmpty(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

function checkTreeFields(tree: Record<string, unknown>, path: string, major: Major): Issue[] {
  const errors = unknownFields(tree, path, "tree", major);
  const tp = tree.tree_param;
  if (tp !== undefined) {
    if (!isPlainObject(tp))
      errors.push(issue(at(path, "tree_param"), `must be an object, got ${describeType(tp)}`));
    else {
      errors.push(...unknownFields(tp, at(path, "tree_param"), "tree_param", major));
      const nodes = intParam(tp.num_nodes);
      const length = Array.isArray(tree.left_children) ? tree.left_children.length : undefined;
      if (tp.num_nodes !== undefined && nodes !== length)
        errors.push(
          issue(
            at(path, "tree_param.num_nodes"),
            `is ${JSON.stringify(tp.num_nodes)} but left_children has ${length ?? "no"} entries`,
          ),
        );
    }
  }
  for (const key of ["categories", "categories_nodes", "categories_segments", "categories_sizes"]) {
    if (nonEmpty(tree[key]))
      errors.push(issue(at(path, key), "categorical splits are not supported; encode categories as numbers"));
  }
  return errors;
}

/** The per-tree multipliers of a dropout-trained model, as float32, or an error. */
function treeWeights(raw: unknown, path: string, numTrees: number): Result<number[]> {
  if (!Array.isArray(raw)) return fail([issue(path, `must be an array, got ${describeType(raw)}`)]);
  if (raw.length !== numTrees)
    return fail([
      issue(path, `has ${raw.length} entries for ${numTrees} trees; the weight of each tree must be known`),
    ]);
  const bad = raw.findIndex((w) => typeof w !== "number" || !Number.isFinite(w));
  if (bad !== -1)
    return fail([issue(at(path, bad), `must be a finite number, got ${describeType(raw[bad])}`)]);
  return ok(raw.map((w: number) => Math.fround(w)));
}

/**
 * XGBoost predicts a weighted tree as `out += leaf * weight` in float32 (1.x to 3.x, CPU
 * predictor), so the float32 product is the leaf the artifact stores: the sum is then the same.
 */
function foldWeight(tree: TreeArrays, weight: number): TreeArrays {
  return {
    ...tree,
    value: tree.value.map((v, n) => (tree.left[n] === -1 ? Math.fround(Math.fround(v) * weight) : v)),
  };
}

/** Imports XGBoost `save_model` JSON (1.x to 3.x) into a model draft; features keep their names. */
export function importXgboost(input: unknown): Result<ModelDraft> {
  if (!isPlainObject(input) || !isPlainObject(input.learner)) {
    return fail([issue("learner", "is missing: this is not an XGBoost save_model JSON document")]);
  }
  const version = parseVersion(input.version);
  if (typeof version === "string") return fail([issue("version", version)]);
  const { major } = version;
  const learner = input.learner;
  const shape = [
    ...unknownFields(input, "", "root", major),
    ...unknownFields(learner, "learner", "learner", major),
  ];
  if (shape.length > 0) return fail(shape);

  const gb = learner.gradient_booster;
  const booster = get(gb, ["name"]);
  if (booster === "gblinear") {
    return fail([
      issue(
        "learner.gradient_booster.name",
        "gblinear boosters are not supported; only tree models can be exported (train with booster=gbtree)",
      ),
    ]);
  }
  if ((booster !== "gbtree" && booster !== "dart") || !isPlainObject(gb)) {
    return fail([
      issue(
        "learner.gradient_booster.name",
        `must be "gbtree" or "dart", got ${JSON.stringify(booster) ?? "nothing"}`,
      ),
    ]);
  }
  // dart (1.x to 3.2): {name: "dart", gbtree: {name: "gbtree", model}, weight_drop}.
  let gbtree: Record<string, unknown> = gb;
  let gbtreePath = "learner.gradient_booster";
  if (booster === "dart") {
    if (!isPlainObject(gb.gbtree) || gb.gbtree.name !== "gbtree")
      return fail([
        issue(
          "learner.gradient_booster.gbtree",
          'must be the {"name": "gbtree", "model": ...} object of a dart booster',
        ),
      ]);
    const dartErrors = unknownFields(gb, gbtreePath, "dart", major);
    if (dartErrors.length > 0) return fail(dartErrors);
    gbtree = gb.gbtree;
    gbtreePath = "learner.gradient_booster.gbtree";
  }
  const modelPath = at(gbtreePath, "model");
  const model = gbtree.model;
  if (!isPlainObject(model)) return fail([issue(modelPath, `must be an object, got ${describeType(model)}`)]);
  const modelErrors = [
    ...unknownFields(gbtree, gbtreePath, "gbtree", major),
    ...unknownFields(model, modelPath, "model", major),
  ];
  if (isPlainObject(model.gbtree_model_param))
    modelErrors.push(
      ...unknownFields(
        model.gbtree_model_param,
        at(modelPath, "gbtree_model_param"),
        "gbtree_model_param",
        major,
      ),
    );
  if (modelErrors.length > 0) return fail(modelErrors);
  // Per-tree weights: beside dart's gbtree (to 3.2), beside the model (3.3), in the model (3.4).
  const weightsPaths = [
    ["learner.gradient_booster.weight_drop", gb.weight_drop],
    [at(gbtreePath, "weight_drop"), gbtree === gb ? undefined : gbtree.weight_drop],
    [at(modelPath, "weight_drop"), model.weight_drop],
  ]
    .filter(([, value]) => value !== undefined)
    .map(([path]) => path as string);
  if (weightsPaths.length > 1)
    return fail([issue(weightsPaths[1] as string, `is given twice (also at ${weightsPaths[0]})`)]);
  const weightsPath = weightsPaths[0] ?? null;
  if (model.cats !== undefined && !emptyCats(model.cats)) {
    return fail([
      issue(
        at(modelPath, "cats"),
        "holds categories: categorical features are not supported; encode categories as numbers",
      ),
    ]);
  }

  const objectiveBlock = learner.objective;
  const objective = get(objectiveBlock, ["name"]);
  const refused = typeof objective === "string" ? REFUSED_OBJECTIVES[objective] : undefined;
  if (refused !== undefined) return fail([issue("learner.objective.name", `${objective}: ${refused}`)]);
  const spec =
    typeof objective === "string" && Object.hasOwn(OBJECTIVES, objective) ? OBJECTIVES[objective] : undefined;
  const transform = typeof objective === "string" ? outputTransform("xgboost", objective) : undefined;
  if (typeof objective !== "string" || spec === undefined || transform === undefined) {
    return fail([
      issue(
        "learner.objective.name",
        `unknown objective ${JSON.stringify(objective) ?? "(none)"}; supported: ${knownObjectives("xgboost").join(", ")}`,
      ),
    ]);
  }
  if (!spec.majors.includes(major)) {
    return fail([
      issue(
        "learner.objective.name",
        `${objective} is not an objective of XGBoost ${major}.x (it exists in ${spec.majors.map((m) => `${m}.x`).join(", ")}); check the file's version`,
      ),
    ]);
  }
  if (isPlainObject(objectiveBlock)) {
    const extra = Object.keys(objectiveBlock).filter((k) => k !== "name" && !spec.params.includes(k));
    if (extra.length > 0)
      return fail(
        extra.map((k) =>
          issue(
            at("learner.objective", k),
            `unknown field for ${objective}; it may change predictions, so the model is refused`,
          ),
        ),
      );
  }

  const alpha = get(objectiveBlock, ["quantile_loss_param", "quantile_alpha"]);
  if (alpha !== undefined && parseBaseScore(alpha)?.length !== 1) {
    return fail([
      issue(
        "learner.objective.quantile_loss_param.quantile_alpha",
        `must be one quantile, got ${JSON.stringify(alpha)}: several quantiles make a multi-target model; train one model per quantile`,
      ),
    ]);
  }

  const param = get(learner, ["learner_model_param"]);
  if (!isPlainObject(param))
    return fail([issue("learner.learner_model_param", `must be an object, got ${describeType(param)}`)]);
  const paramErrors = unknownFields(param, "learner.learner_model_param", "learner_model_param", major);
  if (paramErrors.length > 0) return fail(paramErrors);
  const numClass = intParam(get(param, ["num_class"])) ?? 0;
  const numTarget = intParam(get(param, ["num_target"])) ?? 1;
  if (numClass > 1 || numTarget > 1) {
    return fail([
      issue(
        numClass > 1 ? "learner.learner_model_param.num_class" : "learner.learner_model_param.num_target",
        `multi-target models are not supported (num_class ${numClass}, num_target ${numTarget}); train one output`,
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
  const types = learner.feature_types;
  if (types !== undefined) {
    if (!Array.isArray(types))
      return fail([issue("learner.feature_types", `must be an array, got ${describeType(types)}`)]);
    const bad = types.findIndex((t) => !NUMERIC_TYPES.includes(t as string));
    if (bad !== -1)
      return fail([
        issue(
          at("learner.feature_types", bad),
          types[bad] === "c"
            ? "categorical features are not supported; encode categories as numbers"
            : `${JSON.stringify(types[bad])} is not a numeric feature type (${NUMERIC_TYPES.join(", ")})`,
        ),
      ]);
  }

  const treesPath = at(modelPath, "trees");
  const rawTrees = model.trees;
  if (!Array.isArray(rawTrees) || rawTrees.length === 0)
    return fail([issue(treesPath, "must be a non-empty array")]);
  const numTrees = intParam(get(model, ["gbtree_model_param", "num_trees"]));
  if (numTrees !== undefined && numTrees !== rawTrees.length)
    return fail([
      issue(
        at(modelPath, "gbtree_model_param.num_trees"),
        `is ${numTrees} but trees has ${rawTrees.length} entries`,
      ),
    ]);
  const leafVector = intParam(get(model, ["gbtree_model_param", "size_leaf_vector"]));
  if (leafVector !== undefined && leafVector > 1)
    return fail([
      issue(
        at(modelPath, "gbtree_model_param.size_leaf_vector"),
        "multi-target trees (multi_strategy=multi_output_tree) are not supported; train one output",
      ),
    ]);
  const treeInfo = model.tree_info;
  if (Array.isArray(treeInfo) && treeInfo.some((g) => g !== 0)) {
    return fail([
      issue(at(modelPath, "tree_info"), "names several output groups: multi-target models are not supported"),
    ]);
  }
  const bestIteration = intParam(get(learner, ["attributes", "best_iteration"]));
  const parallel = intParam(get(model, ["gbtree_model_param", "num_parallel_tree"])) ?? 1;
  if (bestIteration !== undefined && (bestIteration + 1) * parallel < rawTrees.length) {
    return fail([
      issue(
        "learner.attributes.best_iteration",
        `is ${bestIteration} but the model has ${rawTrees.length / parallel} iterations: scikit-learn's predict would use only the first ${bestIteration + 1}; save booster[: ${bestIteration + 1}] instead, or delete the attribute to export every tree`,
      ),
    ]);
  }
  let weights: number[] | null = null;
  if (weightsPath !== null) {
    const w = treeWeights(get(input, weightsPath.split(".")), weightsPath, rawTrees.length);
    if (!w.ok) return w;
    weights = w.value;
  }

  const trees: TreeArrays[] = [];
  const errors: Issue[] = [];
  rawTrees.forEach((raw: unknown, t: number) => {
    const path = at(treesPath, t);
    if (isPlainObject(raw)) {
      const fieldErrors = checkTreeFields(raw, path, major);
      if (fieldErrors.length > 0) {
        errors.push(...fieldErrors);
        return;
      }
    }
    const converted = convertTree(raw, path, names.length);
    if (!converted.ok) errors.push(...converted.errors);
    else trees.push(weights === null ? converted.value : foldWeight(converted.value, weights[t] as number));
  });
  if (errors.length > 0) return fail(errors);

  const source: SourceInfo = { library: "xgboost", version: version.text };
  if (weights !== null) {
    source.booster = booster;
    source.treeWeights = "folded";
  }
  return ok({
    semantics: "xgboost",
    objective,
    objectiveParams: {},
    baseScore,
    averageOutput: false,
    features: namesCheck.value,
    trees,
    source,
  });
}

/** Feature types XGBoost splits numerically ("c" is categorical). */
const NUMERIC_TYPES = ["float", "q", "int", "i"];

/** 3.x writes a categories container for every model; without categorical features its lists are empty. */
function emptyCats(cats: unknown): boolean {
  if (!isPlainObject(cats)) return false;
  return Object.values(cats).every((v) =>
    Array.isArray(v) ? v.length === 0 : isPlainObject(v) ? emptyCats(v) : false,
  );
}
