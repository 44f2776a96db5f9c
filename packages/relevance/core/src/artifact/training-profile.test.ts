import { describe, expect, it } from "vitest";
import { buildArtifact } from "../import/build-artifact.ts";
import { importXgboost } from "../import/xgboost.ts";
import { formatIssues, type Issue } from "../result.ts";
import { readXgboostCase } from "../test-support/fixtures.ts";
import { validateArtifact } from "./artifact.ts";
import { profileBin, profileDistribution, validateTrainingProfile } from "./training-profile.ts";

const oneToTwenty = Array.from({ length: 20 }, (_, i) => i + 1);

describe("profileDistribution: the training rows' decile bins", () => {
  it("cuts 1..20 into ten bins of two rows each, edges from the minimum to the maximum", () => {
    const d = profileDistribution(oneToTwenty);
    expect(d.edges).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 20]);
    expect(d.shares).toEqual(new Array(10).fill(0.1));
    expect(d.missingShare).toBe(0);
  });

  it("merges tied edges (a mostly-zero feature gets fewer bins) and counts missing values apart", () => {
    const values = [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, null, null];
    const d = profileDistribution(values);
    expect(d.edges).toEqual([0, 1, 2]);
    // 8 zeros in [0, 1); 1 and 2 in the last bin, which runs from 1 up.
    expect(d.shares).toEqual([0.666667, 0.166667]);
    expect(d.missingShare).toBe(0.166667);
  });

  it("gives a constant feature one bin, and an always-missing one none", () => {
    expect(profileDistribution([3, 3, 3])).toEqual({ edges: [3], shares: [1], missingShare: 0 });
    expect(profileDistribution([null, null])).toEqual({ edges: [], shares: [], missingShare: 1 });
  });

  it("does not depend on the rows' order", () => {
    const shuffled = [...oneToTwenty].reverse();
    expect(JSON.stringify(profileDistribution(shuffled))).toBe(
      JSON.stringify(profileDistribution(oneToTwenty)),
    );
  });
});

describe("profileBin", () => {
  it("puts a value on an edge in the bin above it and values outside the training range in the end bins", () => {
    const edges = [0, 1, 2, 3];
    expect([-5, 0, 0.5, 1, 2.99, 3, 99].map((v) => profileBin(edges, v))).toEqual([0, 0, 0, 1, 2, 2, 2]);
    expect(profileBin([7], 100)).toBe(0);
  });
});

describe("validateTrainingProfile", () => {
  const good = {
    rows: 20,
    features: { jaccard: profileDistribution(oneToTwenty) },
    score: profileDistribution(oneToTwenty),
  };
  const check = (p: unknown): Issue[] => {
    const errors: Issue[] = [];
    validateTrainingProfile(p, "trainingProfile", ["jaccard"], errors);
    return errors;
  };

  it("accepts a computed profile", () => {
    expect(check(good)).toEqual([]);
  });

  it("names the field of each malformed or oversized part", () => {
    const cases: [unknown, string][] = [
      [{ ...good, rows: 0 }, "trainingProfile.rows"],
      [{ ...good, features: { price: good.score } }, "trainingProfile.features.price"],
      [{ ...good, score: { ...good.score, edges: [2, 1] } }, "trainingProfile.score.edges[1]"],
      [{ ...good, score: { ...good.score, shares: [1] } }, "trainingProfile.score.shares"],
      [{ ...good, score: { ...good.score, missingShare: 0.5 } }, "trainingProfile.score"],
      [
        { ...good, score: { edges: Array.from({ length: 102 }, (_, i) => i), shares: [], missingShare: 0 } },
        "trainingProfile.score.edges",
      ],
    ];
    for (const [profile, path] of cases) expect(check(profile).map((e) => e.path)).toContain(path);
  });
});

describe("an artifact's trainingProfile", () => {
  const draft = importXgboost(readXgboostCase("missing_values").model);
  if (!draft.ok) throw new Error(formatIssues(draft.errors));
  const features = draft.value.features;
  const rows = Array.from({ length: 50 }, (_, i) =>
    Object.fromEntries(features.map((f, j) => [f, (i * (j + 3)) % 7 === 0 ? null : ((i * 7 + j) % 13) / 13])),
  );
  const build = () =>
    buildArtifact(draft.value, {
      modelId: "acme:products:v1",
      titleField: null,
      tagsField: null,
      profileRows: rows,
    });

  it("is computed at export from the rows and the model's own scores, the same bytes each time", () => {
    const a = build();
    const b = build();
    if (!a.ok || !b.ok) throw new Error("build failed");
    expect(a.value.text).toBe(b.value.text);
    const profile = a.value.artifact.trainingProfile;
    expect(profile?.rows).toBe(50);
    expect(Object.keys(profile?.features ?? {})).toEqual(features);
    expect(profile?.score.shares.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 5);
  });

  it("is optional: an export without rows has none and still loads", () => {
    const plain = buildArtifact(draft.value, {
      modelId: "acme:products:v1",
      titleField: null,
      tagsField: null,
    });
    if (!plain.ok) throw new Error("build failed");
    expect("trainingProfile" in JSON.parse(plain.value.text)).toBe(false);
    expect(validateArtifact(JSON.parse(plain.value.text)).ok).toBe(true);
  });

  it("makes a loader refuse the artifact when malformed", () => {
    const a = build();
    if (!a.ok) throw new Error("build failed");
    const json = JSON.parse(a.value.text);
    json.trainingProfile.score.shares[0] = 2;
    const result = validateArtifact(json);
    expect(result.ok).toBe(false);
  });

  it("refuses profile rows that are not feature vectors of the model", () => {
    const r = buildArtifact(draft.value, {
      modelId: "acme:products:v1",
      titleField: null,
      tagsField: null,
      profileRows: [{ price: 1 }],
    });
    expect(r.ok).toBe(false);
  });
});
