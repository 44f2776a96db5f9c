import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadArtifact } from "../artifact/load.ts";
import { formatIssues } from "../result.ts";
import { float32Above, float32Below, nextFloat64 } from "../test-support/float.ts";
import { buildArtifact } from "./build-artifact.ts";
import { importLightgbm } from "./lightgbm.ts";

// Random small LightGBM dumps, compiled through our import → artifact → loader path, against a
// reference written here from LightGBM 4.x's source, not from our evaluator:
//   c_api.cpp RowPairFunctionFromDenseMatrix: a dense row keeps (i, x) only when
//     std::fabs(x) > kZeroThreshold || std::isnan(x); the predictor's buffer holds 0.0 elsewhere;
//   meta.h: const double kZeroThreshold = 1e-35f;
//   tree.h IsZero: fval >= -kZeroThreshold && fval <= kZeroThreshold;
//   tree.h NumericalDecision: NaN becomes 0.0 unless missing type NaN; (Zero && IsZero) or
//     (NaN && isnan) → default_left ? left : right; else fval <= threshold_ ? left : right;
//   gbdt_prediction.cpp Predict: sum of trees from 0.0, / iterations if average_output, then
//     ConvertOutput (RegressionL2loss: sqrt_ ? Sign(x) * x * x : x; BinaryLogloss:
//     1 / (1 + exp(-sigmoid * x)); RegressionPoissonLoss: exp(x)).

const K_ZERO_THRESHOLD = Math.fround(1e-35);
const FEATURES = ["hit_count", "jaccard", "title_coverage"];

interface Leaf {
  leaf_value: number;
}
interface Split {
  split_feature: number;
  threshold: number;
  decision_type: "<=";
  default_left: boolean;
  missing_type: "None" | "Zero" | "NaN";
  left_child: Node;
  right_child: Node;
}
type Node = Leaf | Split;

function referenceLeaf(tree: Node, row: readonly number[]): number {
  let node = tree;
  while ("split_feature" in node) {
    const raw = row[node.split_feature] as number;
    let fval = Math.abs(raw) > K_ZERO_THRESHOLD || Number.isNaN(raw) ? raw : 0.0;
    if (Number.isNaN(fval) && node.missing_type !== "NaN") fval = 0.0;
    const isZero = fval >= -K_ZERO_THRESHOLD && fval <= K_ZERO_THRESHOLD;
    if ((node.missing_type === "Zero" && isZero) || (node.missing_type === "NaN" && Number.isNaN(fval))) {
      node = node.default_left ? node.left_child : node.right_child;
    } else {
      node = fval <= node.threshold ? node.left_child : node.right_child;
    }
  }
  return node.leaf_value;
}

const sign = (x: number): number => Number(x > 0) - Number(x < 0);

function referencePredict(
  trees: Node[],
  objective: string,
  average: boolean,
  row: readonly number[],
): { raw: number; output: number } {
  let raw = 0.0;
  for (const tree of trees) raw += referenceLeaf(tree, row);
  if (average) raw /= trees.length;
  const [name, param] = objective.split(" ");
  let output = raw;
  if (name === "regression" && param === "sqrt") output = sign(raw) * raw * raw;
  if (name === "binary") output = 1.0 / (1.0 + Math.exp(-Number(param?.split(":")[1]) * raw));
  if (name === "poisson") output = Math.exp(raw);
  return { raw, output };
}

// Values where LightGBM's rules change: signed zeros, the float32 zero threshold and its float64
// neighbours, 1e-35 and 1e-36, subnormals, the smallest normal, AvoidInf's ±1e300, huge and infinite.
const SPECIAL: number[] = [0, -0, Number.NaN, Infinity, -Infinity];
for (const v of [
  K_ZERO_THRESHOLD,
  nextFloat64(K_ZERO_THRESHOLD),
  nextFloat64(K_ZERO_THRESHOLD, true),
  1e-35,
  1e-36,
  5e-324,
  1e-320,
  2.2250738585072014e-308,
  1e300,
  nextFloat64(1e300),
  nextFloat64(1e300, true),
  1.7976931348623157e308,
  0.5,
  1,
]) {
  SPECIAL.push(v, -v);
}

// A dump's thresholds lie in [-1e300, 1e300]: Tree::NodeToJSON prints them through AvoidInf.
const threshold = fc
  .oneof(
    fc.constantFrom(...SPECIAL),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.double({ min: -100, max: 100, noNaN: true }),
    fc.float({ noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: -5, max: 100 }),
  )
  .filter((t) => Math.abs(t) <= 1e300);

// Leaves stay small enough for e^(sum) to be finite: an artifact's golden predictions are finite.
const leafArb: fc.Arbitrary<Node> = fc
  .double({ min: -50, max: 50, noNaN: true })
  .map((leaf_value) => ({ leaf_value }));

function treeArb(depth: number): fc.Arbitrary<Node> {
  if (depth === 0) return leafArb;
  const split: fc.Arbitrary<Node> = fc.record({
    split_feature: fc.integer({ min: 0, max: FEATURES.length - 1 }),
    threshold,
    decision_type: fc.constant("<=" as const),
    default_left: fc.boolean(),
    missing_type: fc.constantFrom("None" as const, "Zero" as const, "NaN" as const),
    left_child: treeArb(depth - 1),
    right_child: treeArb(depth - 1),
  });
  return fc.oneof({ weight: 1, arbitrary: leafArb }, { weight: 3, arbitrary: split });
}

const objectiveArb = fc.oneof(
  fc.constantFrom("regression", "regression sqrt", "poisson"),
  fc.constantFrom(0.5, 1, 2).map((s) => `binary sigmoid:${s}`),
);

function thresholdsOf(node: Node, out: number[]): number[] {
  if ("split_feature" in node) {
    out.push(node.threshold);
    thresholdsOf(node.left_child, out);
    thresholdsOf(node.right_child, out);
  }
  return out;
}

/** Inputs next to every threshold: itself, its float64 neighbours, float32 neighbours and rounding. */
function candidates(trees: Node[]): number[] {
  const out = [...SPECIAL];
  for (const t of trees.flatMap((tree) => thresholdsOf(tree, []))) {
    out.push(t, nextFloat64(t), nextFloat64(t, true), float32Below(t), float32Above(t), Math.fround(t));
  }
  return out;
}

describe("LightGBM split semantics: random dumps against a reference from LightGBM's source", () => {
  it("import → artifact → loader predicts like tree.h NumericalDecision on rows near thresholds", () => {
    fc.assert(
      fc.property(
        fc.array(treeArb(3), { minLength: 1, maxLength: 4 }),
        objectiveArb,
        fc.boolean(),
        fc.array(fc.array(fc.nat(), { minLength: FEATURES.length, maxLength: FEATURES.length }), {
          minLength: 1,
          maxLength: 12,
        }),
        (trees, objective, average, picks) => {
          const dump = {
            name: "tree",
            version: "v4",
            num_class: 1,
            num_tree_per_iteration: 1,
            objective,
            average_output: average,
            feature_names: FEATURES,
            tree_info: trees.map((tree_structure, tree_index) => ({
              tree_index,
              num_cat: 0,
              tree_structure,
            })),
          };
          const draft = importLightgbm(dump);
          if (!draft.ok) throw new Error(formatIssues(draft.errors));
          const built = buildArtifact(draft.value, {
            modelId: "acme:products:v1",
            titleField: null,
            tagsField: null,
          });
          if (!built.ok) throw new Error(formatIssues(built.errors));
          const loaded = loadArtifact(built.value.text);
          if (!loaded.ok) throw new Error(formatIssues(loaded.errors));
          const model = loaded.value.model;
          const pool = candidates(trees);
          for (const pick of picks) {
            const row = pick.map((i) => pool[i % pool.length] as number);
            const expected = referencePredict(trees, objective, average, row);
            const margin = model.predictMargin(row);
            const output = model.predict(row);
            if (
              !(
                margin === expected.raw &&
                (output === expected.output || (Number.isNaN(output) && Number.isNaN(expected.output)))
              )
            ) {
              throw new Error(
                `row ${JSON.stringify(row.map(String))}: margin ${margin} vs ${expected.raw}, output ${output} vs ${expected.output}`,
              );
            }
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("the neighbours helpers step by exactly one float64 / float32", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const up = nextFloat64(x);
        const down = nextFloat64(x, true);
        expect(up > x && down < x).toBe(true);
        // Nothing lies between x and its neighbours: the midpoint rounds to one of them.
        for (const n of [up, down].filter(Number.isFinite)) {
          const mid = x + (n - x) / 2;
          expect(mid === x || mid === n).toBe(true);
        }
        const below = float32Below(x);
        const above = float32Above(x);
        expect(below < x && above > x).toBe(true);
        expect(Math.fround(below) === below && Math.fround(above) === above).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
