import { describe, expect, it } from "vitest";
import { importXgboost } from "../import/xgboost.ts";
import { formatIssues } from "../result.ts";
import { readXgboostCase, toRow, xgboostCaseNames } from "../test-support/fixtures.ts";
import { smallDraft } from "../test-support/small-model.ts";
import { compileModel } from "./compile.ts";

describe("compileModel", () => {
  it.each(xgboostCaseNames())(
    "%s: the complete-tree fast path and the general walker agree bit for bit",
    (name) => {
      const { model, cases } = readXgboostCase(name);
      const draft = importXgboost(model);
      if (!draft.ok) throw new Error(formatIssues(draft.errors));
      const fast = compileModel(draft.value);
      const general = compileModel(draft.value, { completeTrees: false });
      for (const raw of cases.rows) {
        const row = toRow(raw);
        expect(Object.is(fast.predictMargin(row), general.predictMargin(row))).toBe(true);
      }
    },
  );

  it("pads leaves above full depth so that every path still reaches its leaf", () => {
    // Tree 0 has a leaf at depth 1 (hit_count >= 10) and leaves at depth 2.
    const fast = compileModel(smallDraft());
    const general = compileModel(smallDraft(), { completeTrees: false });
    expect(fast).not.toEqual(general);
    for (const row of [
      [5, 0.1],
      [5, 0.9],
      [50, 0.1],
      [50, 0.9],
      [10, 0.5],
      [9.999999, 0.4999999],
      [3e38, -3e38],
    ]) {
      expect(fast.predict(row)).toBe(general.predict(row));
    }
    expect(fast.predict([50, 0.9])).toBe(0.5 + 3 + 0.25);
  });

  it("predictV1 reads a canonical feature vector through the model's own column order", () => {
    const model = compileModel(smallDraft());
    const v1 = new Float64Array(9);
    v1[1] = 5; // hit_count
    v1[3] = 0.9; // jaccard
    expect(model.predictV1(v1)).toBe(model.predict([5, 0.9]));
  });
});
