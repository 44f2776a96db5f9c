import { describe, expect, it } from "vitest";
import { compileModel } from "../artifact/compile.ts";
import { formatIssues } from "../result.ts";
import { readXgboostCase, toRow } from "../test-support/fixtures.ts";
import { buildArtifact } from "./build-artifact.ts";
import { importXgboost, parseBaseScore } from "./xgboost.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests reshape XGBoost's JSON freely.
type Json = any;

function fixture(name = "squarederror_explicit_base"): Json {
  return structuredClone(readXgboostCase(name).model);
}

function refusal(doc: Json): string {
  const r = importXgboost(doc);
  if (r.ok) throw new Error("expected a refusal");
  return formatIssues(r.errors);
}

describe("importXgboost: format variants across XGBoost 1.x to 3.x", () => {
  it('parses base_score as a number, "5E-1" or "[5E-1]"', () => {
    expect(parseBaseScore("5E-1")).toEqual([0.5]);
    expect(parseBaseScore("[3.7E0]")).toEqual([3.7]);
    expect(parseBaseScore(0.25)).toEqual([0.25]);
    expect(parseBaseScore("[5E-1,2E-1]")).toEqual([0.5, 0.2]);
    expect(parseBaseScore("abc")).toBeNull();
    expect(parseBaseScore("[]")).toBeNull();
  });

  it("gives the same predictions for the 3.x shape (bracketed base_score, boolean default_left, no num_target)", () => {
    const { cases } = readXgboostCase("missing_values");
    const original = importXgboost(fixture("missing_values"));
    const doc = fixture("missing_values");
    doc.version = [3, 0, 2];
    doc.learner.learner_model_param.base_score = `[${doc.learner.learner_model_param.base_score}]`;
    delete doc.learner.learner_model_param.num_target;
    for (const tree of doc.learner.gradient_booster.model.trees)
      tree.default_left = tree.default_left.map((d: number) => d === 1);
    const variant = importXgboost(doc);
    expect(original.ok && variant.ok).toBe(true);
    if (!original.ok || !variant.ok) return;
    expect(variant.value.source.version).toBe("3.0.2");
    const a = compileModel(original.value);
    const b = compileModel(variant.value);
    for (const row of cases.rows) expect(b.predict(toRow(row))).toBe(a.predict(toRow(row)));
  });
});

describe("importXgboost: refusals are one clear line", () => {
  it("refuses dart", () => {
    const doc = fixture();
    doc.learner.gradient_booster = { name: "dart", gbtree: doc.learner.gradient_booster, weight_drop: [1] };
    expect(refusal(doc)).toMatch(/^learner\.gradient_booster\.name: dart boosters are not supported/);
  });

  it("refuses gblinear", () => {
    const doc = fixture();
    doc.learner.gradient_booster = { name: "gblinear", model: { weights: [0.1] } };
    expect(refusal(doc)).toMatch(/gblinear boosters are not supported/);
  });

  it("refuses categorical splits", () => {
    const doc = fixture();
    const tree = doc.learner.gradient_booster.model.trees[2];
    tree.split_type = tree.split_type.map((_: number, i: number) => (i === 0 ? 1 : 0));
    expect(refusal(doc)).toMatch(
      /^learner\.gradient_booster\.model\.trees\[2\]\.split_type: categorical splits are not supported/,
    );
  });

  it("refuses multi-target and multi-class models", () => {
    const a = fixture();
    a.learner.learner_model_param.num_target = "2";
    expect(refusal(a)).toMatch(/multi-target models are not supported/);
    const b = fixture();
    b.learner.learner_model_param.num_class = "3";
    expect(refusal(b)).toMatch(/multi-target models are not supported \(num_class 3/);
    const c = fixture();
    c.learner.learner_model_param.base_score = "[5E-1,5E-1]";
    expect(refusal(c)).toMatch(/base_score: has several values/);
  });

  it("refuses an unknown objective, naming the supported ones", () => {
    const doc = fixture();
    doc.learner.objective = { name: "multi:softprob" };
    expect(refusal(doc)).toMatch(
      /^learner\.objective\.name: unknown objective "multi:softprob"; supported: reg:squarederror, /,
    );
  });

  it("refuses a model without feature names, since features are mapped by name", () => {
    const doc = fixture();
    doc.learner.feature_names = [];
    expect(refusal(doc)).toMatch(/^learner\.feature_names: are missing/);
  });

  it("refuses child links out of range or forming a cycle", () => {
    const a = fixture();
    a.learner.gradient_booster.model.trees[0].left_children[0] = 999;
    expect(refusal(a)).toMatch(/trees\[0\]: left_children points to node 999, out of range/);
    const b = fixture();
    b.learner.gradient_booster.model.trees[0].left_children[1] = 0;
    expect(refusal(b)).toMatch(/trees\[0\]: node 0 is reached twice/);
  });

  it("refuses a document that is not XGBoost JSON", () => {
    expect(refusal({ tree_info: [] })).toBe(
      "learner: is missing: this is not an XGBoost save_model JSON document",
    );
  });
});

describe("buildArtifact from an XGBoost import", () => {
  it("refuses feature names outside set v1", () => {
    const doc = fixture();
    doc.learner.feature_names[1] = "price";
    const draft = importXgboost(doc);
    if (!draft.ok) throw new Error(formatIssues(draft.errors));
    const r = buildArtifact(draft.value, { modelId: "acme:shop:v1", titleField: "title", tagsField: "tags" });
    expect(r.ok ? "" : formatIssues(r.errors)).toBe("features: feature names outside set v1: price");
  });

  it("keeps the training library's predictions as golden rows, and refuses ones this engine does not reproduce", () => {
    const { cases } = readXgboostCase("binary_logistic");
    const draft = importXgboost(fixture("binary_logistic"));
    if (!draft.ok) throw new Error(formatIssues(draft.errors));
    const rows = cases.rows.slice(0, 5).map((row, i) => ({
      features: Object.fromEntries(cases.feature_names.map((n, j) => [n, row[j] ?? null])),
      prediction: cases.predictions[i] as number,
    }));
    const good = buildArtifact(draft.value, {
      modelId: "acme:shop:v1",
      titleField: "title",
      tagsField: "tags",
      golden: { source: "xgboost 1.7.4", rows },
    });
    expect(good.ok).toBe(true);
    const bad = structuredClone(rows);
    (bad[3] as { prediction: number }).prediction += 0.001;
    const r = buildArtifact(draft.value, {
      modelId: "acme:shop:v1",
      titleField: "title",
      tagsField: "tags",
      golden: { source: "xgboost 1.7.4", rows: bad },
    });
    expect(r.ok ? "" : formatIssues(r.errors)).toMatch(
      /^golden\.rows\[3\]: this engine predicts .* but xgboost 1\.7\.4 expected/,
    );
  });

  it("derives the index from the model id, and needs it explicitly otherwise", () => {
    const draft = importXgboost(fixture());
    if (!draft.ok) throw new Error(formatIssues(draft.errors));
    const r = buildArtifact(draft.value, { modelId: "my-model", titleField: null, tagsField: null });
    expect(r.ok ? "" : formatIssues(r.errors)).toMatch(
      /^modelId: "my-model" does not follow <account>:<index>:v<n>/,
    );
    expect(
      buildArtifact(draft.value, { modelId: "my-model", index: "shop", titleField: null, tagsField: null })
        .ok,
    ).toBe(true);
  });
});
