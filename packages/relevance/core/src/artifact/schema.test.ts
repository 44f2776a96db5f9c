import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { buildArtifact } from "../import/build-artifact.ts";
import { importLightgbm } from "../import/lightgbm.ts";
import { importXgboost } from "../import/xgboost.ts";
import { formatIssues } from "../result.ts";
import { readXgboostCase } from "../test-support/fixtures.ts";
import { validateArtifact } from "./artifact.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests reshape the artifact freely.
type Json = any;

const schema = JSON.parse(readFileSync(new URL("../../artifact.schema.json", import.meta.url), "utf8"));
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);

function exported(kind: "xgboost" | "lightgbm"): Record<string, unknown> {
  const draft =
    kind === "xgboost"
      ? importXgboost(readXgboostCase("missing_values").model)
      : importLightgbm({
          objective: "binary sigmoid:1",
          feature_names: ["jaccard"],
          tree_info: [
            {
              tree_structure: {
                split_feature: 0,
                threshold: 0.5,
                decision_type: "<=",
                default_left: true,
                missing_type: "NaN",
                left_child: { leaf_value: 1 },
                right_child: { leaf_value: -1 },
              },
            },
          ],
        });
  if (!draft.ok) throw new Error(formatIssues(draft.errors));
  const built = buildArtifact(draft.value, {
    modelId: "acme:products:v1",
    titleField: "title",
    tagsField: null,
  });
  if (!built.ok) throw new Error(formatIssues(built.errors));
  return JSON.parse(built.value.text);
}

describe("artifact.schema.json (the published JSON Schema) agrees with the loader", () => {
  it.each(["xgboost", "lightgbm"] as const)("accepts what model export writes from %s", (kind) => {
    expect(validate(exported(kind)), JSON.stringify(validate.errors)).toBe(true);
  });

  it("objectiveParams.sqrt (LightGBM reg_sqrt): true is accepted, any other value rejected", () => {
    const a = exported("lightgbm") as Json;
    a.objective = "regression";
    a.objectiveParams = { sqrt: true };
    expect(validate(a), JSON.stringify(validate.errors)).toBe(true);
    for (const bad of [false, "true", 1]) {
      a.objectiveParams = { sqrt: bad };
      expect(validate(a)).toBe(false);
    }
  });

  it("accepts a dart export, whose source records the booster and the folded tree weights", () => {
    const draft = importXgboost(readXgboostCase("dart_tree_uniform", "v1/").model);
    if (!draft.ok) throw new Error(formatIssues(draft.errors));
    const built = buildArtifact(draft.value, {
      modelId: "acme:products:v1",
      titleField: null,
      tagsField: null,
    });
    if (!built.ok) throw new Error(formatIssues(built.errors));
    const artifact = JSON.parse(built.value.text);
    expect(artifact.source).toEqual({
      library: "xgboost",
      version: "1.7.4",
      booster: "dart",
      treeWeights: "folded",
    });
    expect(validate(artifact), JSON.stringify(validate.errors)).toBe(true);
    artifact.source.treeWeights = "unfolded";
    expect(validate(artifact)).toBe(false);
    expect(validateArtifact(artifact).ok).toBe(false);
  });

  it("accepts an export with a training profile, and rejects a profile the loader rejects", () => {
    const draft = importXgboost(readXgboostCase("missing_values").model);
    if (!draft.ok) throw new Error(formatIssues(draft.errors));
    const profileRows = Array.from({ length: 30 }, (_, i) =>
      Object.fromEntries(draft.value.features.map((f, j) => [f, i % 5 === j ? null : (i * (j + 1)) % 11])),
    );
    const built = buildArtifact(draft.value, {
      modelId: "acme:products:v1",
      titleField: null,
      tagsField: null,
      profileRows,
    });
    if (!built.ok) throw new Error(formatIssues(built.errors));
    const a = JSON.parse(built.value.text);
    expect(validate(a), JSON.stringify(validate.errors)).toBe(true);
    a.trainingProfile.features.price = a.trainingProfile.score;
    expect(validate(a)).toBe(false);
    expect(validateArtifact(a).ok).toBe(false);
  });

  it("rejects documents the loader rejects for their shape", () => {
    const bad = [
      (a: Json) => {
        a.formatVersion = 2;
      },
      (a: Json) => {
        a.features = ["price"];
      },
      (a: Json) => {
        delete a.trainedOn.tagsField;
      },
      (a: Json) => {
        a.trees[0].value[0] = "NaN";
      },
      (a: Json) => {
        a.objective = "multi:softprob";
      },
      (a: Json) => {
        a.extra = true;
      },
    ];
    for (const mutate of bad) {
      const a = exported("xgboost");
      mutate(a);
      expect(validate(a)).toBe(false);
    }
  });
});
