/** Lengths in characters (code points), which is how the monitor's text bounds are counted (docs/limits.md). */

/**
 * Characters (code points) of `s`, counted only up to `stopAfter + 1`: enough to tell whether it is
 * over a limit without walking a long string twice. A string whose UTF-16 length is within the
 * limit cannot hold more code points than that.
 */
export function charCount(s: string, stopAfter = Number.POSITIVE_INFINITY): number {
  if (s.length <= stopAfter) {
    let n = 0;
    for (const _ of s) n++;
    return n;
  }
  let n = 0;
  for (const _ of s) {
    n++;
    if (n > stopAfter) break;
  }
  return n;
}

/**
 * The last `max` characters of `s` (whole code points): for an error text taken from the end of a
 * stream, the end is the part that says what went wrong.
 */
export function keepLastChars(s: string, max: number): string {
  if (charCount(s, max) <= max) return s;
  const points = Array.from(s);
  return points.slice(points.length - max).join("");
}
