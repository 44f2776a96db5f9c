/**
 * Rank correlation with ties, between the mean score a query was served and the outcome observed
 * for it: Kendall's τ-b (Knight's O(n log n) algorithm, so a report over thousands of queries
 * stays a few ms) and Spearman's ρ (Pearson's r over mid-ranks). Both with 95 % intervals through
 * Fisher's z transform.
 */
import { Z95 } from "./thresholds.ts";

// Sorting goes through typed arrays and their native numeric sort (no comparator calls, little
// garbage): at MAX_QUALITY_QUERIES a comparator sort of index arrays alone took several ms.

/** The values sorted ascending, as a new typed array. */
const sortedCopy = (values: readonly number[]): Float64Array => Float64Array.from(values).sort();

/** First index of `sorted` whose value is ≥ v (strict: > v). */
function bound(sorted: Float64Array, v: number, strict: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const m = sorted[mid] as number;
    if (m < v || (strict && m === v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Each value's index among the distinct values (0-based), and how many distinct values there are. */
function denseRanks(values: readonly number[]): { ranks: Int32Array; distinct: number } {
  const sorted = sortedCopy(values);
  let distinct = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[distinct++] = sorted[i] as number;
  }
  const unique = sorted.subarray(0, distinct);
  const ranks = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) ranks[i] = bound(unique, values[i] as number, false);
  return { ranks, distinct };
}

/** n(n−1)/2 summed over runs of equal values of a sorted array: pairs tied in it. */
function tiedPairs(sorted: Int32Array | Float64Array): number {
  let total = 0;
  let run = 1;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[i - 1]) run++;
    else {
      total += (run * (run - 1)) / 2;
      run = 1;
    }
  }
  return total;
}

/** Sorts `values` ascending in place (stable merge sort) and returns how many swaps a bubble sort would make. */
function mergeSortSwaps(values: Int32Array): number {
  const n = values.length;
  let buffer: Int32Array = new Int32Array(n);
  let source: Int32Array = values;
  let swaps = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if ((source[j] as number) < (source[i] as number)) {
          swaps += mid - i;
          buffer[k++] = source[j++] as number;
        } else buffer[k++] = source[i++] as number;
      }
      while (i < mid) buffer[k++] = source[i++] as number;
      while (j < hi) buffer[k++] = source[j++] as number;
    }
    [source, buffer] = [buffer, source];
  }
  if (source !== values) values.set(source);
  return swaps;
}

/**
 * Kendall's τ-b of the pairs (x[i], y[i]), or null when it is undefined (fewer than 2 pairs, or
 * every x or every y equal). Knight (1966): sort by x then y, count the y-inversions by merge sort.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  const n = x.length;
  if (n !== y.length) throw new Error("kendallTauB: x and y differ in length");
  if (n < 2) return null;
  // Sort the pairs by (x, y) as one number: x's dense rank × (distinct ys) + y's dense rank, exact
  // in a double (at most n² < 2^53).
  const rx = denseRanks(x).ranks;
  const { ranks: ry, distinct } = denseRanks(y);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = (rx[i] as number) * distinct + (ry[i] as number);
  keys.sort();
  const xs = new Int32Array(n);
  const ys = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const key = keys[i] as number;
    xs[i] = Math.floor(key / distinct);
    ys[i] = key - (xs[i] as number) * distinct;
  }
  const n0 = (n * (n - 1)) / 2;
  const n1 = tiedPairs(xs);
  // Pairs tied in both x and y: runs of equal keys, adjacent after the sort.
  const n3 = tiedPairs(keys);
  // Within a run of equal x the ys are already ascending, so the swaps count only pairs with x
  // strictly ordered and y strictly reversed: the discordant pairs.
  const swaps = mergeSortSwaps(ys);
  const n2 = tiedPairs(ys);
  const denominator = Math.sqrt((n0 - n1) * (n0 - n2));
  if (denominator === 0) return null;
  // Concordant − discordant = (n0 − n1 − n2 + n3) − 2·discordant.
  return (n0 - n1 - n2 + n3 - 2 * swaps) / denominator;
}

/** Mid-ranks (1-based; tied values share the mean of their ranks). */
export function midRanks(values: readonly number[]): number[] {
  const sorted = sortedCopy(values);
  const ranks = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    // Ranks first+1 .. last of the run of v: their mean.
    ranks[i] = (bound(sorted, v, false) + 1 + bound(sorted, v, true)) / 2;
  }
  return ranks;
}

/** Spearman's ρ with ties (Pearson's r of the mid-ranks), or null when undefined (a constant side). */
export function spearmanRho(x: readonly number[], y: readonly number[]): number | null {
  const n = x.length;
  if (n !== y.length) throw new Error("spearmanRho: x and y differ in length");
  if (n < 2) return null;
  const rx = midRanks(x);
  const ry = midRanks(y);
  const mean = (n + 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (rx[i] as number) - mean;
    const dy = (ry[i] as number) - mean;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  return sxy / Math.sqrt(sxx * syy);
}

/**
 * 95 % interval of a correlation through Fisher's z = atanh(r) with the given variance of z,
 * back-transformed (so it stays inside [−1, 1]; r = ±1 gives [r, r]).
 */
function fisherInterval(r: number, variance: number): [number, number] {
  const z = Math.atanh(r);
  const half = Z95 * Math.sqrt(variance);
  return [Math.tanh(z - half), Math.tanh(z + half)];
}

/**
 * Kendall's τ: var(atanh τ) ≈ 0.437 / (n − 4), the Fieller–Hartley–Pearson (1957) approximation.
 * Needs n > 4.
 */
export function kendallInterval(tau: number, n: number): [number, number] {
  if (n <= 4) return [-1, 1];
  return fisherInterval(tau, 0.437 / (n - 4));
}

/**
 * Spearman's ρ: var(atanh ρ) ≈ 1.06 / (n − 3), the Fieller–Hartley–Pearson (1957) approximation.
 * Needs n > 3.
 */
export function spearmanInterval(rho: number, n: number): [number, number] {
  if (n <= 3) return [-1, 1];
  return fisherInterval(rho, 1.06 / (n - 3));
}
