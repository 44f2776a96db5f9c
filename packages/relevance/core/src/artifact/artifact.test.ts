import { describe, expect, it } from "vitest";
import { buildArtifact } from "../import/build-artifact.ts";
import { formatIssues } from "../result.ts";
import { smallDraft } from "../test-support/small-model.ts";
import { loadArtifact, parseArtifact } from "./load.ts";

function artifactJson(): Record<string, unknown> {
  const built = buildArtifact(smallDraft(), {
    modelId: "acme:products:v1",
    titleField: "title",
    tagsField: null,
  });
  if (!built.ok) throw new Error(formatIssues(built.errors));
  return JSON.parse(built.value.text) as Record<string, unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: tests reshape the artifact freely.
type Json = any;

function loadError(mutate: (a: Json) => void, options = {}): string {
  const a = artifactJson();
  mutate(a);
  const r = loadArtifact(JSON.stringify(a), options);
  if (r.ok) throw new Error("expected the artifact to be refused");
  return formatIssues(r.errors);
}

describe("model artifact: build, load, evaluate", () => {
  it("builds a deterministic artifact that loads, re-checks its golden rows and predicts", () => {
    const a = buildArtifact(smallDraft(), {
      modelId: "acme:products:v1",
      titleField: "title",
      tagsField: null,
    });
    const b = buildArtifact(smallDraft(), {
      modelId: "acme:products:v1",
      titleField: "title",
      tagsField: null,
    });
    expect(a.ok && b.ok && a.value.text === b.value.text).toBe(true);
    if (!a.ok) return;
    expect(a.value.artifact).toMatchObject({
      format: "relevance-model",
      formatVersion: 1,
      index: "products",
      trainedOn: { titleField: "title", tagsField: null },
    });
    expect(a.value.artifact.golden.source).toBe("engine");
    const loaded = loadArtifact(a.value.text, { checkGolden: true });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const { model } = loaded.value;
    expect(model.predict([5, 0.1])).toBe(0.5 + 1 + 0.25);
    expect(model.predict([5, 0.9])).toBe(0.5 + 2 + 0.25);
    expect(model.predict([50, 0.1])).toBe(0.5 + 3 + 0.25);
    // hit_count missing goes left (default_left), jaccard missing goes right.
    expect(model.predict([Number.NaN, Number.NaN])).toBe(0.5 + 2 + 0.25);
    expect(model.numTrees).toBe(2);
    expect(model.maxDepth).toBe(2);
  });

  it("refuses malformed JSON in one line", () => {
    const r = parseArtifact("{not json");
    expect(r.ok ? "" : formatIssues(r.errors)).toMatch(/^the artifact is not valid JSON/);
  });

  it("refuses another format or a newer format version", () => {
    expect(
      loadError((a) => {
        a.format = "xgboost";
      }),
    ).toMatch(/^format: must be "relevance-model"/);
    expect(
      loadError((a) => {
        a.formatVersion = 2;
      }),
    ).toBe("formatVersion: 2 is not supported; this engine reads version 1");
  });

  it("names wrong types with their path", () => {
    expect(
      loadError((a) => {
        a.features = "hit_count";
      }),
    ).toMatch(/^features: must be a non-empty array/);
    expect(
      loadError((a) => {
        a.trees[0].value[1] = "0.5";
      }),
    ).toBe("trees[0].value[1]: must be a finite number, got a string");
    expect(
      loadError((a) => {
        a.trees[0].left = null;
      }),
    ).toMatch(/^trees\[0\]\.left: must be an array of integers, got null/);
    expect(
      loadError((a) => {
        a.trainedOn = { titleField: 3, tagsField: null };
      }),
    ).toMatch(/^trainedOn\.titleField/);
  });

  it("refuses NaN and infinite thresholds (as strings, or overflowing float32)", () => {
    expect(
      loadError((a) => {
        a.trees[0].value[0] = "NaN";
      }),
    ).toBe("trees[0].value[0]: must be a finite number, got a string");
    expect(
      loadError((a) => {
        a.trees[0].value[0] = 1e39;
      }),
    ).toBe("trees[0].value[0]: threshold 1e+39 is not finite in float32");
  });

  it("refuses child indices out of range, cycles, unreachable nodes and missing leaves", () => {
    expect(
      loadError((a) => {
        a.trees[0].left[0] = 9;
      }),
    ).toBe("trees[0].left[0]: child index 9 is out of range (the tree has 5 nodes)");
    expect(
      loadError((a) => {
        a.trees[0].left[1] = 0;
      }),
    ).toBe("trees[0]: node 0 is reached twice: the child links form a cycle or share a node");
    expect(
      loadError((a) => {
        a.trees[0].right[0] = 3;
      }),
    ).toMatch(/reached twice|unreachable/);
    expect(
      loadError((a) => {
        a.trees[0].left[1] = -1;
        a.trees[0].right[1] = -1;
        a.trees[0].feature[1] = -1;
      }),
    ).toBe("trees[0]: node 3 is unreachable from the root");
    expect(
      loadError((a) => {
        a.trees[0].right[1] = -1;
      }),
    ).toBe("trees[0].left[1]: node 1 has a left child but no right child (missing leaf)");
    expect(
      loadError((a) => {
        a.trees[0].feature[0] = 7;
      }),
    ).toBe("trees[0].feature[0]: feature index 7 is out of range (the model has 2 features)");
  });

  it("refuses feature names outside set v1 and an unknown objective", () => {
    expect(
      loadError((a) => {
        a.features[0] = "price";
      }),
    ).toBe('features[0]: "price" is not a feature of set v1');
    expect(
      loadError((a) => {
        a.objective = "rank:pairwise";
      }),
    ).toMatch(/^objective: must be one of reg:squarederror/);
    expect(
      loadError((a) => {
        a.objective = "binary:logistic";
        a.baseScore = 1.5;
      }),
    ).toMatch(/^baseScore: must be strictly between 0 and 1/);
  });

  it("refuses, when asked to re-check, an artifact whose golden rows this engine does not reproduce", () => {
    const error = loadError(
      (a) => {
        a.golden.rows[0].prediction += 0.01;
      },
      { checkGolden: true },
    );
    expect(error).toMatch(/^golden\.rows\[0\]: this engine predicts .* but engine expected/);
  });

  it("reports every problem, not just the first", () => {
    const a = artifactJson() as Json;
    a.modelId = "";
    a.trees[0].feature[0] = 7;
    a.averageOutput = "no";
    const r = loadArtifact(JSON.stringify(a));
    expect(r.ok ? [] : r.errors.map((e) => e.path).sort()).toEqual([
      "averageOutput",
      "modelId",
      "trees[0].feature[0]",
    ]);
  });
});
