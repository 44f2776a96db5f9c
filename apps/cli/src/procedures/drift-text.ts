// The drift block of `relevance quality`: per model, the latest day's PSI of the score against its
// training profile and the features whose PSI is above the threshold that day, or why there is none.
import type { ModelDrift, PsiCell } from "@relevance/outcomes";

const cellText = (c: PsiCell): string =>
  c.status === "ok"
    ? `PSI ${c.psi.toFixed(3)} (n = ${c.n})${c.drifted ? " DRIFTED" : ""}`
    : c.status === "too_little_data"
      ? `too little data (${c.n} searches, ${c.needed} needed)`
      : `not profiled (${c.reason})`;

export function driftLines(drift: readonly ModelDrift[]): string[] {
  if (drift.length === 0) return [];
  const lines = ["", "drift against the training profile (PSI, latest day):"];
  for (const m of drift) {
    if (m.status === "no_profile") {
      lines.push(`  model ${m.modelId}: no training profile (${m.reason})`);
      continue;
    }
    const last = m.days[m.days.length - 1];
    if (last === undefined) {
      lines.push(`  model ${m.modelId}: no searches in the range`);
      continue;
    }
    lines.push(
      `  model ${m.modelId} on ${last.day} (threshold ${m.threshold}): score ${cellText(last.score)}`,
    );
    const drifted = last.features.filter((f) => f.result.status === "ok" && f.result.drifted);
    if (drifted.length === 0) lines.push("    no feature above the threshold");
    for (const f of drifted) lines.push(`    ${f.feature}: ${cellText(f.result)}`);
  }
  return lines;
}
