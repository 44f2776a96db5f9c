// `relevance quality` as text: per model the searches, the score histogram per day, the
// calibration table, τ and ρ, the AUC, each with its sample size and 95 % interval, or what it
// lacks ("too little data"). Pure: the report in, the lines out.
import type { ModelQuality, QualityReport } from "@relevance/outcomes";
import { driftLines } from "./drift-text.ts";
import { comparisonLines } from "./quality-comparison-text.ts";

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const range = ([lo, hi]: [number, number], f: (x: number) => string) => `[${f(lo)}, ${f(hi)}]`;
const fixed = (digits: number) => (x: number) => x.toFixed(digits);
const BAR_WIDTH = 20;

type TooLittle = { status: "too_little_data"; n: number; needed: number; reason: string };
const tooLittle = (m: TooLittle) => `too little data (${m.reason})`;

function histogramLines(model: ModelQuality): string[] {
  if (model.histogram.length === 0) return ["  score histogram per day: no searches"];
  const lines = ["  score histogram per day (searches with a score in [0,1) … [9,10]):"];
  for (const { day, counts } of model.histogram) {
    const total = counts.reduce((a, b) => a + b, 0);
    lines.push(
      `    ${day}  ${String(total).padStart(7)}  ${counts.map((c) => String(c).padStart(5)).join(" ")}`,
    );
  }
  // Where the searches fall, over the whole range: one bar per score bin.
  const sums = new Array<number>(10).fill(0);
  for (const { counts } of model.histogram) {
    counts.forEach((c, i) => {
      sums[i] = (sums[i] ?? 0) + c;
    });
  }
  const max = Math.max(1, ...sums);
  lines.push("    all days:");
  sums.forEach((s, i) => {
    lines.push(
      `      ${String(i).padStart(2)}-${String(i + 1).padEnd(2)} ${"#".repeat(Math.round((s / max) * BAR_WIDTH)).padEnd(BAR_WIDTH)} ${s}`,
    );
  });
  return lines;
}

function calibrationLines(model: ModelQuality): string[] {
  const c = model.calibration;
  if (c.status !== "ok") return [`  calibration: ${tooLittle(c)}`];
  const lines = [
    "  calibration by score decile (95 % Wilson intervals):",
    "    decile  score range     n        mean  CTR      CTR interval      conversion  conv. interval",
  ];
  for (const g of c.groups) {
    lines.push(
      "    " +
        [
          String(g.decile).padStart(6),
          `${g.minScore.toFixed(2)}–${g.maxScore.toFixed(2)}`.padEnd(14),
          String(g.n).padStart(7),
          g.meanScore.toFixed(2).padStart(10),
          pct(g.clickThrough.rate).padStart(6),
          range(g.clickThrough.interval, pct).padEnd(16),
          pct(g.conversion.rate).padStart(11),
          range(g.conversion.interval, pct),
        ].join("  "),
    );
  }
  return lines;
}

function correlationLine(name: string, m: ModelQuality["kendallTau"]): string {
  if (m.status !== "ok") return `  ${name}: ${tooLittle(m)}`;
  return `  ${name} = ${m.value.toFixed(3)}  n = ${m.n} queries  95 % interval ${range(m.interval, fixed(3))}`;
}

function aucLine(m: ModelQuality["auc"]): string {
  if (m.status !== "ok") return `  AUC (no-click searches): ${tooLittle(m)}`;
  return `  AUC (no-click searches) = ${m.value.toFixed(3)}  n = ${m.clicked} clicked, ${m.notClicked} not  95 % interval ${range(m.interval, fixed(3))}`;
}

export function qualityText(report: QualityReport): string {
  const lines = [
    `${report.account}/${report.index}: quality from ${report.since} to ${report.until}` +
      (report.modelId === null ? "" : ` (model ${report.modelId})`) +
      `; queries count with at least ${report.minImpressions} searches`,
    `events: ${report.events.attributed} attributed, ${report.events.unattributed} unattributed, ${report.events.duplicates} duplicates`,
  ];
  if (report.models.length === 0) lines.push("no scored searches recorded in the range");
  for (const model of report.models) {
    lines.push(
      "",
      `model ${model.modelId}: ${model.searches} searches`,
      ...histogramLines(model),
      ...calibrationLines(model),
      correlationLine("Kendall τ-b (mean score vs click-through)", model.kendallTau),
      correlationLine("Spearman ρ (mean score vs click-through)", model.spearmanRho),
      ...(model.queries.truncated ? [`  (the ${model.queries.n} queries with the most searches)`] : []),
      aucLine(model.auc),
    );
  }
  lines.push(...comparisonLines(report));
  lines.push(...driftLines(report.drift));
  return `${lines.join("\n")}\n`;
}
