// The page's two charts as SVG, drawn at the width they are shown at (a phone's or a desktop's):
// the score histogram per day (stacked bars, one colour per score bin) and the calibration chart
// (click-through per decile against its mean score, with the Wilson interval as a whisker).
import type { ModelQuality } from "@relevance/outcomes/quality-schema";
import { svg } from "./dom.ts";
import { pct } from "./format.ts";

const H = 260;
const M = { left: 52, right: 12, top: 12, bottom: 40 };
/** Score bins 0..9, light (low score) to dark (high score). */
export const BIN_COLOURS = [
  "#fde0c5",
  "#facba6",
  "#f8b58b",
  "#f59e72",
  "#f2855d",
  "#ef6a4c",
  "#e04f39",
  "#c33a2c",
  "#a12a23",
  "#7f1d1d",
];

/** A round step for about `ticks` ticks up to `max`. */
function niceStep(max: number, ticks: number): number {
  const raw = max / ticks;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function axes(
  W: number,
  yMax: number,
  yLabel: (v: number) => string,
  title: string,
): { root: SVGSVGElement; y: (v: number) => number } {
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    width: W,
    height: H,
    role: "img",
    "aria-label": title,
    class: "chart",
  });
  const plotH = H - M.top - M.bottom;
  const y = (v: number) => M.top + plotH - (v / yMax) * plotH;
  const step = niceStep(yMax, 4);
  for (let v = 0; v <= yMax + 1e-9; v += step) {
    root.append(
      svg("line", { x1: M.left, x2: W - M.right, y1: y(v), y2: y(v), class: "grid" }),
      svg("text", { x: M.left - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, yLabel(v)),
    );
  }
  return { root, y };
}

/**
 * Charts are drawn at the width they are shown at (`width`, CSS pixels), so their labels keep their
 * size on a phone instead of shrinking with a scaled drawing.
 */
export function histogramChart(model: Pick<ModelQuality, "modelId" | "histogram">, W: number): SVGSVGElement {
  const days = model.histogram;
  const totals = days.map((d) => d.counts.reduce((a, b) => a + b, 0));
  const yMax = Math.max(1, ...totals) * 1.05;
  const { root, y } = axes(
    W,
    yMax,
    (v) => String(Math.round(v)),
    `Searches per day by score, model ${model.modelId}`,
  );
  const plotW = W - M.left - M.right;
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(2, Math.min(48, slot * 0.7));
  const labelEvery = Math.ceil(days.length / Math.max(2, Math.floor(plotW / 60)));
  days.forEach((d, i) => {
    const x = M.left + slot * i + (slot - barW) / 2;
    let base = 0;
    d.counts.forEach((c, bin) => {
      if (c === 0) return;
      const rect = svg("rect", {
        x,
        y: y(base + c),
        width: barW,
        height: Math.max(0.5, y(base) - y(base + c)),
        fill: BIN_COLOURS[bin] ?? "#999",
      });
      rect.append(svg("title", {}, `${d.day}: ${c} searches scored ${bin}–${bin + 1}`));
      root.append(rect);
      base += c;
    });
    if (i % labelEvery === 0) {
      root.append(
        svg(
          "text",
          { x: x + barW / 2, y: H - M.bottom + 16, "text-anchor": "middle", class: "tick" },
          d.day.slice(5),
        ),
      );
    }
  });
  root.append(svg("text", { x: M.left, y: H - 6, class: "axis-label" }, "UTC day (MM-DD)"));
  return root;
}

export function calibrationChart(model: ModelQuality, W: number): SVGSVGElement | null {
  if (model.calibration.status !== "ok") return null;
  const groups = model.calibration.groups;
  const top = Math.max(0.05, ...groups.map((g) => g.clickThrough.interval[1]));
  const yMax = Math.min(1, niceStep(top, 4) * Math.ceil(top / niceStep(top, 4)));
  const { root, y } = axes(
    W,
    yMax,
    (v) => `${Math.round(v * 100)} %`,
    `Click-through by score decile, model ${model.modelId}`,
  );
  const plotW = W - M.left - M.right;
  const x = (score: number) => M.left + (score / 10) * plotW;
  for (let s = 0; s <= 10; s += 2) {
    root.append(
      svg("text", { x: x(s), y: H - M.bottom + 16, "text-anchor": "middle", class: "tick" }, String(s)),
    );
  }
  for (const g of groups) {
    const cx = x(g.meanScore);
    const [lo, hi] = g.clickThrough.interval;
    const mark = svg("g", { class: "decile" });
    mark.append(
      svg("line", { x1: cx, x2: cx, y1: y(lo), y2: y(hi), class: "whisker" }),
      svg("line", { x1: cx - 5, x2: cx + 5, y1: y(lo), y2: y(lo), class: "whisker" }),
      svg("line", { x1: cx - 5, x2: cx + 5, y1: y(hi), y2: y(hi), class: "whisker" }),
      svg("circle", { cx, cy: y(g.clickThrough.rate), r: 4.5, class: "point" }),
      svg(
        "title",
        {},
        `decile ${g.decile}: mean score ${g.meanScore.toFixed(2)}, CTR ${pct(g.clickThrough.rate)} [${pct(lo)}, ${pct(hi)}], n ${g.n}`,
      ),
    );
    root.append(mark);
  }
  root.append(svg("text", { x: M.left, y: H - 6, class: "axis-label" }, "mean score of the decile (0–10)"));
  return root;
}
