import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadArtifact } from "../artifact/load.ts";
import { MISSING_NAN, MISSING_ZERO, type ModelDraft } from "../artifact/model.ts";
import { recordFromRow } from "../artifact/rows.ts";
import { formatIssues } from "../result.ts";
import { FIXTURES, toRow } from "../test-support/fixtures.ts";
import { buildArtifact } from "./build-artifact.ts";
import { importLightgbm } from "./lightgbm.ts";

// Fixtures written by packages/relevance/core/fixtures/lightgbm/make_fixtures.py with LightGBM 4.7.0.
const DIR = `${FIXTURES}lightgbm/`;

interface Cases {
  lightgbm_version: string;
  case: string;
  objective: string;
  feature_names: string[];
  rows?: (number | null)[][];
  predictions?: number[];
  margins?: number[];
  special_rows?: number[];
  threshold_rows?: number[];
  thresholds?: { threshold: number; rows: number[] }[];
  refusal?: { path?: string; path_suffix?: string; message: string };
}

const names = readdirSync(DIR)
  .filter((f) => f.endsWith(".cases.json"))
  .map((f) => f.replace(".cases.json", ""))
  .sort();
const read = (name: string): { model: unknown; cases: Cases } => ({
  model: JSON.parse(readFileSync(`${DIR}${name}.model.json`, "utf8")),
  cases: JSON.parse(readFileSync(`${DIR}${name}.cases.json`, "utf8")) as Cases,
});
const accepted = names.filter((n) => read(n).cases.refusal === undefined);
const refused = names.filter((n) => read(n).cases.refusal !== undefined);

function draftOf(name: string): ModelDraft {
  const r = importLightgbm(read(name).model);
  if (!r.ok) throw new Error(`${name}: ${formatIssues(r.errors)}`);
  return r.value;
}

/** 1e-6 relative; both sides add the same doubles in the same order, so most rows are equal. */
const close = (actual: number, expected: number): boolean =>
  Math.abs(actual - expected) <= 1e-6 * Math.abs(expected) || actual === expected;

/** The evaluator before exact LightGBM parity: 1e-35 in double, values below it not read as 0, no reg_sqrt. */
function oldMargin(draft: ModelDraft, row: Float64Array): number {
  let sum = 0;
  for (const tree of draft.trees) {
    let n = 0;
    while (tree.left[n] !== -1) {
      let x = row[tree.feature[n] as number] as number;
      const m = tree.missingType?.[n] ?? 0;
      if (m !== MISSING_NAN && Number.isNaN(x)) x = 0;
      const missing =
        (m === MISSING_ZERO && x >= -1e-35 && x <= 1e-35) || (m === MISSING_NAN && Number.isNaN(x));
      const left = missing ? tree.defaultLeft[n] === 1 : x <= (tree.value[n] as number);
      n = (left ? tree.left[n] : tree.right[n]) as number;
    }
    sum += tree.value[n] as number;
  }
  return draft.averageOutput ? sum / draft.trees.length : sum;
}

describe("LightGBM 4.7.0 fixtures (real LightGBM, packages/relevance/core/fixtures/lightgbm)", () => {
  it("covers the cases the issue names", () => {
    for (const required of [
      "zero_as_missing",
      "missing_type_zero",
      "missing_type_nan",
      "reg_sqrt",
      "huge_thresholds",
      "inf_thresholds",
      "regression",
      "binary",
      "poisson",
      "gamma",
      "tweedie",
      "huber",
      "quantile",
      "refuse_multiclass",
      "refuse_linear_tree",
      "refuse_categorical",
    ]) {
      expect(names).toContain(required);
    }
    for (const name of names) expect(read(name).cases.lightgbm_version).toBe("4.7.0");
  });

  it.each(accepted)("%s: predictions and raw scores equal LightGBM's row by row (1e-6 relative)", (name) => {
    const { cases } = read(name);
    const draft = draftOf(name);
    expect(draft.features).toEqual(cases.feature_names);
    const rows = cases.rows ?? [];
    expect(rows.length).toBeGreaterThan(200);
    const compiled = buildArtifact(draft, { modelId: "acme:products:v1", titleField: null, tagsField: null });
    if (!compiled.ok) throw new Error(formatIssues(compiled.errors));
    // Through the artifact: written, re-read by the loader, compiled.
    const loaded = loadArtifact(compiled.value.text);
    if (!loaded.ok) throw new Error(formatIssues(loaded.errors));
    const model = loaded.value.model;
    // LightGBM's raw_score is the plain sum; with average_output our margin is the average.
    const scale = draft.averageOutput ? draft.trees.length : 1;
    rows.forEach((raw, i) => {
      const row = toRow(raw);
      const margin = model.predictMargin(row) * scale;
      const prediction = model.predict(row);
      if (
        !close(margin, cases.margins?.[i] as number) ||
        !close(prediction, cases.predictions?.[i] as number)
      ) {
        throw new Error(
          `${name} row ${i} ${JSON.stringify(raw)}: margin ${margin} vs ${cases.margins?.[i]}, prediction ${prediction} vs ${cases.predictions?.[i]}`,
        );
      }
    });
  });

  it.each(accepted)(
    "%s: an export with LightGBM's predictions as golden rows passes the golden check",
    (name) => {
      const { cases } = read(name);
      const draft = draftOf(name);
      const rows = (cases.rows ?? []).map((raw, i) => ({
        features: recordFromRow(draft.features, toRow(raw)),
        prediction: cases.predictions?.[i] as number,
      }));
      const built = buildArtifact(draft, {
        modelId: "acme:products:v1",
        titleField: null,
        tagsField: null,
        golden: { source: "lightgbm 4.7.0", rows },
      });
      expect(built.ok ? "ok" : formatIssues(built.errors)).toBe("ok");
    },
  );

  it.each(["zero_as_missing", "missing_type_zero"])(
    "%s: the evaluator before the fix gets rows wrong (the fixture has teeth)",
    (name) => {
      const { cases } = read(name);
      const draft = draftOf(name);
      const wrong = (cases.rows ?? []).filter(
        (raw, i) => !close(oldMargin(draft, toRow(raw)), cases.margins?.[i] as number),
      );
      expect(wrong.length).toBeGreaterThan(0);
    },
  );

  it("reg_sqrt: the dump says 'regression sqrt'; LightGBM's output is sign(x)·x² of the raw score", () => {
    const { cases } = read("reg_sqrt");
    expect(cases.objective).toBe("regression sqrt");
    const draft = draftOf("reg_sqrt");
    expect(draft.objectiveParams).toEqual({ sqrt: true });
    const margins = cases.margins ?? [];
    expect(margins.some((m) => m < 0) && margins.some((m) => m > 0)).toBe(true);
    (cases.predictions ?? []).forEach((p, i) => {
      const m = margins[i] as number;
      expect(close(p, Math.sign(m) * m * m)).toBe(true);
      if (Math.abs(m) > 1e-3 && Math.abs(m) !== 1) expect(close(p, m)).toBe(false);
    });
  });

  it.each(["huge_thresholds", "inf_thresholds"])(
    "%s: thresholds dumped as ±1e300 are compared as printed; rows next to them agree with LightGBM",
    (name) => {
      const { cases } = read(name);
      const thresholds = (cases.thresholds ?? []).map((t) => t.threshold);
      expect(thresholds).toContain(1e300);
      const draft = draftOf(name);
      const values = draft.trees.flatMap((t) => t.value.filter((_, n) => (t.feature[n] as number) >= 0));
      expect(values).toContain(1e300);
      expect(values).toContain(-1e300);
    },
  );

  it.each(refused)("%s: refused in one line that names the field", (name) => {
    const { model, cases } = read(name);
    const r = importLightgbm(model);
    if (r.ok) throw new Error(`${name} was accepted`);
    const first = r.errors[0];
    const expected = cases.refusal as NonNullable<Cases["refusal"]>;
    if (expected.path !== undefined) expect(first?.path).toBe(expected.path);
    if (expected.path_suffix !== undefined) expect(first?.path.endsWith(expected.path_suffix)).toBe(true);
    expect(first?.message).toContain(expected.message);
    expect(formatIssues(r.errors)).not.toContain("\n");
  });
});
