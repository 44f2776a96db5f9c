/**
 * The few rules every OutcomeStore adapter must apply identically (the memory store in JS, the
 * ClickHouse store in SQL): the score bins, the UTC day, and the order of strings. ClickHouse
 * compares strings byte by byte (UTF-8); JavaScript's `<` compares UTF-16 code units, which orders
 * characters above U+FFFF before U+E000..U+FFFF. The memory store sorts and pages with compareUtf8
 * so both give the same order.
 */

/** The fine score bin of QualityInputs.bins: Math.round(score * 100), 0..1000. */
export function scoreBin(score: number): number {
  return Math.round(score * 100);
}

/** The daily histogram's bin of width 1: [b, b+1) is bin b, and a 10 is in bin 9. */
export function dayBin(score: number): number {
  return Math.min(9, Math.max(0, Math.floor(score)));
}

/** YYYY-MM-DD of an epoch-ms time, in UTC. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const encoder = new TextEncoder();

/** Compares two strings by their UTF-8 bytes (ClickHouse's String order). */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = (x[i] as number) - (y[i] as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
