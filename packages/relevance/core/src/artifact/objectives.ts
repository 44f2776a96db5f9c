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
  // The margin is the output, and base_score is used as a margin.
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

/**
 * LightGBM objectives that keep reg_sqrt (RegressionL2loss and the subclasses that do not turn it
 * off): their dump objective reads e.g. `regression sqrt`, and the output is sign(x)·x².
 */
export const LIGHTGBM_SQRT_OBJECTIVES: ReadonlySet<string> = new Set([
  "regression",
  "regression_l1",
  "fair",
  "quantile",
  "mape",
]);

const TABLES: Record<Semantics, Record<string, ObjectiveSpec>> = { xgboost: XGBOOST, lightgbm: LIGHTGBM };

export function knownObjectives(semantics: Semantics): string[] {
  return Object.keys(TABLES[semantics]);
}

export function outputTransform(semantics: Semantics, objective: string): OutputTransform | undefined {
  return Object.hasOwn(TABLES[semantics], objective) ? TABLES[semantics][objective]?.transform : undefined;
}

/**
 * The margin a prediction starts from, or an error message when baseScore is outside the link's
 * domain. XGBoost's arithmetic: base_score as float32, logit as `-logf(1.0f / b - 1.0f)` and log
 * as `logf(b)` (each step rounded to float32; the caller rounds the result).
 */
export function baseMargin(transform: OutputTransform, baseScore: number): number | string {
  if (!Number.isFinite(baseScore)) return "must be a finite number";
  const b = Math.fround(baseScore);
  switch (transform) {
    case "identity":
      return baseScore;
    case "sigmoid":
      if (!(b > 0 && b < 1)) return "must be strictly between 0 and 1 for a logistic objective";
      return -Math.log(Math.fround(Math.fround(1 / b) - 1));
    case "exp":
      if (!(b > 0)) return "must be greater than 0 for a log-link objective";
      return Math.log(b);
  }
}

export function applyTransform(transform: OutputTransform, params: ObjectiveParams, margin: number): number {
  switch (transform) {
    case "identity":
      // LightGBM RegressionL2loss::ConvertOutput with sqrt_: Common::Sign(x) * x * x.
      return params.sqrt === true ? Math.sign(margin) * margin * margin : margin;
    case "sigmoid":
      return 1 / (1 + Math.exp(-(params.sigmoid ?? 1) * margin));
    case "exp":
      return Math.exp(margin);
  }
}
