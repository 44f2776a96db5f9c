/**
 * The gated rollout's decision, pure: a candidate in shadow is promoted only when, on the same
 * searches and outcomes, it ranks clicked against unclicked searches at least as well as the
 * serving model, within a stated margin. The AUC is the measure because every paired search
 * contributes to it (τ needs queries with many searches each); τ is checked as well when both
 * models have one, so a candidate that orders queries worse is not promoted on AUC alone.
 */
import type { ShadowComparison } from "./comparison-schema.ts";

export interface GateOptions {
  /** Paired searches with at least one click needed before deciding. */
  minWithClick: number;
  /** How much lower than the serving model's the candidate's AUC (and τ) may be and still pass. */
  margin: number;
}

export interface GateNumbers {
  pairs: number;
  withClick: number;
  servingAuc: number | null;
  candidateAuc: number | null;
  servingTau: number | null;
  candidateTau: number | null;
  margin: number;
}

export type GateDecision =
  | { decision: "wait"; reason: string; numbers: GateNumbers }
  | { decision: "promote"; reason: string; numbers: GateNumbers }
  | { decision: "refuse"; reason: string; numbers: GateNumbers };

const value = (m: { status: string; value?: number }): number | null =>
  m.status === "ok" && typeof m.value === "number" ? m.value : null;

const fmt = (x: number): string => x.toFixed(3);

export function promotionGate(c: ShadowComparison, options: GateOptions): GateDecision {
  const numbers: GateNumbers = {
    pairs: c.pairs,
    withClick: c.withClick,
    servingAuc: value(c.serving.auc),
    candidateAuc: value(c.shadow.auc),
    servingTau: value(c.serving.kendallTau),
    candidateTau: value(c.shadow.kendallTau),
    margin: options.margin,
  };
  if (c.withClick < options.minWithClick)
    return {
      decision: "wait",
      reason: `${c.withClick} paired searches with a click of the ${options.minWithClick} needed`,
      numbers,
    };
  const { servingAuc, candidateAuc, servingTau, candidateTau } = numbers;
  if (servingAuc === null || candidateAuc === null)
    return {
      decision: "wait",
      reason: "the AUC of both models on the paired searches needs searches with and without a click",
      numbers,
    };
  const aucShort = servingAuc - candidateAuc;
  if (aucShort > options.margin)
    return {
      decision: "refuse",
      reason: `candidate AUC ${fmt(candidateAuc)} is ${fmt(aucShort)} below the serving model's ${fmt(servingAuc)} (margin ${fmt(options.margin)})`,
      numbers,
    };
  if (servingTau !== null && candidateTau !== null && servingTau - candidateTau > options.margin)
    return {
      decision: "refuse",
      reason: `candidate τ-b ${fmt(candidateTau)} is ${fmt(servingTau - candidateTau)} below the serving model's ${fmt(servingTau)} (margin ${fmt(options.margin)})`,
      numbers,
    };
  return {
    decision: "promote",
    reason: `candidate AUC ${fmt(candidateAuc)} against ${fmt(servingAuc)}${servingTau !== null && candidateTau !== null ? `, τ-b ${fmt(candidateTau)} against ${fmt(servingTau)}` : ""}, within margin ${fmt(options.margin)}`,
    numbers,
  };
}
