import { featureV1Index } from "../features.ts";
import { MISSING_NAN, MISSING_ZERO, type ModelDraft, type ObjectiveParams, type Semantics } from "./model.ts";
import { applyTransform, baseMargin, type OutputTransform, outputTransform } from "./objectives.ts";

/**
 * LightGBM's kZeroThreshold (meta.h: `const double kZeroThreshold = 1e-35f;`): the float32 nearest
 * 1e-35, 1.0000000180025095e-35 as a double. Values with |x| <= it are zero to LightGBM.
 */
export const LIGHTGBM_ZERO_THRESHOLD = Math.fround(1e-35);
// Padding every tree to a complete one of the model's depth costs 2^depth nodes per tree.
const COMPLETE_MAX_DEPTH = 8;
/**
 * The padded copy is only made when it costs at most this many times the node arrays: sparse trees
 * (a few long paths) would otherwise multiply a model's memory up to 2^depth / depth times, and the
 * model cache is bounded by what compiled models cost.
 */
const COMPLETE_MAX_RATIO = 2;
/** Bytes of the padded copy for `trees` trees of `depth`: an Int32 feature and Float32 threshold per split, a Float32 per leaf. */
const completeBytes = (trees: number, depth: number): number =>
  trees * ((2 ** depth - 1) * 8 + 2 ** depth * 4);

/**
 * The serving fast path for XGBoost models of bounded depth: each tree padded to a complete binary
 * tree of the model's depth in heap order (children of i at 2i+1, 2i+2), so a walk is exactly
 * `depth` branch-light steps and several trees can be walked side by side. A leaf above full depth
 * becomes splits whose both children repeat it, so every path still reaches its value.
 */
class CompleteTrees {
  readonly depth: number;
  readonly internal: number;
  readonly leaves: number;
  readonly feature: Int32Array;
  readonly threshold: Float32Array;
  readonly leaf: Float32Array;

  constructor(trees: ModelDraft["trees"], depth: number) {
    this.depth = depth;
    this.leaves = 2 ** depth;
    this.internal = this.leaves - 1;
    this.feature = new Int32Array(trees.length * this.internal);
    this.threshold = new Float32Array(trees.length * this.internal);
    this.leaf = new Float32Array(trees.length * this.leaves);
    trees.forEach((tree, t) => {
      const place = (node: number, heap: number, level: number): void => {
        if (level === depth) {
          this.leaf[t * this.leaves + heap - this.internal] = tree.value[node] as number;
          return;
        }
        const slot = t * this.internal + heap;
        const isLeaf = tree.left[node] === -1;
        this.feature[slot] = isLeaf ? 0 : (tree.feature[node] as number);
        this.threshold[slot] = isLeaf ? Number.POSITIVE_INFINITY : (tree.value[node] as number);
        place(isLeaf ? node : (tree.left[node] as number), 2 * heap + 1, level + 1);
        place(isLeaf ? node : (tree.right[node] as number), 2 * heap + 2, level + 1);
      };
      place(0, 0, 0);
    });
  }

  /** Sum of leaves for a float32 row without missing values, accumulated in float32 in tree order. */
  sum(row: Float32Array, start: number): number {
    const { feature, threshold, leaf, depth, internal, leaves } = this;
    const trees = leaf.length / leaves;
    let sum = start;
    let t = 0;
    // Four independent walks per iteration keep the CPU's load and compare units busy, and the
    // comparison is turned into 0/1 arithmetic: a data-dependent branch mispredicts half the time.
    for (; t + 4 <= trees; t += 4) {
      const b0 = t * internal;
      const b1 = b0 + internal;
      const b2 = b1 + internal;
      const b3 = b2 + internal;
      let i0 = 0;
      let i1 = 0;
      let i2 = 0;
      let i3 = 0;
      for (let d = 0; d < depth; d++) {
        i0 = 2 * i0 + 1 + +((row[feature[b0 + i0] as number] as number) >= (threshold[b0 + i0] as number));
        i1 = 2 * i1 + 1 + +((row[feature[b1 + i1] as number] as number) >= (threshold[b1 + i1] as number));
        i2 = 2 * i2 + 1 + +((row[feature[b2 + i2] as number] as number) >= (threshold[b2 + i2] as number));
        i3 = 2 * i3 + 1 + +((row[feature[b3 + i3] as number] as number) >= (threshold[b3 + i3] as number));
      }
      const l = t * leaves - internal;
      sum = Math.fround(sum + (leaf[l + i0] as number));
      sum = Math.fround(sum + (leaf[l + leaves + i1] as number));
      sum = Math.fround(sum + (leaf[l + 2 * leaves + i2] as number));
      sum = Math.fround(sum + (leaf[l + 3 * leaves + i3] as number));
    }
    for (; t < trees; t++) {
      const b = t * internal;
      let i = 0;
      for (let d = 0; d < depth; d++)
        i = 2 * i + 1 + +((row[feature[b + i] as number] as number) >= (threshold[b + i] as number));
      sum = Math.fround(sum + (leaf[t * leaves + i - internal] as number));
    }
    return sum;
  }
}

/**
 * A model compiled into flat typed arrays. All trees share one node space; a split node's two
 * children are adjacent (`child[n]` and `child[n] + 1`), so a step is one compare and one add.
 * `feature[n] < 0` marks a leaf, whose value sits in `value[n]`.
 */
export class CompiledModel {
  readonly features: readonly string[];
  readonly semantics: Semantics;
  readonly transform: OutputTransform;
  readonly numTrees: number;
  readonly numNodes: number;
  readonly maxDepth: number;
  private readonly roots: Int32Array;
  private readonly feature: Int32Array;
  private readonly child: Int32Array;
  /** 1 when a missing value goes right (the child offset to add). */
  private readonly missingRight: Uint8Array;
  private readonly missingType: Uint8Array;
  /** Float32 for XGBoost (its thresholds and leaves are float32), float64 for LightGBM. */
  private readonly value: Float32Array | Float64Array;
  private readonly margin0: number;
  /** LightGBM: the sum is divided by the number of trees (GBDT::Predict divides, as here). */
  private readonly averageOutput: boolean;
  private readonly params: ObjectiveParams;
  private readonly row32: Float32Array;
  private readonly row64: Float64Array;
  /** Model column -> position in the canonical v1 vector (-1 when the name is not a v1 feature). */
  private readonly v1Columns: Int32Array;
  private readonly complete: CompleteTrees | null;

  /** `completeTrees: false` disables the fast path (tests compare both paths). */
  constructor(draft: ModelDraft, options: { completeTrees?: boolean } = {}) {
    const transform = outputTransform(draft.semantics, draft.objective);
    if (transform === undefined) throw new Error(`unknown ${draft.semantics} objective ${draft.objective}`);
    // LightGBM folds its initial score into the first tree; only XGBoost has a base margin.
    const margin = draft.semantics === "xgboost" ? baseMargin(transform, draft.baseScore) : 0;
    if (typeof margin === "string") throw new Error(`baseScore ${margin}`);
    this.features = draft.features;
    this.semantics = draft.semantics;
    this.transform = transform;
    this.params = draft.objectiveParams;
    this.margin0 = draft.semantics === "xgboost" ? Math.fround(margin) : margin;
    this.numTrees = draft.trees.length;
    this.averageOutput = draft.averageOutput;

    const total = draft.trees.reduce((sum, t) => sum + t.left.length, 0);
    this.numNodes = total;
    this.roots = new Int32Array(this.numTrees);
    this.feature = new Int32Array(total);
    this.child = new Int32Array(total);
    this.missingRight = new Uint8Array(total);
    this.missingType = new Uint8Array(total);
    this.value = draft.semantics === "xgboost" ? new Float32Array(total) : new Float64Array(total);

    // Breadth-first renumbering places each pair of children next to each other.
    let next = 0;
    let maxDepth = 0;
    draft.trees.forEach((tree, t) => {
      const root = next++;
      this.roots[t] = root;
      const queue: [oldId: number, newId: number, depth: number][] = [[0, root, 0]];
      for (let head = 0; head < queue.length; head++) {
        const [old, id, depth] = queue[head] as [number, number, number];
        maxDepth = Math.max(maxDepth, depth);
        this.value[id] = tree.value[old] as number;
        const l = tree.left[old] as number;
        if (l === -1) {
          this.feature[id] = -1;
          continue;
        }
        this.feature[id] = tree.feature[old] as number;
        this.missingRight[id] = tree.defaultLeft[old] === 1 ? 0 : 1;
        this.missingType[id] = tree.missingType?.[old] ?? 0;
        const c = next;
        next += 2;
        this.child[id] = c;
        queue.push([l, c, depth + 1], [tree.right[old] as number, c + 1, depth + 1]);
      }
    });
    this.maxDepth = maxDepth;
    this.complete =
      options.completeTrees !== false &&
      draft.semantics === "xgboost" &&
      maxDepth <= COMPLETE_MAX_DEPTH &&
      completeBytes(this.numTrees, maxDepth) <= COMPLETE_MAX_RATIO * this.nodeBytes()
        ? new CompleteTrees(draft.trees, maxDepth)
        : null;
    this.row32 = new Float32Array(draft.features.length);
    this.row64 = new Float64Array(draft.features.length);
    this.v1Columns = Int32Array.from(draft.features, featureV1Index);
  }

  private nodeBytes(): number {
    return (
      this.roots.byteLength +
      this.feature.byteLength +
      this.child.byteLength +
      this.missingRight.byteLength +
      this.missingType.byteLength +
      this.value.byteLength
    );
  }

  /**
   * The bytes this model's arrays hold: every typed array, and the feature names. Objects and
   * engine overhead are not included; a cache adds a fixed amount per model for them.
   */
  get memoryBytes(): number {
    const complete =
      this.complete === null
        ? 0
        : this.complete.feature.byteLength +
          this.complete.threshold.byteLength +
          this.complete.leaf.byteLength;
    let names = 0;
    for (const name of this.features) names += 2 * name.length + 16;
    return (
      this.nodeBytes() +
      complete +
      this.row32.byteLength +
      this.row64.byteLength +
      this.v1Columns.byteLength +
      names
    );
  }

  /** Whether predictions walk the padded complete trees (the fast path). */
  get usesCompleteTrees(): boolean {
    return this.complete !== null;
  }

  /** Raw score (before the objective's transform) for a row in model column order; NaN = missing. */
  predictMargin(row: ArrayLike<number>): number {
    return this.semantics === "xgboost" ? this.marginXgboost(row) : this.marginLightgbm(row);
  }

  predict(row: ArrayLike<number>): number {
    const m = this.predictMargin(row);
    const y = applyTransform(this.transform, this.params, m);
    // XGBoost computes its transforms in float32 too.
    return this.semantics === "xgboost" ? Math.fround(y) : y;
  }

  /** Predicts from a canonical feature-set-v1 vector (as computeFeaturesV1 returns it). */
  predictV1(vector: Float64Array): number {
    const row = this.row64;
    for (let j = 0; j < row.length; j++) {
      const k = this.v1Columns[j] as number;
      row[j] = k < 0 ? Number.NaN : (vector[k] as number);
    }
    return this.predict(row);
  }

  private marginXgboost(input: ArrayLike<number>): number {
    // XGBoost converts inputs to float32 and compares fround(x) < fround(threshold).
    const row = this.row32;
    let missing = false;
    for (let j = 0; j < row.length; j++) {
      const x = input[j] as number;
      row[j] = x;
      if (Number.isNaN(x)) missing = true;
    }
    // Rows from computeFeaturesV1 never have missing values: that is the serving path.
    if (!missing && this.complete !== null) return this.complete.sum(row, this.margin0);
    const { roots, feature, child, missingRight } = this;
    const value = this.value;
    let sum = this.margin0;
    for (let t = 0; t < roots.length; t++) {
      let n = roots[t] as number;
      let f = feature[n] as number;
      while (f >= 0) {
        const x = row[f] as number;
        const th = value[n] as number;
        // NaN fails the comparison and takes the node's default direction; 0/1 arithmetic instead
        // of branches, which would mispredict on half of the splits.
        n = (child[n] as number) + (+(x >= th) | (+Number.isNaN(x) & (missingRight[n] as number)));
        f = feature[n] as number;
      }
      // XGBoost accumulates tree outputs in a float32 buffer.
      sum = Math.fround(sum + (value[n] as number));
    }
    return sum;
  }

  /**
   * LightGBM's prediction from a dense row (c_api.cpp RowPairFunctionFromDenseMatrix, then
   * Tree::GetLeaf / NumericalDecision in tree.h): the row keeps only values with
   * `|x| > kZeroThreshold` or NaN, the others read as 0.0; at a split, NaN becomes 0.0 unless the
   * missing type is NaN; Zero sends zero, and NaN sends NaN, the default way; otherwise
   * `x <= threshold` in double goes left. Tree outputs are summed in double from 0, then divided by
   * the number of trees with average_output.
   */
  private marginLightgbm(row: ArrayLike<number>): number {
    const { roots, feature, child, missingRight, missingType } = this;
    const value = this.value;
    let sum = 0;
    for (let t = 0; t < roots.length; t++) {
      let n = roots[t] as number;
      let f = feature[n] as number;
      while (f >= 0) {
        let x = row[f] as number;
        const m = missingType[n] as number;
        // -kZeroThreshold <= x <= kZeroThreshold: dropped from the sparse row, so exactly 0.
        if (x >= -LIGHTGBM_ZERO_THRESHOLD && x <= LIGHTGBM_ZERO_THRESHOLD) x = 0;
        else if (m !== MISSING_NAN && Number.isNaN(x)) x = 0;
        let dir: number;
        if ((m === MISSING_ZERO && x === 0) || (m === MISSING_NAN && Number.isNaN(x))) {
          dir = missingRight[n] as number;
        } else {
          dir = x <= (value[n] as number) ? 0 : 1;
        }
        n = (child[n] as number) + dir;
        f = feature[n] as number;
      }
      sum += value[n] as number;
    }
    return this.averageOutput ? sum / this.numTrees : sum;
  }
}

/** Compiles a draft whose trees have already passed validateTrees. */
export function compileModel(draft: ModelDraft, options: { completeTrees?: boolean } = {}): CompiledModel {
  return new CompiledModel(draft, options);
}
