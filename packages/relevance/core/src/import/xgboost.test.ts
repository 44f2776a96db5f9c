import { describe, expect, it } from "vitest";
import { compileModel } from "../artifact/compile.ts";
import { formatIssues } from "../result.ts";
import { readXgboostCase, toRow } from "../test-support/fixtures.ts";
import { buildArtifact } from "./build-artifact.ts";
import { importXgboost, parseBaseScore } from "./xgboost.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests reshape XGBoost's JSON freely.
type Json = any;

function fixture(name = "squarederror_explicit_base"): Json {
  return structuredClone(readXgboostCase(name).model);
}

function refusal(doc: Json): string {
  const r = importXgboost(doc);
  if (r.ok) throw new Error("expected a refusal");
  return formatIssues(r.errors);
}

describe("importXgboost: format variants across XGBoost 1.x to 3.x", () => {
  it('parses base_score as a number, "5E-1" or "[5E-1]"', () => {
    expect(parseBaseScore("5E-1")).toEqual([0.5]);
    expect(parseBaseScore("[3.7E0]")).toEqual([3.7]);
    expect(parseBaseScore(0.25)).toEqual([0.25]);
    expect(parseBaseScore("[5E-1,2E-1]")).toEqual([0.5, 0.2]);
    expect(parseBaseScore("abc")).toBeNull();
    expect(parseBaseScore("[]")).toBeNull();
  });

  it("gives the same predictions for the 3.x shape (bracketed base_score, boolean default_left, no num_target)", () => {
    const { cases } = readXgboostCase("missing_values");
    const original = importXgboost(fixture("missing_values"));
    const doc = fixture("missing_values");
    doc.version = [3, 0, 2];
    doc.learner.learner_model_param.base_score = `[${doc.learner.learner_model_param.base_score}]`;
    delete doc.learner.learner_model_param.num_target;
    for (const tree of doc.learner.gradient_booster.model.trees)
      tree.default_left = tree.default_left.map((d: number) => d === 1);
    const variant = importXgboost(doc);
    expect(original.ok && variant.ok).toBe(true);
    if (!original.ok || !variant.ok) return;
    expect(variant.value.source.version).toBe("3.0.2");
    const a = compileModel(original.value);
    const b = compileModel(variant.value);
    for (const row of cases.rows) expect(b.predict(toRow(row))).toBe(a.predict(toRow(row)));
  });
});

describe("importXgboost: refusals are one clear line", () => {
  it("refuses gblinear", () => {
    const doc = fixture();
    doc.learner.gradient_booster = { name: "gblinear", model: { weights: [0.1] } };
    expect(refusal(doc)).toMatch(/gblinear boosters are not supported/);
  });

  it("refuses categorical splits", () => {
    const doc = fixture();
    const tree = doc.learner.gradient_booster.model.trees[2];
    tree.split_type = tree.split_type.map((_: number, i: number) => (i === 0 ? 1 : 0));
    expect(refusal(doc)).toMatch(
      /^learner\.gradient_booster\.model\.trees\[2\]\.split_type: categorical splits are not supported/,
    );
  });

  it("refuses multi-target and multi-class models", () => {
    const a = fixture();
    a.learner.learner_model_param.num_target = "2";
    expect(refusal(a)).toMatch(/multi-target models are not supported/);
    const b = fixture();
    b.learner.learner_model_param.num_class = "3";
    expect(refusal(b)).toMatch(/multi-target models are not supported \(num_class 3/);
    const c = fixture();
    c.learner.learner_model_param.base_score = "[5E-1,5E-1]";
    expect(refusal(c)).toMatch(/base_score: has several values/);
  });

  it("refuses an unknown objective, naming the supported ones", () => {
    const doc = fixture();
    doc.learner.objective = { name: "rank:pairwise" };
    expect(refusal(doc)).toMatch(
      /^learner\.objective\.name: unknown objective "rank:pairwise"; supported: reg:squarederror, /,
    );
    doc.learner.objective = { name: "multi:softprob" };
    expect(refusal(doc)).toBe(
      "learner.objective.name: multi:softprob: multi-class models are not supported; train one output",
    );
  });

  it("refuses a model without feature names, since features are mapped by name", () => {
    const doc = fixture();
    doc.learner.feature_names = [];
    expect(refusal(doc)).toMatch(/^learner\.feature_names: are missing/);
  });

  it("refuses child links out of range or forming a cycle", () => {
    const a = fixture();
    a.learner.gradient_booster.model.trees[0].left_children[0] = 999;
    expect(refusal(a)).toMatch(/trees\[0\]: left_children points to node 999, out of range/);
    const b = fixture();
    b.learner.gradient_booster.model.trees[0].left_children[1] = 0;
    expect(refusal(b)).toMatch(/trees\[0\]: node 0 is reached twice/);
  });

  it("refuses a document that is not XGBoost JSON", () => {
    expect(refusal({ tree_info: [] })).toBe(
      "learner: is missing: this is not an XGBoost save_model JSON document",
    );
  });
});

describe("buildArtifact from an XGBoost import", () => {
  it("refuses feature names outside set v1", () => {
    const doc = fixture();
    doc.learner.feature_names[1] = "price";
    const draft = importXgboost(doc);
    if (!draft.ok) throw new Error(formatIssues(draft.errors));
    const r = buildArtifact(draft.value, { modelId: "acme:shop:v1", titleField: "title", tagsField: "tags" });
    expect(r.ok ? "" : formatIssues(r.errors)).toBe("features: feature names outside set v1: price");
  });

  it("keeps the training library's predictions as golden rows, and refuses ones this engine does not reproduce", () => {
    const { cases } = readXgboostCase("binary_logistic");
    const draft = importXgboost(fixture("binary_logistic"));
    if (!draft.ok) throw new Error(formatIssues(draft.errors));
    const rows = cases.rows.slice(0, 5).map((row, i) => ({
      features: Object.fromEntries(cases.feature_names.map((n, j) => [n, row[j] ?? null])),
      prediction: cases.predictions[i] as number,
    }));
    const good = buildArtifact(draft.value, {
      modelId: "acme:shop:v1",
      titleField: "title",
      tagsField: "tags",
      golden: { source: "xgboost 1.7.4", rows },
    });
    expect(good.ok).toBe(true);
    const bad = structuredClone(rows);
    (bad[3] as { prediction: number }).prediction += 0.001;
    const r = buildArtifact(draft.value, {
      modelId: "acme:shop:v1",
      titleField: "title",
      tagsField: "tags",
      golden: { source: "xgboost 1.7.4", rows: bad },
    });
    expect(r.ok ? "" : formatIssues(r.errors)).toMatch(
      /^golden\.rows\[3\]: this engine predicts .* but xgboost 1\.7\.4 expected/,
    );
  });

  it("derives the index from the model id, and needs it explicitly otherwise", () => {
    const draft = importXgboost(fixture());
    if (!draft.ok) throw new Error(formatIssues(draft.errors));
    const r = buildArtifact(draft.value, { modelId: "my-model", titleField: null, tagsField: null });
    expect(r.ok ? "" : formatIssues(r.errors)).toMatch(
      /^modelId: "my-model" does not follow <account>:<index>:v<n>/,
    );
    expect(
      buildArtifact(draft.value, { modelId: "my-model", index: "shop", titleField: null, tagsField: null })
        .ok,
    ).toBe(true);
  });
});

describe("importXgboost: refuses by default what it does not know", () => {
  const cases: [string, (doc: Json) => void, RegExp][] = [
    ["no version", (d) => delete d.version, /^version: must be \[major, minor, patch\]/],
    [
      "an unknown major version",
      (d) => (d.version = [4, 0, 0]),
      /^version: XGBoost 4\.0\.0 is not a version/,
    ],
    ["an unknown top-level field", (d) => (d.config = {}), /^config: unknown field for XGBoost 1\.x/],
    [
      "an unknown learner field",
      (d) => (d.learner.multi_strategy = "x"),
      /^learner\.multi_strategy: unknown field/,
    ],
    [
      "an unknown learner_model_param field",
      (d) => (d.learner.learner_model_param.intercept = "1"),
      /^learner\.learner_model_param\.intercept: unknown field/,
    ],
    [
      "an unknown field of the objective's parameters",
      (d) => (d.learner.objective.huber_slope = "2"),
      /^learner\.objective\.huber_slope: unknown field for reg:squarederror/,
    ],
    [
      "an unknown model field",
      (d) => (d.learner.gradient_booster.model.leaf_vectors = []),
      /^learner\.gradient_booster\.model\.leaf_vectors: unknown field for XGBoost 1\.x/,
    ],
    [
      "3.x's categories container on a 1.x model",
      (d) => (d.learner.gradient_booster.model.cats = {}),
      /^learner\.gradient_booster\.model\.cats: unknown field for XGBoost 1\.x/,
    ],
    [
      "an unknown tree field",
      (d) => (d.learner.gradient_booster.model.trees[3].leaf_weights = [1]),
      /^learner\.gradient_booster\.model\.trees\[3\]\.leaf_weights: unknown field/,
    ],
    [
      "an unknown tree_param field",
      (d) => (d.learner.gradient_booster.model.trees[1].tree_param.max_depth = "3"),
      /^learner\.gradient_booster\.model\.trees\[1\]\.tree_param\.max_depth: unknown field/,
    ],
    [
      "a tree whose num_nodes disagrees with its arrays",
      (d) => (d.learner.gradient_booster.model.trees[4].tree_param.num_nodes = "3"),
      /^learner\.gradient_booster\.model\.trees\[4\]\.tree_param\.num_nodes: is "3" but left_children has \d+ entries/,
    ],
    [
      "an unknown gbtree_model_param field",
      (d) => (d.learner.gradient_booster.model.gbtree_model_param.num_roots = "2"),
      /gbtree_model_param\.num_roots: unknown field/,
    ],
    [
      "categorical feature types",
      (d) =>
        (d.learner.feature_types = d.learner.feature_names.map((_: string, i: number) =>
          i === 2 ? "c" : "q",
        )),
      /^learner\.feature_types\[2\]: categorical features are not supported/,
    ],
    [
      "category lists in a tree",
      (d) => (d.learner.gradient_booster.model.trees[0].categories = [1, 2]),
      /^learner\.gradient_booster\.model\.trees\[0\]\.categories: categorical splits are not supported/,
    ],
    [
      "multi-output trees",
      (d) => (d.learner.gradient_booster.model.gbtree_model_param.size_leaf_vector = "2"),
      /gbtree_model_param\.size_leaf_vector: multi-target trees \(multi_strategy=multi_output_tree\)/,
    ],
    [
      "a tree count that disagrees with the trees",
      (d) => (d.learner.gradient_booster.model.gbtree_model_param.num_trees = "29"),
      /gbtree_model_param\.num_trees: is 29 but trees has 30 entries/,
    ],
    [
      "a best_iteration before the last tree (scikit-learn would predict with fewer trees)",
      (d) => (d.learner.attributes.best_iteration = "20"),
      /^learner\.attributes\.best_iteration: is 20 but the model has 30 iterations/,
    ],
    [
      "an objective the file's version does not have",
      (d) =>
        (d.learner.objective = {
          name: "reg:quantileerror",
          quantile_loss_param: { quantile_alpha: "[5E-1]" },
        }),
      /^learner\.objective\.name: reg:quantileerror is not an objective of XGBoost 1\.x/,
    ],
    [
      "gbtree weights of the wrong length",
      (d) => {
        d.version = [3, 4, 1];
        d.learner.gradient_booster.model.weight_drop = [1, 1];
      },
      /^learner\.gradient_booster\.model\.weight_drop: has 2 entries for 30 trees/,
    ],
    [
      "weights in two places",
      (d) => {
        d.version = [3, 4, 1];
        const n = d.learner.gradient_booster.model.trees.length;
        d.learner.gradient_booster.weight_drop = new Array(n).fill(1);
        d.learner.gradient_booster.model.weight_drop = new Array(n).fill(1);
      },
      /^learner\.gradient_booster\.model\.weight_drop: is given twice \(also at learner\.gradient_booster\.weight_drop\)/,
    ],
    [
      "weights inside a dart booster's gbtree",
      (d) => {
        d.version = [3, 2, 0];
        const inner = d.learner.gradient_booster;
        inner.weight_drop = inner.model.trees.map(() => 0.5);
        d.learner.gradient_booster = { name: "dart", gbtree: inner, weight_drop: inner.weight_drop };
      },
      /^learner\.gradient_booster\.gbtree\.weight_drop: is given twice/,
    ],
    [
      "3.3's weight_drop beside the model in a 2.x document",
      (d) => {
        d.version = [2, 1, 4];
        d.learner.gradient_booster.weight_drop = d.learner.gradient_booster.model.trees.map(() => 1);
      },
      /^learner\.gradient_booster\.weight_drop: unknown field for XGBoost 2\.x/,
    ],
    [
      "dart weights that are not numbers",
      (d) => {
        const inner = d.learner.gradient_booster;
        d.learner.gradient_booster = {
          name: "dart",
          gbtree: inner,
          weight_drop: inner.model.trees.map(() => "1"),
        };
      },
      /^learner\.gradient_booster\.weight_drop\[0\]: must be a finite number/,
    ],
  ];

  it.each(cases)("refuses %s, naming the field", (_, mutate, message) => {
    const doc = fixture();
    mutate(doc);
    expect(refusal(doc)).toMatch(message);
  });

  it("accepts binary:logitraw: the margin is the output, base_score the starting margin", () => {
    const doc = fixture();
    doc.version = [2, 1, 4];
    doc.learner.objective = { name: "binary:logitraw", reg_loss_param: { scale_pos_weight: "1" } };
    const draft = importXgboost(doc);
    if (!draft.ok) throw new Error(formatIssues(draft.errors));
    const plain = importXgboost(fixture());
    if (!plain.ok) throw new Error(formatIssues(plain.errors));
    const row = toRow(readXgboostCase("squarederror_explicit_base").cases.rows[0] as (number | null)[]);
    expect(compileModel(draft.value).predict(row)).toBe(compileModel(plain.value).predict(row));
  });

  it("folds dart tree weights into the leaves (leaf × weight in float32), in both JSON shapes", () => {
    const { cases } = readXgboostCase("squarederror_explicit_base");
    const weights = fixture().learner.gradient_booster.model.trees.map(
      (_: unknown, t: number) => 1 / (t + 1.5),
    );
    const dart = fixture();
    const inner = dart.learner.gradient_booster;
    dart.learner.gradient_booster = { name: "dart", gbtree: inner, weight_drop: weights };
    const gbtree = fixture();
    gbtree.version = [3, 4, 1];
    gbtree.learner.gradient_booster.model.weight_drop = weights;
    const a = importXgboost(dart);
    const b = importXgboost(gbtree);
    if (!a.ok || !b.ok) throw new Error("expected both shapes to import");
    expect(a.value.source).toEqual({
      library: "xgboost",
      version: "1.7.4",
      booster: "dart",
      treeWeights: "folded",
    });
    expect(b.value.source).toEqual({
      library: "xgboost",
      version: "3.4.1",
      booster: "gbtree",
      treeWeights: "folded",
    });
    const trees = fixture().learner.gradient_booster.model.trees;
    const model = compileModel(a.value);
    for (const raw of cases.rows) {
      const row = Float32Array.from(toRow(raw));
      // The reference: walk the source trees, multiply the leaf by the tree's weight in float32.
      let sum = Math.fround(3.7);
      trees.forEach((tree: Json, t: number) => {
        let n = 0;
        while (tree.left_children[n] !== -1) {
          const x = row[tree.split_indices[n]] as number;
          const left = Number.isNaN(x)
            ? tree.default_left[n] === 1
            : x < Math.fround(tree.split_conditions[n]);
          n = left ? tree.left_children[n] : tree.right_children[n];
        }
        sum = Math.fround(sum + Math.fround(Math.fround(tree.split_conditions[n]) * Math.fround(weights[t])));
      });
      expect(model.predictMargin(toRow(raw))).toBe(sum);
      expect(compileModel(b.value).predictMargin(toRow(raw))).toBe(sum);
    }
  });
});
