// The serving-against-shadow block of `relevance quality`: per model pair the paired searches,
// how far apart the two scores are, and both models' AUC, τ-b and calibration on the same searches,
// each with its sample and interval or what it lacks. Pure.
import type { ModelOnPairs, QualityReport, ShadowComparison } from "@relevance/outcomes";

const f3 = (x: number) => x.toFixed(3);
const interval = ([lo, hi]: [number, number]) => `[${f3(lo)}, ${f3(hi)}]`;

function agreementLine(a: ShadowComparison["agreement"]): string {
  if (a.status !== "ok") return `  score agreement: too little data (${a.reason})`;
  return `  score agreement: mean |shadow − serving| ${f3(a.meanAbsoluteDifference)}, mean shadow − serving ${a.meanDifference >= 0 ? "+" : ""}${f3(a.meanDifference)}, Spearman ρ ${f3(a.spearmanRho)} ${interval(a.interval)}`;
}

function modelLines(role: string, m: ModelOnPairs): string[] {
  const auc =
    m.auc.status === "ok"
      ? `AUC ${f3(m.auc.value)} ${interval(m.auc.interval)} (${m.auc.clicked} clicked, ${m.auc.notClicked} not)`
      : `AUC: too little data (${m.auc.reason})`;
  const tau =
    m.kendallTau.status === "ok"
      ? `τ-b ${f3(m.kendallTau.value)} ${interval(m.kendallTau.interval)} (${m.kendallTau.n} queries)`
      : `τ-b: too little data (${m.kendallTau.reason})`;
  const calibration =
    m.calibration.status === "ok"
      ? `CTR by decile ${m.calibration.groups.map((g) => `${Math.round(g.clickThrough.rate * 100)}%`).join(" ")}`
      : `calibration: too little data (${m.calibration.reason})`;
  return [`  ${role.padEnd(8)}${m.modelId}`, `    ${auc}`, `    ${tau}`, `    ${calibration}`];
}

export function comparisonLines(report: QualityReport): string[] {
  const lines: string[] = [];
  for (const c of report.comparisons) {
    lines.push(
      "",
      `serving vs shadow on the same searches: ${c.pairs} paired searches, ${c.withClick} with a click`,
      agreementLine(c.agreement),
      ...modelLines("serving", c.serving),
      ...modelLines("shadow", c.shadow),
    );
  }
  return lines;
}
