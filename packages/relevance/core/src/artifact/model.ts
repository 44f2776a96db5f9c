// The in-memory model shared by importers, the artifact format and the compiler.

/** Which library's split rule the trees follow (see docs/artifact-format.md). */
export type Semantics = "xgboost" | "lightgbm";

/** LightGBM's per-node missing-value handling. */
export const MISSING_NONE = 0;
export const MISSING_ZERO = 1;
export const MISSING_NAN = 2;

/**
 * One tree as parallel arrays indexed by node id; node 0 is the root. A leaf has left = right =
 * feature = -1 and its leaf value in `value`; a split node has its threshold in `value` (like
 * XGBoost's `split_conditions`).
 */
export interface TreeArrays {
  left: number[];
  right: number[];
  feature: number[];
  value: number[];
  /** 1 where a missing value goes left. */
  defaultLeft: number[];
  /** LightGBM only: MISSING_NONE, MISSING_ZERO or MISSING_NAN per node. */
  missingType?: number[];
}

export interface ObjectiveParams {
  /** LightGBM `binary sigmoid:<x>`. */
  sigmoid?: number;
  /** LightGBM reg_sqrt (`regression sqrt`): the model was fit to sign(y)·√|y|; the output is sign(x)·x². */
  sqrt?: boolean;
}

export interface SourceInfo {
  library: "xgboost" | "lightgbm";
  version: string;
  /**
   * The source booster, written only when it is not the library's plain tree booster (XGBoost
   * "dart", or "gbtree" trained with dropout).
   */
  booster?: string;
  /** "folded": the source's per-tree weights (XGBoost `weight_drop`) are multiplied into the leaves. */
  treeWeights?: "folded";
}

/** A tree ensemble with everything needed to predict, but no deployment metadata. */
export interface ModelDraft {
  semantics: Semantics;
  objective: string;
  objectiveParams: ObjectiveParams;
  /** In the objective's output space, as the source library states it. */
  baseScore: number;
  /** LightGBM random-forest mode: the sum of the trees is divided by their number. */
  averageOutput: boolean;
  /** Column names in the order `TreeArrays.feature` indexes them. */
  features: string[];
  trees: TreeArrays[];
  source: SourceInfo;
}
