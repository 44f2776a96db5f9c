import { Z95 } from "./thresholds.ts";

/**
 * Wilson score interval (95 %) for `successes` of `n`: unlike the normal approximation it stays
 * inside [0, 1] and is not zero-width at 0 or n successes, which is the usual case for a decile
 * with few clicks. n = 0 gives [0, 1]: nothing is known.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): [number, number] {
  if (n <= 0) return [0, 1];
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // At 0 or n successes the bound is exactly 0 or 1; rounding would leave 1e-17 off it.
  return [successes <= 0 ? 0 : Math.max(0, centre - half), successes >= n ? 1 : Math.min(1, centre + half)];
}
