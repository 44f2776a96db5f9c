/**
 * Calibration: click-through and conversion rate by score decile. The store keeps the scores in
 * fine bins (0.01 wide), so the deciles are equal-count groups cut at bin boundaries: a group
 * closes once it reaches the next tenth of the searches. A bin is never split, so a model that
 * serves few distinct scores has fewer than ten groups (each one a real range of scores).
 */
import { wilsonInterval } from "./wilson.ts";

export interface CalibrationBin {
  bin: number;
  searches: number;
  clicked: number;
  converted: number;
}

export interface CalibrationGroup {
  /** 1..10: the tenth of the searches (by score) this group ends in. */
  decile: number;
  minScore: number;
  maxScore: number;
  n: number;
  meanScore: number;
  clickThrough: { rate: number; interval: [number, number] };
  conversion: { rate: number; interval: [number, number] };
}

/** The fine bins are Math.round(score × 100). */
const BIN_SCALE = 100;

export function calibrationGroups(bins: readonly CalibrationBin[]): CalibrationGroup[] {
  const sorted = bins.filter((b) => b.searches > 0).sort((a, b) => a.bin - b.bin);
  const total = sorted.reduce((sum, b) => sum + b.searches, 0);
  const groups: CalibrationGroup[] = [];
  let members: CalibrationBin[] = [];
  let cumulative = 0;
  let decile = 1;
  for (const bin of sorted) {
    members.push(bin);
    cumulative += bin.searches;
    // Integer arithmetic: cumulative / total ≥ decile / 10, exactly.
    if (cumulative * 10 >= decile * total) {
      while (decile < 10 && cumulative * 10 >= (decile + 1) * total) decile++;
      groups.push(group(decile, members));
      members = [];
      decile++;
    }
  }
  return groups;
}

function group(decile: number, members: readonly CalibrationBin[]): CalibrationGroup {
  let n = 0;
  let clicked = 0;
  let converted = 0;
  let binSum = 0;
  for (const m of members) {
    n += m.searches;
    clicked += m.clicked;
    converted += m.converted;
    binSum += m.bin * m.searches;
  }
  return {
    decile,
    minScore: (members[0]?.bin ?? 0) / BIN_SCALE,
    maxScore: (members[members.length - 1]?.bin ?? 0) / BIN_SCALE,
    n,
    meanScore: binSum / n / BIN_SCALE,
    clickThrough: { rate: clicked / n, interval: wilsonInterval(clicked, n) },
    conversion: { rate: converted / n, interval: wilsonInterval(converted, n) },
  };
}
