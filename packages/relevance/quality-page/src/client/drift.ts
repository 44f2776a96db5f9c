// Drift on the page: per model, how far each day's served scores and features have moved from the
// rows the model was trained on (PSI against its training profile). A heat map, feature by day,
// shows when and where; a bar per feature for the latest day shows how far, against the threshold
// line. A model without a profile says so in words.
import type { DriftDay, ModelDrift, PsiCell, QualityReport } from "@relevance/outcomes/quality-schema";
import { el, svg } from "./dom.ts";

/** PSI to colour: white at 0, through amber at the threshold, to dark red at 3 × the threshold. */
function psiColour(psi: number, threshold: number): string {
  const t = Math.min(1, psi / (3 * threshold));
  const stops = [
    [255, 255, 255],
    [250, 204, 120],
    [200, 60, 40],
    [120, 20, 20],
  ];
  const pos = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(pos));
  const f = pos - i;
  const [a, b] = [stops[i] as number[], stops[i + 1] as number[]];
  const c = a.map((v, k) => Math.round(v + ((b[k] as number) - v) * f));
  return `rgb(${c.join(",")})`;
}

interface Row {
  name: string;
  cells: PsiCell[];
}

function rows(days: readonly DriftDay[]): Row[] {
  const names = ["score", ...(days[0]?.features.map((f) => f.feature) ?? [])];
  return names.map((name, r) => ({
    name,
    cells: days.map((d) => (r === 0 ? d.score : (d.features[r - 1]?.result ?? d.score))),
  }));
}

function describeCell(cell: PsiCell): string {
  if (cell.status === "ok")
    return `PSI ${cell.psi.toFixed(3)} over ${cell.n} searches${cell.drifted ? " (drifted)" : ""}`;
  if (cell.status === "too_little_data")
    return `too little data: ${cell.n} searches of the ${cell.needed} needed`;
  return `not profiled: ${cell.reason}`;
}

function heatMap(drift: Extract<ModelDrift, { status: "ok" }>, W: number): SVGSVGElement {
  const table = rows(drift.days);
  const label = 150;
  const cellH = 22;
  const top = 8;
  const bottom = 30;
  const H = top + table.length * cellH + bottom;
  const cellW = Math.max(4, (W - label - 8) / Math.max(1, drift.days.length));
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    width: W,
    height: H,
    role: "img",
    "aria-label": `PSI per feature and day against the training profile, model ${drift.modelId}`,
    class: "chart heat",
  });
  table.forEach((row, r) => {
    const y = top + r * cellH;
    root.append(
      svg("text", { x: label - 6, y: y + cellH / 2 + 4, "text-anchor": "end", class: "tick" }, row.name),
    );
    row.cells.forEach((cell, d) => {
      const x = label + d * cellW;
      const day = drift.days[d]?.day ?? "";
      const rect = svg("rect", {
        x,
        y,
        width: Math.max(1, cellW - 1),
        height: cellH - 2,
        class: `cell ${cell.status}${cell.status === "ok" && cell.drifted ? " drifted" : ""}`,
        fill:
          cell.status === "ok"
            ? psiColour(cell.psi, drift.threshold)
            : cell.status === "not_profiled"
              ? "#eef0f2"
              : "#d5d9de",
      });
      rect.append(svg("title", {}, `${row.name}, ${day}: ${describeCell(cell)}`));
      root.append(rect);
    });
  });
  const every = Math.ceil(drift.days.length / Math.max(2, Math.floor((W - label) / 56)));
  drift.days.forEach((d, i) => {
    if (i % every !== 0) return;
    root.append(
      svg(
        "text",
        { x: label + i * cellW + cellW / 2, y: H - bottom + 16, "text-anchor": "middle", class: "tick" },
        d.day.slice(5),
      ),
    );
  });
  return root;
}

/** The latest day's PSI per feature as bars, with the threshold as a dashed line. */
function latestBars(drift: Extract<ModelDrift, { status: "ok" }>, W: number): SVGSVGElement | null {
  const last = drift.days.at(-1);
  if (last === undefined) return null;
  const entries = rows([last]).map((r) => ({ name: r.name, cell: r.cells[0] as PsiCell }));
  const values = entries.map((e) => (e.cell.status === "ok" ? e.cell.psi : 0));
  const xMax = Math.max(drift.threshold * 2, ...values) * 1.05;
  const label = 150;
  const barH = 18;
  const H = 8 + entries.length * barH + 30;
  const plotW = W - label - 44;
  const x = (v: number) => label + (v / xMax) * plotW;
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    width: W,
    height: H,
    role: "img",
    "aria-label": `PSI per feature on ${last.day}, threshold ${drift.threshold}, model ${drift.modelId}`,
    class: "chart bars",
  });
  entries.forEach(({ name, cell }, i) => {
    const y = 8 + i * barH;
    root.append(
      svg("text", { x: label - 6, y: y + barH / 2 + 4, "text-anchor": "end", class: "tick" }, name),
    );
    if (cell.status === "ok") {
      const bar = svg("rect", {
        x: label,
        y: y + 2,
        width: Math.max(1, x(cell.psi) - label),
        height: barH - 5,
        class: cell.drifted ? "bar drifted" : "bar",
      });
      bar.append(svg("title", {}, `${name}: ${describeCell(cell)}`));
      root.append(
        bar,
        svg("text", { x: x(cell.psi) + 4, y: y + barH / 2 + 4, class: "tick" }, cell.psi.toFixed(2)),
      );
    } else {
      root.append(
        svg(
          "text",
          { x: label + 4, y: y + barH / 2 + 4, class: "tick muted" },
          cell.status === "not_profiled" ? "not profiled" : "too little data",
        ),
      );
    }
  });
  const tx = x(drift.threshold);
  root.append(
    svg("line", { x1: tx, x2: tx, y1: 4, y2: H - 26, class: "threshold" }),
    svg(
      "text",
      { x: tx, y: H - 10, "text-anchor": "middle", class: "tick threshold-label" },
      `threshold ${drift.threshold}`,
    ),
  );
  return root;
}

function driftSection(drift: ModelDrift, width: number): HTMLElement {
  const section = el("section", { class: "drift", "data-model": drift.modelId });
  section.append(el("h2", {}, `Drift of ${drift.modelId} against its training rows`));
  if (drift.status === "no_profile") {
    section.append(el("p", { class: "few no-profile" }, `No training profile: ${drift.reason}.`));
    return section;
  }
  const drifted = drift.days.at(-1);
  const count = drifted
    ? [drifted.score, ...drifted.features.map((f) => f.result)].filter((c) => c.status === "ok" && c.drifted)
        .length
    : 0;
  section.append(
    el(
      "p",
      { class: count > 0 ? "alert" : "note" },
      drifted === undefined
        ? "No searches in the range."
        : count > 0
          ? `${count} of the distributions drifted on ${drifted.day} (PSI above ${drift.threshold}).`
          : `Nothing drifted on ${drifted.day} (every PSI at or below ${drift.threshold}).`,
    ),
  );
  if (drift.days.length === 0) return section;
  section.append(
    el("h3", {}, "PSI per day (white: as in training; red: drifted; grey: too few searches)"),
    heatMap(drift, width),
    el("h3", {}, `Latest day, ${drifted?.day ?? ""}`),
  );
  const bars = latestBars(drift, width);
  if (bars !== null) section.append(bars);
  return section;
}

export const driftSections = (report: QualityReport, width: number): HTMLElement[] =>
  report.drift.map((d) => driftSection(d, width));
