/**
 * What every OutcomeStore adapter shares for `driftCounts`: the query's bounds, checked before the
 * store reads anything, and the JavaScript binning (the memory store's; ClickHouse bins in SQL by
 * the same rule, and the contract suite holds the two to the same counts).
 */
import { FEATURE_SET_V1, MAX_PROFILE_BINS, profileBin } from "@relevance/core";
import type { DriftBinCounts, DriftCountsQuery } from "../ports.ts";

/** Throws a RangeError naming what is beyond a bound: too many edges or features, a bad index, unsorted edges. */
export function checkDriftCountsQuery(q: DriftCountsQuery): void {
  checkEdges("scoreEdges", q.scoreEdges);
  if (q.features.length > FEATURE_SET_V1.length)
    throw new RangeError(`features: at most ${FEATURE_SET_V1.length}, got ${q.features.length}`);
  for (const [i, f] of q.features.entries()) {
    if (!Number.isInteger(f.index) || f.index < 0 || f.index >= FEATURE_SET_V1.length)
      throw new RangeError(`features[${i}].index: not a FEATURE_SET_V1 index: ${f.index}`);
    checkEdges(`features[${i}].edges`, f.edges);
  }
}

function checkEdges(name: string, edges: readonly number[]): void {
  if (edges.length > MAX_PROFILE_BINS + 1)
    throw new RangeError(`${name}: at most ${MAX_PROFILE_BINS + 1} edges, got ${edges.length}`);
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i] as number;
    if (!Number.isFinite(e) || (i > 0 && !(e > (edges[i - 1] as number))))
      throw new RangeError(`${name}[${i}]: edges must be finite and ascending`);
  }
}

/** Empty counts for `edges`: one per bin (a single edge is one bin), none without edges. */
export function emptyBinCounts(edges: readonly number[]): DriftBinCounts {
  const bins = edges.length === 0 ? 0 : Math.max(1, edges.length - 1);
  return { counts: new Array<number>(bins).fill(0), missing: 0 };
}

/** Counts one value into `into` (missing when not finite or there are no bins). */
export function countValue(into: DriftBinCounts, edges: readonly number[], v: number | undefined): void {
  if (v === undefined || !Number.isFinite(v) || into.counts.length === 0) into.missing += 1;
  else {
    const bin = profileBin(edges, v);
    into.counts[bin] = (into.counts[bin] ?? 0) + 1;
  }
}
