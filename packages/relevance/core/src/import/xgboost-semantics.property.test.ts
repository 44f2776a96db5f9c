// Property: a random XGBoost model, exported through our artifact path (importXgboost ->
// buildArtifact -> artifact text -> loadArtifact), predicts what a small reference evaluator
// written here from XGBoost's documented semantics predicts, on inputs placed on and around the
// model's thresholds. The reference reads the XGBoost JSON itself; it never calls our compiled code.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileModel } from "../artifact/compile.ts";
import { withinTolerance } from "../artifact/golden.ts";
import { loadArtifact } from "../artifact/load.ts";
import { recordFromRow, rowFromRecord } from "../artifact/rows.ts";
import { FEATURE_SET_V1 } from "../features.ts";
import { formatIssues } from "../result.ts";
import { buildArtifact } from "./build-artifact.ts";
import { importXgboost } from "./xgboost.ts";

// --- A random tree, as XGBoost writes it: parallel arrays, node 0 the root. ---

type Node =
  | { leaf: number }
  | { feature: number; threshold: number; defaultLeft: boolean; left: Node; right: Node };

interface XgbTree {
  left_children: number[];
  right_children: number[];
  split_indices: number[];
  split_conditions: number[];
  default_left: number[];
}

const F32_MAX = 3.4028234663852886e38;
const float32 = (min = -F32_MAX, max = F32_MAX): fc.Arbitrary<number> =>
  fc.float({ noNaN: true, noDefaultInfinity: true, min: Math.fround(min), max: Math.fround(max) });

/** Thresholds: any finite float32, with the awkward ones (±0, subnormals, tiny and huge) often. */
const threshold = fc.oneof(
  { weight: 4, arbitrary: float32(-10, 10) },
  { weight: 1, arbitrary: float32() },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, 1e-45, -1e-45, 1.1754942e-38, 1e-40, -3e-39, 1e30, -1e30) },
);

/** Leaves up to ±leafMax: a log-link model must not overflow float32 (exp(88.7)), which XGBoost would print as inf. */
function treeArb(nFeatures: number, leafMax: number): fc.Arbitrary<Node> {
  const leafValue = float32(-leafMax, leafMax);
  const { node } = fc.letrec<{ node: Node }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.record({ leaf: leafValue }),
      fc.record({
        feature: fc.nat(nFeatures - 1),
        threshold,
        defaultLeft: fc.boolean(),
        left: tie("node"),
        right: tie("node"),
      }),
    ),
  }));
  return node;
}

function toXgbTree(root: Node): XgbTree {
  const t: XgbTree = {
    left_children: [],
    right_children: [],
    split_indices: [],
    split_conditions: [],
    default_left: [],
  };
  // Breadth-first numbering, as XGBoost does.
  const queue: Node[] = [root];
  for (let head = 0; head < queue.length; head++) {
    const n = queue[head] as Node;
    if ("leaf" in n) {
      t.left_children.push(-1);
      t.right_children.push(-1);
      t.split_indices.push(0);
      t.split_conditions.push(n.leaf);
      t.default_left.push(0);
    } else {
      t.left_children.push(queue.length);
      t.right_children.push(queue.length + 1);
      queue.push(n.left, n.right);
      t.split_indices.push(n.feature);
      t.split_conditions.push(n.threshold);
      t.default_left.push(n.defaultLeft ? 1 : 0);
    }
  }
  return t;
}

// --- The objectives, with their links as XGBoost documents them. ---

const OBJECTIVES = {
  "reg:squarederror": { base: float32(-50, 50), link: "identity" },
  "reg:pseudohubererror": { base: float32(-50, 50), link: "identity" },
  "reg:absoluteerror": { base: float32(-50, 50), link: "identity" },
  "binary:logistic": { base: float32(1e-6, 0.999999), link: "logit" },
  "reg:logistic": { base: float32(1e-6, 0.999999), link: "logit" },
  "count:poisson": { base: float32(1e-6, 1e6), link: "log" },
  "reg:gamma": { base: float32(1e-6, 1e6), link: "log" },
  "reg:tweedie": { base: float32(1e-6, 1e6), link: "log" },
} as const;
type Objective = keyof typeof OBJECTIVES;

interface Case {
  objective: Objective;
  baseScore: number;
  trees: XgbTree[];
  /** null: a plain gbtree; else the trees' weight_drop. */
  weights: number[] | null;
  /** Where weight_drop sits: a dart booster wrapping a gbtree (to 3.2), beside the model (3.3), in it (3.4). */
  shape: "wrapped" | "beside" | "inside";
  nFeatures: number;
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    objective: fc.constantFrom(...(Object.keys(OBJECTIVES) as Objective[])),
    nFeatures: fc.integer({ min: 1, max: 4 }),
    nTrees: fc.integer({ min: 1, max: 6 }),
    dart: fc.boolean(),
    shape: fc.constantFrom("wrapped", "beside", "inside") as fc.Arbitrary<Case["shape"]>,
  })
  .chain(({ objective, nFeatures, nTrees, dart, shape }) =>
    fc.record({
      shape: fc.constant(shape),
      objective: fc.constant(objective),
      nFeatures: fc.constant(nFeatures),
      baseScore: OBJECTIVES[objective].base,
      trees: fc.array(treeArb(nFeatures, OBJECTIVES[objective].link === "log" ? 10 : 100).map(toXgbTree), {
        minLength: nTrees,
        maxLength: nTrees,
      }),
      weights: dart
        ? fc.array(fc.oneof(float32(1e-3, 1), fc.constant(1)), { minLength: nTrees, maxLength: nTrees })
        : fc.constant(null),
    }),
  );

function saveModelJson(c: Case): unknown {
  const names = FEATURE_SET_V1.slice(0, c.nFeatures);
  const model = {
    gbtree_model_param: { num_parallel_tree: "1", num_trees: String(c.trees.length) },
    iteration_indptr: c.trees.map((_, i) => i).concat(c.trees.length),
    tree_info: c.trees.map(() => 0),
    trees: c.trees.map((t, id) => ({
      ...t,
      id,
      split_type: t.left_children.map(() => 0),
      categories: [],
      categories_nodes: [],
      categories_segments: [],
      categories_sizes: [],
      tree_param: {
        num_deleted: "0",
        num_feature: String(c.nFeatures),
        num_nodes: String(t.left_children.length),
        size_leaf_vector: "1",
      },
    })),
  };
  const w = c.weights;
  const gradientBooster =
    w === null
      ? { name: "gbtree", model }
      : c.shape === "wrapped"
        ? { name: "dart", gbtree: { name: "gbtree", model }, weight_drop: w }
        : c.shape === "beside"
          ? { name: "gbtree", model, weight_drop: w }
          : { name: "gbtree", model: { ...model, weight_drop: w } };
  return {
    version: c.shape === "wrapped" ? [2, 1, 4] : c.shape === "beside" ? [3, 3, 0] : [3, 4, 1],
    learner: {
      attributes: {},
      feature_names: names,
      feature_types: names.map(() => "float"),
      gradient_booster: gradientBooster,
      learner_model_param: {
        base_score: `[${c.baseScore.toExponential()}]`,
        boost_from_average: "1",
        num_class: "0",
        num_feature: String(c.nFeatures),
        num_target: "1",
      },
      objective: { name: c.objective },
    },
  };
}

// --- The reference: XGBoost's documented prediction, in float32. ---

/** Margin: float32 inputs, `x < threshold` goes left, NaN follows default_left, float32 sum. */
function referenceMargin(c: Case, row: readonly number[]): number {
  const { link } = OBJECTIVES[c.objective];
  const b = Math.fround(c.baseScore);
  // XGBoost's ProbToMargin in float32: -logf(1.0f / b - 1.0f), logf(b).
  const logit = -Math.log(Math.fround(Math.fround(1 / b) - 1));
  let sum = Math.fround(link === "identity" ? b : link === "logit" ? logit : Math.log(b));
  c.trees.forEach((t, i) => {
    let n = 0;
    while (t.left_children[n] !== -1) {
      const x = Math.fround(row[t.split_indices[n] as number] as number);
      const goLeft = Number.isNaN(x)
        ? t.default_left[n] === 1
        : x < Math.fround(t.split_conditions[n] as number);
      n = (goLeft ? t.left_children[n] : t.right_children[n]) as number;
    }
    const leaf = Math.fround(t.split_conditions[n] as number);
    const w = c.weights === null ? 1 : Math.fround(c.weights[i] as number);
    sum = Math.fround(sum + Math.fround(leaf * w));
  });
  return sum;
}

function referencePrediction(c: Case, margin: number): number {
  const { link } = OBJECTIVES[c.objective];
  if (link === "identity") return margin;
  return Math.fround(link === "logit" ? 1 / (1 + Math.exp(-margin)) : Math.exp(margin));
}

// --- Inputs on, just below and just above thresholds, and the special values. ---

const f32Neighbour = (x: number, up: boolean): number => {
  const a = new Float32Array([x]);
  const bits = new Int32Array(a.buffer);
  if (x === 0) return up ? 1e-45 : -1e-45;
  bits[0] = (bits[0] as number) + (x > 0 === up ? 1 : -1);
  return a[0] as number;
};
const f64Below = (x: number): number => {
  if (x === 0) return -Number.MIN_VALUE;
  const a = new Float64Array([x]);
  const bits = new BigInt64Array(a.buffer);
  bits[0] = (bits[0] as bigint) + (x > 0 ? -1n : 1n);
  return a[0] as number;
};

function rowsArb(c: Case): fc.Arbitrary<number[][]> {
  const thresholds = c.trees.flatMap((t) => t.split_conditions.filter((_, n) => t.left_children[n] !== -1));
  const special = fc.constantFrom(
    Number.NaN,
    0,
    -0,
    1e-45,
    -1e-45,
    1e-40,
    -1e-40,
    1e300,
    -1e300,
    3.5e38,
    -3.5e38,
  );
  const near =
    thresholds.length === 0
      ? special
      : fc
          .tuple(fc.constantFrom(...thresholds), fc.constantFrom("on", "up32", "down32", "down64", "decimal"))
          .map(([t, how]) => {
            const f = Math.fround(t);
            if (how === "on") return f;
            if (how === "up32") return f32Neighbour(f, true);
            if (how === "down32") return f32Neighbour(f, false);
            if (how === "down64") return f64Below(f);
            return Number(f.toPrecision(9)); // a decimal that rounds to the threshold
          });
  const value = fc.oneof(
    { weight: 5, arbitrary: near },
    { weight: 2, arbitrary: special },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  );
  return fc.array(fc.array(value, { minLength: c.nFeatures, maxLength: c.nFeatures }), {
    minLength: 1,
    maxLength: 12,
  });
}

describe("XGBoost semantics (property): export + engine == reference evaluator", () => {
  it("margins are bit-identical and predictions agree to 1e-6, both evaluation paths", () => {
    let rowsChecked = 0;
    fc.assert(
      fc.property(
        caseArb.chain((c) => fc.tuple(fc.constant(c), rowsArb(c))),
        ([c, rows]) => {
          const draft = importXgboost(saveModelJson(c));
          if (!draft.ok) throw new Error(formatIssues(draft.errors));
          const built = buildArtifact(draft.value, {
            modelId: "acme:shop:v1",
            titleField: null,
            tagsField: null,
          });
          if (!built.ok) throw new Error(formatIssues(built.errors));
          const loaded = loadArtifact(built.value.text, { checkGolden: true });
          if (!loaded.ok) throw new Error(formatIssues(loaded.errors));
          const fast = loaded.value.model;
          for (const row of rows) {
            const expected = referenceMargin(c, row);
            const margin = fast.predictMargin(row);
            if (margin !== expected)
              throw new Error(`margin ${margin} vs reference ${expected} for ${JSON.stringify(row)}`);
            // A missing value given as null in a feature record (the CLI's and golden rows' form,
            // which take finite numbers only).
            if (row.every((v) => Number.isFinite(v) || Number.isNaN(v))) {
              const viaRecord = rowFromRecord(draft.value.features, recordFromRow(draft.value.features, row));
              if (!viaRecord.ok || fast.predictMargin(viaRecord.value) !== expected)
                throw new Error(`record row ${JSON.stringify(row)} differs`);
            }
            const want = referencePrediction(c, expected);
            const got = fast.predict(row);
            if (!withinTolerance(got, want, 1e-6) && !(got === want))
              throw new Error(`prediction ${got} vs reference ${want}`);
            rowsChecked++;
          }
        },
      ),
      { numRuns: 1500 },
    );
    expect(rowsChecked).toBeGreaterThan(3000);
  });

  it("the padded fast path and the node walk both agree with the reference on rows without missing values", () => {
    let fastPathModels = 0;
    fc.assert(
      fc.property(
        caseArb.chain((c) => fc.tuple(fc.constant(c), rowsArb(c))),
        ([c, rows]) => {
          const draft = importXgboost(saveModelJson(c));
          if (!draft.ok) throw new Error(formatIssues(draft.errors));
          const built = buildArtifact(draft.value, {
            modelId: "acme:shop:v1",
            titleField: null,
            tagsField: null,
          });
          if (!built.ok) throw new Error(formatIssues(built.errors));
          const loaded = loadArtifact(built.value.text);
          if (!loaded.ok) throw new Error(formatIssues(loaded.errors));
          const models = [loaded.value.model, compileModel(loaded.value.artifact, { completeTrees: false })];
          if (loaded.value.model.usesCompleteTrees) fastPathModels++;
          for (const raw of rows) {
            const row = raw.map((v) => (Number.isNaN(v) ? 0.5 : v));
            const expected = referenceMargin(c, row);
            for (const model of models) {
              const margin = model.predictMargin(row);
              if (margin !== expected) throw new Error(`margin ${margin} vs reference ${expected}`);
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
    expect(fastPathModels).toBeGreaterThan(500);
  });
});
