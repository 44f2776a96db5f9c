// What every benchmark suite shares: nearest-rank percentiles and the printed table of targets.

/** Nearest rank of an ascending array: the smallest value with at least p % of the samples at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** [operation, value, target, result]; result is "ok", "MISSED" or "-". */
export type TargetRow = readonly [string, string, string, string];

/** The table every suite prints: widths of the operation, value and target columns. */
export function printTargetTable(
  rows: readonly TargetRow[],
  widths: readonly [number, number, number],
  opts: { header?: boolean } = {},
): void {
  const [w0, w1, w2] = widths;
  if (opts.header ?? true) {
    console.log(`${"operation".padEnd(w0)}${"value".padStart(w1)}${"target".padStart(w2)}  result`);
  }
  for (const [name, value, target, status] of rows) {
    console.log(`${name.padEnd(w0)}${value.padStart(w1)}${target.padStart(w2)}  ${status}`);
  }
}

/** The operations whose target was missed. */
export function missedTargets(rows: readonly TargetRow[]): string[] {
  return rows.filter((r) => r[3] === "MISSED").map((r) => r[0]);
}

/** The closing `MISSED n target(s): …` line, when any target was missed. */
export function printMissed(missed: readonly string[]): void {
  if (missed.length > 0) console.log(`\nMISSED ${missed.length} target(s): ${missed.join("; ")}`);
}
