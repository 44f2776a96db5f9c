import type { ModelDraft } from "../artifact/model.ts";

/** A hand-written two-tree XGBoost-semantics model: easy to reason about in tests. */
export function smallDraft(): ModelDraft {
  return {
    semantics: "xgboost",
    objective: "reg:squarederror",
    objectiveParams: {},
    baseScore: 0.5,
    averageOutput: false,
    features: ["hit_count", "jaccard"],
    trees: [
      // hit_count < 10 ? (jaccard < 0.5 ? 1 : 2) : 3; missing hit_count goes left.
      {
        left: [1, 3, -1, -1, -1],
        right: [2, 4, -1, -1, -1],
        feature: [0, 1, -1, -1, -1],
        value: [10, 0.5, 3, 1, 2],
        defaultLeft: [1, 0, 0, 0, 0],
      },
      { left: [-1], right: [-1], feature: [-1], value: [0.25], defaultLeft: [0] },
    ],
    source: { library: "xgboost", version: "test" },
  };
}
