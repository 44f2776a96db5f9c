import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel } from "../artifact/compile.ts";
import { loadArtifact } from "../artifact/load.ts";
import { formatIssues } from "../result.ts";
import { FIXTURES } from "../test-support/fixtures.ts";
import { nextFloat64 } from "../test-support/float.ts";
import { buildArtifact } from "./build-artifact.ts";
import { importLightgbm } from "./lightgbm.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests reshape LightGBM's JSON freely.
type Json = any;

const dir = `${FIXTURES}lightgbm/leaves/`;
const readJson = (name: string): Json => JSON.parse(readFileSync(dir + name, "utf8"));
const readNumbers = (name: string): number[] =>
  readFileSync(dir + name, "utf8")
    .trim()
    .split("\n")
    .map(Number);
const rows = readFileSync(`${dir}breast_cancer_test.tsv`, "utf8")
  .trim()
  .split("\n")
  .map((line) => Float64Array.from(line.split("\t").map(Number)));

function imported(doc: Json, objective?: string) {
  const r = importLightgbm(doc, objective === undefined ? {} : { objective });
  if (!r.ok) throw new Error(formatIssues(r.errors));
  return r.value;
}

function refusal(doc: Json, objective?: string): string {
  const r = importLightgbm(doc, objective === undefined ? {} : { objective });
  if (r.ok) throw new Error("expected a refusal");
  return formatIssues(r.errors);
}

describe("LightGBM dump_model fixtures from dmitryikh/leaves (see fixtures/lightgbm/leaves/SOURCE.md)", () => {
  // The dump predates LightGBM writing "objective"; the text model says "binary sigmoid:1".
  const model = compileModel(imported(readJson("lg_dart_breast_cancer.json"), "binary sigmoid:1"));

  it("reproduces LightGBM's 57 probabilities within 1e-5", () => {
    const expected = readNumbers("lg_dart_breast_cancer_true_predictions.txt");
    expect(rows).toHaveLength(expected.length);
    rows.forEach((row, i) => {
      expect(Math.abs(model.predict(row) - (expected[i] as number))).toBeLessThan(1e-5);
    });
  });

  it("reproduces LightGBM's raw scores: leaves already include shrinkage, none is applied again", () => {
    const expected = readNumbers("lg_dart_breast_cancer_true_predictions.raw-1d4d5d5.txt");
    rows.forEach((row, i) => {
      expect(Math.abs(model.predictMargin(row) - (expected[i] as number))).toBeLessThan(1e-5);
    });
  });

  it("evaluates a single-leaf tree to its leaf value whatever the input", () => {
    const single = compileModel(imported(readJson("lg_1tree_1leaf.json"), "regression"));
    expect(single.predict([0])).toBe(0.42);
    expect(single.predict([Number.NaN])).toBe(0.42);
  });

  it("refuses categorical splits in one line", () => {
    expect(refusal(readJson("lg_1tree.json"), "regression")).toBe(
      "tree_info[0].num_cat: categorical splits are not supported; encode categories as numbers",
    );
    const doc = readJson("lg_1tree.json");
    doc.tree_info[0].num_cat = 0;
    expect(refusal(doc, "regression")).toBe(
      "tree_info[0].tree_structure.left_child.decision_type: categorical splits are not supported; encode categories as numbers",
    );
  });

  it("asks for the objective when the dump does not name one", () => {
    expect(refusal(readJson("lg_dart_breast_cancer.json"))).toMatch(/^objective: is missing from the dump/);
  });
});

/** A one-split dump: feature 0 <= 1.5 ? 10 : 20, with the given missing handling. */
function oneSplit(missingType: string, defaultLeft: boolean, extra: Json = {}): Json {
  return {
    name: "tree",
    version: "v4",
    num_class: 1,
    num_tree_per_iteration: 1,
    objective: "regression",
    feature_names: ["hit_count"],
    tree_info: [
      {
        tree_index: 0,
        num_leaves: 2,
        num_cat: 0,
        shrinkage: 0.1,
        tree_structure: {
          split_index: 0,
          split_feature: 0,
          threshold: 1.5,
          decision_type: "<=",
          default_left: defaultLeft,
          missing_type: missingType,
          left_child: { leaf_index: 0, leaf_value: 10 },
          right_child: { leaf_index: 1, leaf_value: 20 },
        },
      },
    ],
    ...extra,
  };
}

describe("LightGBM split semantics (hand-made dumps following LightGBM's NumericalDecision)", () => {
  it("compares in double precision with <=", () => {
    const m = compileModel(imported(oneSplit("None", false)));
    expect(m.predict([1.5])).toBe(10);
    expect(m.predict([1.5000000000000002])).toBe(20);
    // A float32 comparison would round 1.5000000000000002 down to 1.5 and go left.
  });

  it("missing_type None: NaN is treated as 0", () => {
    expect(compileModel(imported(oneSplit("None", false))).predict([Number.NaN])).toBe(10);
    const negative = oneSplit("None", false);
    negative.tree_info[0].tree_structure.threshold = -1;
    expect(compileModel(imported(negative)).predict([Number.NaN])).toBe(20);
  });

  it("missing_type NaN: NaN takes the default direction, zero is an ordinary value", () => {
    expect(compileModel(imported(oneSplit("NaN", false))).predict([Number.NaN])).toBe(20);
    expect(compileModel(imported(oneSplit("NaN", true))).predict([Number.NaN])).toBe(10);
    expect(compileModel(imported(oneSplit("NaN", false))).predict([0])).toBe(10);
  });

  it("missing_type Zero: zero (|x| <= 1e-35) and NaN take the default direction", () => {
    const right = compileModel(imported(oneSplit("Zero", false)));
    expect(right.predict([0])).toBe(20);
    expect(right.predict([1e-36])).toBe(20);
    expect(right.predict([Number.NaN])).toBe(20);
    expect(right.predict([1e-30])).toBe(10);
  });

  it("missing_type Zero: zero is |x| <= kZeroThreshold, the float32 1e-35f (1.0000000180025095e-35)", () => {
    const kzt = Math.fround(1e-35);
    expect(kzt).toBe(1.0000000180025095e-35);
    const right = compileModel(imported(oneSplit("Zero", false)));
    for (const zero of [kzt, -kzt, 1e-35, -1e-35, Number.MIN_VALUE, -0])
      expect(right.predict([zero])).toBe(20);
    expect(right.predict([nextFloat64(kzt)])).toBe(10);
    expect(right.predict([nextFloat64(-kzt, true)])).toBe(10);
    const left = compileModel(imported(oneSplit("Zero", true)));
    expect(left.predict([kzt])).toBe(10);
    expect(left.predict([2])).toBe(20);
  });

  it("whatever the missing type, |x| <= kZeroThreshold reads as 0 (LightGBM's dense rows drop it)", () => {
    // c_api.cpp RowPairFunctionFromDenseMatrix keeps only |x| > kZeroThreshold; the rest is 0.0.
    const kzt = Math.fround(1e-35);
    for (const missing of ["None", "NaN"]) {
      const doc = oneSplit(missing, true);
      doc.tree_info[0].tree_structure.threshold = -kzt;
      const m = compileModel(imported(doc));
      expect(m.predict([-kzt])).toBe(20); // 0 > -kzt, although -kzt <= -kzt
      expect(m.predict([nextFloat64(-kzt, true)])).toBe(10);
      doc.tree_info[0].tree_structure.threshold = -5e-36;
      expect(compileModel(imported(doc)).predict([-6e-36])).toBe(20);
    }
  });

  it("average_output divides the sum of the trees by their number", () => {
    const doc = oneSplit("None", false, { average_output: true });
    doc.tree_info.push(structuredClone(doc.tree_info[0]));
    doc.tree_info[1].tree_structure.left_child.leaf_value = 30;
    expect(compileModel(imported(doc)).predict([0])).toBe(20);
  });

  it("applies the objective's transform: sigmoid with its parameter, exp for poisson", () => {
    // Given by hand for a dump that does not name its objective (as LightGBM 2.x dumps).
    const unnamed = (): Json => {
      const doc = oneSplit("None", false);
      delete doc.objective;
      return doc;
    };
    expect(compileModel(imported(unnamed(), "binary sigmoid:0.5")).predict([0])).toBeCloseTo(
      1 / (1 + Math.exp(-5)),
      15,
    );
    expect(compileModel(imported(unnamed(), "poisson")).predict([0])).toBeCloseTo(Math.exp(10), 6);
    expect(
      compileModel(imported(oneSplit("None", false, { objective: "poisson" }))).predict([0]),
    ).toBeCloseTo(Math.exp(10), 6);
  });

  it("refuses an objective given by hand that differs from the dump's; the same one is fine", () => {
    expect(refusal(oneSplit("None", false), "binary sigmoid:0.5")).toBe(
      'objective: the dump says "regression" but the objective given is "binary sigmoid:0.5"; leave --objective out',
    );
    expect(imported(oneSplit("None", false), "l2").objective).toBe("regression");
    const binary = oneSplit("None", false, { objective: "binary sigmoid:2" });
    expect(refusal(binary, "binary")).toMatch(/^objective: the dump says "binary sigmoid:2"/);
    expect(imported(binary, "binary sigmoid:2").objectiveParams).toEqual({ sigmoid: 2 });
  });

  it("refuses multi-class, unknown objectives and linear trees", () => {
    expect(refusal(oneSplit("None", false, { num_class: 3, num_tree_per_iteration: 3 }))).toMatch(
      /^num_class: multi-target models are not supported/,
    );
    expect(refusal(oneSplit("None", false, { objective: "lambdarank" }))).toMatch(
      /^objective: unknown objective "lambdarank"/,
    );
    const linear = oneSplit("None", false);
    linear.tree_info[0].tree_structure.left_child.leaf_coeff = [0.5];
    expect(refusal(linear)).toMatch(/linear trees are not supported/);
  });
});

describe("reg_sqrt (objective 'regression sqrt'): output sign(x)·x², stored as objectiveParams.sqrt", () => {
  const sqrtDoc = (objective: string) => {
    const doc = oneSplit("None", false, { objective });
    doc.tree_info[0].tree_structure.left_child.leaf_value = -3;
    return doc;
  };

  it("applies RegressionL2loss::ConvertOutput: Sign(x) * x * x", () => {
    const m = compileModel(imported(sqrtDoc("regression sqrt")));
    expect(m.predictMargin([0])).toBe(-3);
    expect(m.predict([0])).toBe(-9);
    expect(m.predict([2])).toBe(400);
    expect(compileModel(imported(sqrtDoc("regression_l1 sqrt"))).predict([0])).toBe(-9);
  });

  it("goes through the artifact and its loader; the loader refuses sqrt where LightGBM has none", () => {
    const built = buildArtifact(imported(sqrtDoc("quantile sqrt")), {
      modelId: "acme:products:v1",
      titleField: null,
      tagsField: null,
    });
    if (!built.ok) throw new Error(formatIssues(built.errors));
    expect(built.value.artifact.objectiveParams).toEqual({ sqrt: true });
    const loaded = loadArtifact(built.value.text, { checkGolden: true });
    expect(loaded.ok && loaded.value.model.predict([0])).toBe(-9);
    const a = JSON.parse(built.value.text);
    for (const [objective, sqrt] of [
      ["poisson", true],
      ["regression", false],
    ] as const) {
      a.objective = objective;
      a.objectiveParams = { sqrt };
      const r = loadArtifact(JSON.stringify(a));
      expect(r.ok ? "accepted" : formatIssues(r.errors)).toMatch(
        /^objectiveParams\.sqrt: must be absent, or true/,
      );
    }
  });

  it("refuses sqrt on objectives that turn it off, and unknown objective parameters", () => {
    expect(refusal(sqrtDoc("huber sqrt"))).toBe(
      'objective: parameter "sqrt" of "huber sqrt" is not supported for huber',
    );
    expect(refusal(sqrtDoc("regression sqrt alpha:0.5"))).toMatch(/^objective: parameter "alpha:0.5"/);
  });
});

describe("refuse by default: every field the importer does not know is named", () => {
  const cases: [string, (doc: Json) => void, string][] = [
    ["unknown top-level field", (d) => (d.best_iteration = 3), "best_iteration: unknown top-level field"],
    ["dump version", (d) => (d.version = "v5"), 'version: dump format "v5" is not supported'],
    ["not a GBDT dump", (d) => (d.name = "linear"), 'name: must be "tree"'],
    ["per-iteration trees", (d) => (d.num_tree_per_iteration = 2), "num_tree_per_iteration: multi-target"],
    ["average_output type", (d) => (d.average_output = "yes"), "average_output: must be true or false"],
    [
      "pandas categorical columns",
      (d) => (d.pandas_categorical = [["a", "b"]]),
      "pandas_categorical: pandas categorical columns are not supported",
    ],
    ["unknown tree field", (d) => (d.tree_info[0].is_linear = true), "tree_info[0].is_linear: unknown field"],
    [
      "unknown split field",
      (d) => (d.tree_info[0].tree_structure.split_kind = "x"),
      "tree_info[0].tree_structure.split_kind: unknown field of a LightGBM dump split node",
    ],
    [
      "unknown leaf field",
      (d) => (d.tree_info[0].tree_structure.left_child.leaf_bias = 1),
      "tree_info[0].tree_structure.left_child.leaf_bias: unknown field of a LightGBM dump leaf",
    ],
    [
      "linear leaf",
      (d) => (d.tree_info[0].tree_structure.right_child.leaf_const = 1),
      "tree_info[0].tree_structure.right_child.leaf_const: linear trees are not supported",
    ],
    [
      "missing default_left",
      (d) => delete d.tree_info[0].tree_structure.default_left,
      "tree_info[0].tree_structure.default_left: must be true or false",
    ],
    [
      "missing missing_type",
      (d) => delete d.tree_info[0].tree_structure.missing_type,
      "tree_info[0].tree_structure.missing_type: must be None, Zero or NaN, got nothing",
    ],
    [
      "unknown missing_type",
      (d) => (d.tree_info[0].tree_structure.missing_type = "Inf"),
      'tree_info[0].tree_structure.missing_type: must be None, Zero or NaN, got "Inf"',
    ],
    [
      "unknown decision_type",
      (d) => (d.tree_info[0].tree_structure.decision_type = "<"),
      'tree_info[0].tree_structure.decision_type: unknown decision_type "<"',
    ],
    [
      "node that is both",
      (d) => (d.tree_info[0].tree_structure.leaf_value = 1),
      "tree_info[0].tree_structure: has both split_feature and leaf_value",
    ],
    [
      "num_leaves mismatch",
      (d) => (d.tree_info[0].num_leaves = 3),
      "tree_info[0].num_leaves: is 3 but the tree has 2 leaves",
    ],
    [
      "binary without sigmoid in a dump",
      (d) => (d.objective = "binary"),
      'objective: "binary" lacks its sigmoid',
    ],
    [
      "cross_entropy_lambda",
      (d) => (d.objective = "cross_entropy_lambda"),
      'objective: unknown objective "cross_entropy_lambda": its output log(1 + e^x) is not supported',
    ],
    ["multiclassova", (d) => (d.objective = "multiclassova num_class:3"), "objective: unknown objective"],
    [
      "custom objective",
      (d) => (d.objective = "custom"),
      'objective: unknown objective "custom": a custom objective',
    ],
  ];

  it.each(cases)("%s", (_, mutate, expected) => {
    const doc = oneSplit("None", false);
    mutate(doc);
    const message = refusal(doc);
    expect(message.startsWith(expected), message).toBe(true);
    expect(message).not.toContain("\n");
  });

  it("accepts the fields it knows (the v4 dump of LightGBM 4.x) and the v2 dumps above", () => {
    const doc = oneSplit("None", false, {
      label_index: 0,
      max_feature_idx: 0,
      average_output: false,
      monotone_constraints: [0],
      feature_infos: { hit_count: { min_value: 0, max_value: 9, values: [] } },
      feature_importances: { hit_count: 1 },
      pandas_categorical: null,
    });
    Object.assign(doc.tree_info[0].tree_structure, {
      split_gain: 1,
      internal_value: 0,
      internal_weight: 2,
      internal_count: 2,
    });
    Object.assign(doc.tree_info[0].tree_structure.left_child, { leaf_weight: 1, leaf_count: 1 });
    expect(compileModel(imported(doc)).predict([2])).toBe(20);
    // Given by hand, "binary" means LightGBM's default sigmoid 1.
    const unnamed = oneSplit("None", false);
    delete unnamed.objective;
    expect(imported(unnamed, "binary").objectiveParams).toEqual({ sigmoid: 1 });
  });
});
