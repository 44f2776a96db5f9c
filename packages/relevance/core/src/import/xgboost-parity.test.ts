import { describe, expect, it } from "vitest";
import { compileModel } from "../artifact/compile.ts";
import { withinTolerance } from "../artifact/golden.ts";
import type { ModelDraft } from "../artifact/model.ts";
import { baseMargin, type OutputTransform, outputTransform } from "../artifact/objectives.ts";
import { readXgboostCase, toRow, xgboostCaseNames } from "../test-support/fixtures.ts";
import { importXgboost } from "./xgboost.ts";

const names = xgboostCaseNames();

function importCase(name: string): ModelDraft {
  const imported = importXgboost(readXgboostCase(name).model);
  if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
  return imported.value;
}

/** What an evaluator that ignores float32 would compute: double compare, double sum. */
function naiveFloat64Margin(draft: ModelDraft, row: Float64Array, baseMargin: number): number {
  let sum = baseMargin;
  for (const tree of draft.trees) {
    let n = 0;
    while (tree.left[n] !== -1) {
      const x = row[tree.feature[n] as number] as number;
      const goLeft = Number.isNaN(x) ? tree.defaultLeft[n] === 1 : x < (tree.value[n] as number);
      n = (goLeft ? tree.left[n] : tree.right[n]) as number;
    }
    sum += tree.value[n] as number;
  }
  return sum;
}

describe("XGBoost 1.7.4 fixtures (real XGBoost, packages/relevance/core/fixtures/xgboost)", () => {
  it("covers the cases the issue names", () => {
    for (const required of [
      "squarederror_default_base",
      "squarederror_explicit_base",
      "missing_values",
      "binary_logistic",
      "pruned_exact_gamma",
      "noncanonical_order",
    ]) {
      expect(names).toContain(required);
    }
  });

  it.each(names)("%s: predictions and margins equal XGBoost's within 1e-5", (name) => {
    const { cases } = readXgboostCase(name);
    const draft = importCase(name);
    expect(draft.features).toEqual(cases.feature_names);
    const model = compileModel(draft);
    cases.rows.forEach((raw, i) => {
      const row = toRow(raw);
      const margin = model.predictMargin(row);
      const prediction = model.predict(row);
      if (
        !withinTolerance(margin, cases.margins[i] as number) ||
        !withinTolerance(prediction, cases.predictions[i] as number)
      ) {
        throw new Error(
          `${name} row ${i}: margin ${margin} vs ${cases.margins[i]}, prediction ${prediction} vs ${cases.predictions[i]}`,
        );
      }
    });
  });

  it.each(names)(
    "%s: a plain float64 comparison would get threshold rows wrong (the fixtures have teeth)",
    (name) => {
      const { cases } = readXgboostCase(name);
      const draft = importCase(name);
      const transform = outputTransform("xgboost", draft.objective) as OutputTransform;
      const start = baseMargin(transform, draft.baseScore) as number;
      const wrong = cases.threshold_rows.filter((i) => {
        const naive = naiveFloat64Margin(draft, toRow(cases.rows[i] as (number | null)[]), start);
        return !withinTolerance(naive, cases.margins[i] as number);
      });
      expect(cases.threshold_rows.length).toBeGreaterThan(0);
      expect(wrong.length).toBeGreaterThan(0);
    },
  );

  it("the pruned fixture really contains deleted nodes, which the importer drops", () => {
    const { model } = readXgboostCase("pruned_exact_gamma");
    const trees = (
      model as {
        learner: {
          gradient_booster: {
            model: { trees: { tree_param: { num_deleted: string }; left_children: number[] }[] };
          };
        };
      }
    ).learner.gradient_booster.model.trees;
    const deleted = trees.reduce((sum, t) => sum + Number(t.tree_param.num_deleted), 0);
    expect(deleted).toBeGreaterThan(0);
    const draft = importCase("pruned_exact_gamma");
    const sourceNodes = trees.reduce((sum, t) => sum + t.left_children.length, 0);
    const keptNodes = draft.trees.reduce((sum, t) => sum + t.left.length, 0);
    expect(keptNodes).toBe(sourceNodes - deleted);
  });

  it("maps features by name when the training columns were in a non-canonical order", () => {
    const draft = importCase("noncanonical_order");
    expect(draft.features).not.toEqual([...draft.features].sort());
    expect(draft.features.length).toBeLessThan(9);
  });
});
