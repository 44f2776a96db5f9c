// Serving against shadow on the page: per model pair, what both models were judged on (the paired
// searches), how far apart their scores are, each model's AUC and τ-b side by side, and both
// calibration curves on the same axes, so a person sees at a glance which one tracks the clicks.
import type { ModelOnPairs, QualityReport, ShadowComparison } from "@relevance/outcomes/quality-schema";
import { histogramChart } from "./charts.ts";
import { el, svg } from "./dom.ts";
import { count, interval, num3, pct } from "./format.ts";
import { legend } from "./legend.ts";
import { fewTile, tile } from "./tiles.ts";

const H = 260;
const M = { left: 52, right: 12, top: 12, bottom: 40 };
export const SERIES = { serving: "#1f6feb", shadow: "#d4570b" } as const;

function aucTile(role: string, m: ModelOnPairs): HTMLElement {
  const label = `AUC, ${role}`;
  if (m.auc.status !== "ok") return fewTile(label, m.auc);
  return tile(label, num3(m.auc.value), `${m.modelId} · 95 % ${interval(m.auc.interval, num3)}`);
}

function tauTile(role: string, m: ModelOnPairs): HTMLElement {
  const label = `Kendall τ-b, ${role}`;
  if (m.kendallTau.status !== "ok") return fewTile(label, m.kendallTau);
  return tile(
    label,
    num3(m.kendallTau.value),
    `n = ${count(m.kendallTau.n)} queries · 95 % ${interval(m.kendallTau.interval, num3)}`,
  );
}

function agreementTiles(c: ShadowComparison): HTMLElement[] {
  const a = c.agreement;
  if (a.status !== "ok") return [fewTile("Score agreement", a)];
  const sign = a.meanDifference >= 0 ? "+" : "−";
  return [
    tile(
      "Mean |shadow − serving|",
      a.meanAbsoluteDifference.toFixed(2),
      `shadow scores ${sign}${Math.abs(a.meanDifference).toFixed(2)} on average`,
    ),
    tile("Score agreement ρ", num3(a.spearmanRho), `Spearman · 95 % ${interval(a.interval, num3)}`),
  ];
}

/** Both models' click-through by their own score decile, on one pair of axes. */
function overlayChart(c: ShadowComparison, W: number): SVGSVGElement | null {
  const series = (["serving", "shadow"] as const).flatMap((role) => {
    const cal = c[role].calibration;
    return cal.status === "ok" ? [{ role, groups: cal.groups }] : [];
  });
  if (series.length === 0) return null;
  const top = Math.max(0.05, ...series.flatMap((s) => s.groups.map((g) => g.clickThrough.interval[1])));
  const step = top <= 0.5 ? 0.1 : 0.2;
  const yMax = Math.min(1, Math.ceil(top / step - 1e-9) * step);
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    width: W,
    height: H,
    role: "img",
    "aria-label": `Click-through by score decile, ${c.servingModelId} (serving) and ${c.shadowModelId} (shadow), on the same searches`,
    class: "chart overlay",
  });
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const x = (score: number) => M.left + (score / 10) * plotW;
  const y = (v: number) => M.top + plotH - (v / yMax) * plotH;
  for (let i = 0; i * step <= yMax + 1e-9; i++) {
    const v = i * step;
    root.append(
      svg("line", { x1: M.left, x2: W - M.right, y1: y(v), y2: y(v), class: "grid" }),
      svg(
        "text",
        { x: M.left - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" },
        `${Math.round(v * 100)} %`,
      ),
    );
  }
  for (let s = 0; s <= 10; s += 2)
    root.append(
      svg("text", { x: x(s), y: H - M.bottom + 16, "text-anchor": "middle", class: "tick" }, String(s)),
    );
  for (const { role, groups } of series) {
    const colour = SERIES[role];
    const offset = role === "serving" ? -3 : 3;
    const path = groups.map(
      (g, i) => `${i === 0 ? "M" : "L"}${x(g.meanScore) + offset},${y(g.clickThrough.rate)}`,
    );
    root.append(
      svg("path", { d: path.join(" "), fill: "none", stroke: colour, "stroke-width": 1.5, opacity: 0.6 }),
    );
    for (const g of groups) {
      const cx = x(g.meanScore) + offset;
      const [lo, hi] = g.clickThrough.interval;
      const mark = svg("g", { class: `decile ${role}` });
      mark.append(
        svg("line", { x1: cx, x2: cx, y1: y(lo), y2: y(hi), stroke: colour, "stroke-width": 1.4 }),
        role === "serving"
          ? svg("circle", { cx, cy: y(g.clickThrough.rate), r: 4.5, fill: colour })
          : svg("rect", { x: cx - 4, y: y(g.clickThrough.rate) - 4, width: 8, height: 8, fill: colour }),
        svg(
          "title",
          {},
          `${role} decile ${g.decile}: mean score ${g.meanScore.toFixed(2)}, CTR ${pct(g.clickThrough.rate)} [${pct(lo)}, ${pct(hi)}], n ${g.n}`,
        ),
      );
      root.append(mark);
    }
  }
  root.append(svg("text", { x: M.left, y: H - 6, class: "axis-label" }, "mean score of the decile (0–10)"));
  return root;
}

function seriesLegend(c: ShadowComparison): HTMLElement {
  return el(
    "div",
    { class: "legend" },
    el("span", { class: "key", style: `background:${SERIES.serving}` }, ""),
    `● serving ${c.servingModelId}`,
    el("span", { class: "key", style: `background:${SERIES.shadow}` }, ""),
    `■ shadow ${c.shadowModelId}`,
  );
}

export function comparisonSection(c: ShadowComparison, width: number): HTMLElement {
  const section = el("section", {
    class: "comparison",
    "data-serving": c.servingModelId,
    "data-shadow": c.shadowModelId,
  });
  section.append(
    el("h2", {}, `Serving ${c.servingModelId} against shadow ${c.shadowModelId}`),
    el(
      "p",
      { class: "note" },
      "Both models scored the same searches (the shadow after each answer; shoppers never saw its score) and are judged on the same clicks.",
    ),
    el(
      "div",
      { class: "tiles" },
      tile("Paired searches", count(c.pairs), `${count(c.withClick)} with a click`),
      ...agreementTiles(c),
    ),
    el(
      "div",
      { class: "tiles pair" },
      aucTile("serving", c.serving),
      aucTile("shadow", c.shadow),
      tauTile("serving", c.serving),
      tauTile("shadow", c.shadow),
    ),
    el("h3", {}, "Calibration of both on the same searches"),
  );
  const chart = overlayChart(c, width);
  section.append(
    chart === null
      ? el(
          "p",
          { class: "few", "data-metric": "overlay" },
          "Too little data for either model's calibration yet.",
        )
      : chart,
    seriesLegend(c),
    el("h3", {}, `Shadow ${c.shadowModelId}: score distribution per day (paired searches)`),
    c.shadowHistogram.length === 0
      ? el("p", { class: "few" }, "No paired searches in the range.")
      : histogramChart({ modelId: c.shadowModelId, histogram: c.shadowHistogram }, width),
    legend(),
    el(
      "p",
      { class: "note" },
      "The serving model's distribution over all its searches is in its own section below.",
    ),
  );
  return section;
}

export const comparisonSections = (report: QualityReport, width: number): HTMLElement[] =>
  report.comparisons.map((c) => comparisonSection(c, width));
