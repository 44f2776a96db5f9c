import { isFeatureV1 } from "../features.ts";
import { at, describeType, type Issue, isPlainObject, issue } from "../result.ts";

/**
 * How many quantile bins the export cuts each feature and the score into: deciles, so each bin
 * holds about a tenth of the training rows.
 */
export const PROFILE_BINS = 10;
/**
 * The most training rows `model export --profile-rows` profiles: quantiles sort every value, and a
 * million rows of twenty features is about 160 MB of numbers in memory; a sample profiles as well.
 */
export const MAX_PROFILE_ROWS = 1_000_000;
/** The most bins a loaded profile may declare per distribution (edges hold one more value). */
export const MAX_PROFILE_BINS = 100;
/** Shares are rounded to this many decimals so the export is byte-for-byte reproducible. */
const SHARE_DECIMALS = 6;
/** Shares of one distribution may miss 1 by this much (rounding of each share). */
const SHARE_SUM_TOLERANCE = 1e-4;

/**
 * One distribution on the training rows. `edges` are ascending and distinct: the minimum, the
 * inner quantile edges, the maximum. Bin i holds the values v with edges[i] <= v < edges[i + 1]
 * (the first bin also takes values below the minimum, the last those from its lower edge up, past
 * the maximum), so every finite value falls in exactly one bin. `shares[i]` is the share of all rows
 * in bin i and `missingShare` the share of rows without a value; together they sum to 1.
 */
export interface ProfileDistribution {
  edges: number[];
  shares: number[];
  missingShare: number;
}

/** The training rows' distributions, carried by an artifact so live traffic can be compared to them. */
export interface TrainingProfile {
  rows: number;
  features: Record<string, ProfileDistribution>;
  score: ProfileDistribution;
}

/**
 * The bin of `value` under `edges` (see ProfileDistribution); a single-edge distribution (every
 * training value equal) has one bin.
 */
export function profileBin(edges: readonly number[], value: number): number {
  const bins = Math.max(1, edges.length - 1);
  // Inner edges are edges[1..bins-1]; the bin is how many of them are <= value.
  let lo = 1;
  let hi = bins; // first inner index whose edge is > value, searched in [1, bins]
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((edges[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function round(x: number): number {
  const f = 10 ** SHARE_DECIMALS;
  return Math.round(x * f) / f;
}

/**
 * The distribution of `values` (null for a missing value): the quantile edges of the present values
 * (lower nearest rank, ties merged, so a mostly-zero feature gets fewer bins), and each bin's share
 * of all rows. Deterministic: the result depends only on the multiset of values.
 */
export function profileDistribution(
  values: readonly (number | null)[],
  bins = PROFILE_BINS,
): ProfileDistribution {
  const present = values.filter((v): v is number => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
  const total = values.length;
  if (present.length === 0) return { edges: [], shares: [], missingShare: total === 0 ? 0 : 1 };
  const n = present.length;
  const edges: number[] = [present[0] as number];
  for (let k = 1; k < bins; k++) {
    const edge = present[Math.floor((k * n) / bins)] as number;
    if (edge > (edges[edges.length - 1] as number)) edges.push(edge);
  }
  const max = present[n - 1] as number;
  if (max > (edges[edges.length - 1] as number)) edges.push(max);
  const counts = new Array<number>(Math.max(1, edges.length - 1)).fill(0);
  for (const v of present) {
    const bin = profileBin(edges, v);
    counts[bin] = (counts[bin] ?? 0) + 1;
  }
  return {
    edges,
    shares: counts.map((c) => round(c / total)),
    missingShare: round((total - n) / total),
  };
}

/** The profile of training rows (feature vectors) and the model's score on each of them. */
export function computeTrainingProfile(
  features: readonly string[],
  rows: readonly Record<string, number | null | undefined>[],
  scores: readonly number[],
): TrainingProfile {
  const out: Record<string, ProfileDistribution> = {};
  for (const name of features) out[name] = profileDistribution(rows.map((r) => r[name] ?? null));
  return { rows: rows.length, features: out, score: profileDistribution(scores) };
}

function validateDistribution(input: unknown, path: string, errors: Issue[]): void {
  if (!isPlainObject(input)) {
    errors.push(issue(path, `must be an object {edges, shares, missingShare}, got ${describeType(input)}`));
    return;
  }
  const { edges, shares, missingShare } = input;
  if (!Array.isArray(edges) || edges.length > MAX_PROFILE_BINS + 1) {
    errors.push(issue(at(path, "edges"), `must be an array of at most ${MAX_PROFILE_BINS + 1} numbers`));
    return;
  }
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i];
    if (typeof e !== "number" || !Number.isFinite(e)) {
      errors.push(issue(at(at(path, "edges"), i), `must be a finite number, got ${describeType(e)}`));
      return;
    }
    if (i > 0 && !(e > (edges[i - 1] as number))) {
      errors.push(issue(at(at(path, "edges"), i), "must be above the edge before it (edges ascend)"));
      return;
    }
  }
  const bins = edges.length === 0 ? 0 : Math.max(1, edges.length - 1);
  if (!Array.isArray(shares) || shares.length !== bins) {
    errors.push(issue(at(path, "shares"), `must be an array of ${bins} shares, one per bin of edges`));
    return;
  }
  let sum = 0;
  for (const [i, s] of [...shares, missingShare].entries()) {
    if (typeof s !== "number" || !(s >= 0 && s <= 1)) {
      const where = i < shares.length ? at(at(path, "shares"), i) : at(path, "missingShare");
      errors.push(issue(where, `must be a number from 0 to 1, got ${describeType(s)}`));
      return;
    }
    sum += s;
  }
  if (Math.abs(sum - 1) > SHARE_SUM_TOLERANCE)
    errors.push(issue(path, `shares and missingShare must sum to 1, got ${sum}`));
}

/** Validates an artifact's optional `trainingProfile` against the model's feature list. */
export function validateTrainingProfile(
  input: unknown,
  path: string,
  features: readonly string[],
  errors: Issue[],
): void {
  if (!isPlainObject(input)) {
    errors.push(issue(path, `must be an object {rows, features, score}, got ${describeType(input)}`));
    return;
  }
  if (typeof input.rows !== "number" || !Number.isSafeInteger(input.rows) || input.rows < 1)
    errors.push(
      issue(at(path, "rows"), `must be a whole number of at least 1, got ${describeType(input.rows)}`),
    );
  if (!isPlainObject(input.features)) {
    errors.push(issue(at(path, "features"), `must be an object, got ${describeType(input.features)}`));
  } else {
    const known = new Set(features);
    for (const [name, dist] of Object.entries(input.features)) {
      const p = at(at(path, "features"), name);
      if (!isFeatureV1(name) || !known.has(name)) errors.push(issue(p, "is not a feature of this model"));
      else validateDistribution(dist, p, errors);
    }
  }
  validateDistribution(input.score, at(path, "score"), errors);
}
