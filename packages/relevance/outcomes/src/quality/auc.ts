/**
 * How well the score tells searches that got no click from searches that got one: the AUC, the
 * chance that a random search with no click was served a lower score than a random search with a
 * click (ties count half). 0.5 is a coin; the e-commerce result-quality predictors in the
 * literature reach about 0.75. Computed from the fine score bins (a score is kept to 0.01, so
 * searches in one bin count as tied).
 */
import { Z95 } from "./thresholds.ts";

export interface AucBin {
  bin: number;
  searches: number;
  clicked: number;
}

export interface AucCounts {
  auc: number | null;
  /** Searches with at least one click (the "good" class) and with none. */
  clicked: number;
  notClicked: number;
}

export function aucFromBins(bins: readonly AucBin[]): AucCounts {
  const sorted = [...bins].sort((a, b) => a.bin - b.bin);
  let clicked = 0;
  let notClicked = 0;
  let notClickedBelow = 0;
  let wins = 0;
  for (const { searches, clicked: c } of sorted) {
    const none = searches - c;
    wins += c * notClickedBelow + 0.5 * c * none;
    notClickedBelow += none;
    clicked += c;
    notClicked += none;
  }
  if (clicked === 0 || notClicked === 0) return { auc: null, clicked, notClicked };
  return { auc: wins / (clicked * notClicked), clicked, notClicked };
}

/**
 * Hanley & McNeil (1982) standard error of an AUC with n1 and n2 members of the two classes
 * (Q1 = A/(2−A), Q2 = 2A²/(1+A)), and the 95 % interval A ± z·SE cut to [0, 1].
 */
export function hanleyMcNeilInterval(auc: number, n1: number, n2: number): [number, number] {
  const q1 = auc / (2 - auc);
  const q2 = (2 * auc * auc) / (1 + auc);
  const variance = (auc * (1 - auc) + (n1 - 1) * (q1 - auc * auc) + (n2 - 1) * (q2 - auc * auc)) / (n1 * n2);
  const half = Z95 * Math.sqrt(Math.max(0, variance));
  return [Math.max(0, auc - half), Math.min(1, auc + half)];
}
