import type { ObjectiveParams, Semantics } from "./model.ts";

export type OutputTransform = "identity" | "sigmoid" | "exp";

interface ObjectiveSpec {
  transform: OutputTransform;
}

// XGBoost: base_score is in output space and goes through the link's inverse (ProbToMargin).
const XGBOOST: Record<string, ObjectiveSpec> = {
  "reg:squarederror": { transform: "identity" },
  "reg:pseudohubererror": { transform: "identity" },
  "reg:absoluteerror": { transform: "identity" },
  // 3.x; one quantile only (several quantiles make a multi-target model, which is refused).
  "reg:quantileerror": { transform: "identity" },
  "reg:squaredlogerror": { transform: "identity" },
  // 2.0 and later: the margin is the output and base_score is a margin (1.x took its logit).
  "binary:logitraw": { transform: "identity" },
  "reg:logistic": { transform: "sigmoid" },
  "binary:logistic": { transform: "sigmoid" },
  "count:poisson": { transform: "exp" },
  "reg:gamma": { transform: "exp" },
  "reg:tweedie": { transform: "exp" },
};

// LightGBM folds the initial score into the first tree, so its base score is 0.
const LIGHTGBM: Record<string, ObjectiveSpec> = {
  regression: { transform: "identity" },
  regression_l1: { transform: "identity" },
  huber: { transform: "identity" },
  fair: { transform: "identity" },
  quantile: { transform: "identity" },
  mape: { transform: "identity" },
  binary: { transform: "sigmoid" },
  cross_entropy: { transform: "sigmoid" },
  poisson: { transform: "exp" },
  gamma: { transform: "exp" },
  tweedie: { transform: "exp" },
};

const TABLES: Record<Semantics, Record<string, ObjectiveSpec>> = { xgboost: XGBOOST, lightgbm: LIGHTGBM };

export function knownObjectives(semantics: Semantics): string[] {
  return Object.keys(TABLES[semantics]);
}

export function outputTransform(semantics: Semantics, objective: string): OutputTransform | undefined {
  return Object.hasOwn(TABLES[semantics], objective) ? TABLES[semantics][objective]?.transform : undefined;
}

/** The margin a prediction starts from, or an error message when baseScore is outside the link's domain. */
export function baseMargin(transform: OutputTransform, baseScore: number): number | string {
  if (!Number.isFinite(baseScore)) return "must be a finite number";
  switch (transform) {
    case "identity":
      return baseScore;
    case "sigmoid":
      if (!(baseScore > 0 && baseScore < 1))
        return "must be strictly between 0 and 1 for a logistic objective";
      return -Math.log(1 / baseScore - 1);
    case "exp":
      if (!(baseScore > 0)) return "must be greater than 0 for a log-link objective";
      return Math.log(baseScore);
  }
}

export function applyTransform(transform: OutputTransform, params: ObjectiveParams, margin: number): number {
  switch (transform) {
    case "identity":
      return margin;
    case "sigmoid":
      return 1 / (1 + Math.exp(-(params.sigmoid ?? 1) * margin));
    case "exp":
      return Math.exp(margin);
  }
}
