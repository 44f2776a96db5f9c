import type { ProfileDistribution, TrainingProfile } from "@relevance/core";
import { describe, expect, it } from "vitest";
import { binByProfile, featurePsi, PSI_MIN_OBSERVATIONS, PSI_MIN_SHARE, psi, scorePsi } from "./psi.ts";

const halves: ProfileDistribution = { edges: [0, 0.5, 1], shares: [0.5, 0.5], missingShare: 0 };
const quarters: ProfileDistribution = {
  edges: [0, 1, 2, 3, 4],
  shares: [0.25, 0.25, 0.25, 0.25],
  missingShare: 0,
};
const profile: TrainingProfile = { rows: 1000, features: { jaccard: halves }, score: quarters };

const repeat = (value: number | null, times: number): (number | null)[] => new Array(times).fill(value);

describe("binByProfile", () => {
  it("counts values by the profile's edges, values outside the training range in the end bins", () => {
    expect(binByProfile(quarters, [-1, 0, 1, 1.5, 3.99, 4, 50, null, Number.NaN])).toEqual({
      counts: [2, 2, 0, 3],
      missing: 2,
    });
  });
});

describe("psi: population stability index against the profile's shares", () => {
  it("is 0 when the observed shares are the training shares", () => {
    const r = psi(halves, { counts: [150, 150], missing: 0 });
    expect(r).toEqual({ kind: "psi", psi: 0, observed: 300 });
  });

  it("matches the hand-computed value for a 60/40 split against 50/50", () => {
    // (0.6 - 0.5) ln(0.6 / 0.5) + (0.4 - 0.5) ln(0.4 / 0.5) = 0.0182322 + 0.0223144; the missing bin is
    // floored to the same share on both sides and adds 0.
    const r = psi(halves, { counts: [60, 40], missing: 0 });
    expect(r.kind).toBe("psi");
    if (r.kind === "psi") expect(r.psi).toBeCloseTo(0.0405465, 6);
  });

  it("floors an emptied bin at PSI_MIN_SHARE instead of going infinite", () => {
    // Everything in the first quarter: 0.75 ln(4) + 3 (1e-4 - 0.25) ln(1e-4 / 0.25).
    const r = psi(quarters, { counts: [200, 0, 0, 0], missing: 0 });
    const expected = 0.75 * Math.log(4) + 3 * (PSI_MIN_SHARE - 0.25) * Math.log(PSI_MIN_SHARE / 0.25);
    expect(expected).toBeCloseTo(6.9054, 3);
    if (r.kind !== "psi") throw new Error(r.kind);
    expect(r.psi).toBeCloseTo(expected, 9);
  });

  it("counts missing values as a bin of their own", () => {
    // 10 % missing against none in training: (0.1 - 1e-4) ln(0.1 / 1e-4) + 2 (0.45 - 0.5) ln(0.9).
    const r = psi(halves, { counts: [90, 90], missing: 20 });
    if (r.kind !== "psi") throw new Error(r.kind);
    expect(r.psi).toBeCloseTo((0.1 - 1e-4) * Math.log(1000) + 2 * -0.05 * Math.log(0.9), 9);
  });

  it("says too few below PSI_MIN_OBSERVATIONS values rather than reporting noise", () => {
    expect(psi(halves, { counts: [PSI_MIN_OBSERVATIONS - 1, 0], missing: 0 })).toEqual({
      kind: "too-few",
      observed: PSI_MIN_OBSERVATIONS - 1,
      minimum: PSI_MIN_OBSERVATIONS,
    });
  });
});

describe("featurePsi and scorePsi", () => {
  it("bin the observed values and compare them with the model's profile", () => {
    const r = featurePsi(profile, "jaccard", [...repeat(0.1, 60), ...repeat(0.9, 40)]);
    if (r.kind !== "psi") throw new Error(r.kind);
    expect(r.psi).toBeCloseTo(0.0405465, 6);
    const s = scorePsi(profile, [
      ...repeat(0.5, 25),
      ...repeat(1.5, 25),
      ...repeat(2.5, 25),
      ...repeat(3.5, 25),
    ]);
    expect(s).toEqual({ kind: "psi", psi: 0, observed: 100 });
  });

  it("say so, as a result, when the model has no profile or the feature was not profiled", () => {
    expect(featurePsi(undefined, "jaccard", [1])).toEqual({ kind: "no-profile" });
    expect(scorePsi(undefined, [1])).toEqual({ kind: "no-profile" });
    expect(featurePsi(profile, "bm25_title", [1])).toEqual({ kind: "not-profiled", feature: "bm25_title" });
  });
});
