import { type Issue, issue } from "../result.ts";
import { GOLDEN_TOLERANCE, type Golden, type GoldenRow } from "./artifact.ts";
import type { CompiledModel } from "./compile.ts";
import type { ModelDraft } from "./model.ts";
import { recordFromRow, rowFromRecord } from "./rows.ts";

export function withinTolerance(actual: number, expected: number, tolerance = GOLDEN_TOLERANCE): boolean {
  return Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected));
}

/**
 * Deterministic rows that walk many paths: per feature, values between, below and above the
 * model's own split thresholds, plus a row with every value missing. Used when the training
 * library's predictions were not supplied, so a loader can still detect an evaluator change.
 */
export function engineGoldenRows(draft: ModelDraft, model: CompiledModel, count = 8): GoldenRow[] {
  const thresholds: number[][] = draft.features.map(() => []);
  for (const tree of draft.trees) {
    tree.feature.forEach((f, n) => {
      if (f >= 0) thresholds[f]?.push(tree.value[n] as number);
    });
  }
  const candidates = thresholds.map((ts) => {
    const sorted = [...new Set(ts)].sort((a, b) => a - b);
    if (sorted.length === 0) return [0];
    const out = [(sorted[0] as number) - 1];
    for (let i = 0; i + 1 < sorted.length; i++)
      out.push(((sorted[i] as number) + (sorted[i + 1] as number)) / 2);
    out.push((sorted[sorted.length - 1] as number) + 1);
    return out;
  });
  const rows: GoldenRow[] = [];
  for (let r = 0; r < count - 1; r++) {
    const row = candidates.map((c, j) => c[(r * 5 + j * 3) % c.length] as number);
    rows.push({ features: recordFromRow(draft.features, row), prediction: model.predict(row) });
  }
  const missing = new Float64Array(draft.features.length).fill(Number.NaN);
  rows.push({ features: recordFromRow(draft.features, missing), prediction: model.predict(missing) });
  return rows;
}

/** Re-computes every golden row; an issue per row whose prediction differs beyond the tolerance. */
export function checkGolden(model: CompiledModel, golden: Golden): Issue[] {
  const errors: Issue[] = [];
  golden.rows.forEach((row, i) => {
    const parsed = rowFromRecord(model.features, row.features, `golden.rows[${i}].features`);
    if (!parsed.ok) {
      errors.push(...parsed.errors);
      return;
    }
    const actual = model.predict(parsed.value);
    if (!withinTolerance(actual, row.prediction)) {
      errors.push(
        issue(
          `golden.rows[${i}]`,
          `this engine predicts ${actual} but ${golden.source} expected ${row.prediction}`,
        ),
      );
    }
  });
  return errors;
}
