import { type ProfileDistribution, profileBin, type TrainingProfile } from "@relevance/core";

/**
 * The share a bin is given when it is empty, on either side, before the PSI's logarithm: an empty
 * bin would make ln(observed / expected) infinite. 1e-4 is the customary floor (one row in ten
 * thousand), so a bin that empties out still counts heavily without dominating every other bin.
 */
export const PSI_MIN_SHARE = 1e-4;
/**
 * Below this many observed values a PSI is not computed: with few values the bins' shares are noise
 * and the PSI of a sample from the very same distribution is large (about bins / n).
 */
export const PSI_MIN_OBSERVATIONS = 100;
/** The PSI above which a distribution is said to have drifted (the usual rule of thumb). */
export const PSI_DRIFT_THRESHOLD = 0.2;

/** Observed values counted in a profile distribution's bins, plus the missing ones. */
export interface BinCounts {
  counts: number[];
  missing: number;
}

export type PsiResult =
  | { kind: "psi"; psi: number; observed: number }
  | { kind: "too-few"; observed: number; minimum: number }
  | { kind: "no-profile" }
  | { kind: "not-profiled"; feature: string };

/** Counts `values` (null, undefined or NaN for missing) in the bins of `dist`'s edges. */
export function binByProfile(
  dist: ProfileDistribution,
  values: Iterable<number | null | undefined>,
): BinCounts {
  const counts = new Array<number>(dist.shares.length).fill(0);
  let missing = 0;
  for (const v of values) {
    if (v === null || v === undefined || !Number.isFinite(v) || counts.length === 0) missing++;
    else {
      const bin = profileBin(dist.edges, v);
      counts[bin] = (counts[bin] ?? 0) + 1;
    }
  }
  return { counts, missing };
}

/**
 * The population stability index of observed counts against the profile's shares, the missing
 * values being one more bin: sum over bins of (o - e) * ln(o / e), each share floored at
 * PSI_MIN_SHARE. 0 means the same distribution; 0.1 to 0.2 a moderate shift; above 0.2 drift.
 */
export function psi(dist: ProfileDistribution, observed: BinCounts): PsiResult {
  if (observed.counts.length !== dist.shares.length)
    throw new RangeError(`observed has ${observed.counts.length} bins, the profile ${dist.shares.length}`);
  const n = observed.counts.reduce((a, b) => a + b, 0) + observed.missing;
  if (n < PSI_MIN_OBSERVATIONS) return { kind: "too-few", observed: n, minimum: PSI_MIN_OBSERVATIONS };
  const expected = [...dist.shares, dist.missingShare];
  const seen = [...observed.counts, observed.missing];
  let sum = 0;
  for (let i = 0; i < expected.length; i++) {
    const e = Math.max(expected[i] as number, PSI_MIN_SHARE);
    const o = Math.max((seen[i] as number) / n, PSI_MIN_SHARE);
    sum += (o - e) * Math.log(o / e);
  }
  return { kind: "psi", psi: sum, observed: n };
}

/** The PSI of one feature's observed values against a model's profile (or why there is none). */
export function featurePsi(
  profile: TrainingProfile | undefined,
  feature: string,
  values: Iterable<number | null | undefined>,
): PsiResult {
  if (profile === undefined) return { kind: "no-profile" };
  const dist = profile.features[feature];
  if (dist === undefined) return { kind: "not-profiled", feature };
  return psi(dist, binByProfile(dist, values));
}

/** The PSI of observed scores against a model's profile (or why there is none). */
export function scorePsi(profile: TrainingProfile | undefined, scores: Iterable<number | null>): PsiResult {
  if (profile === undefined) return { kind: "no-profile" };
  return psi(profile.score, binByProfile(profile.score, scores));
}
