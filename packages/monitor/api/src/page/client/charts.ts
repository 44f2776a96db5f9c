/**
 * The collector cards' run-history charts (uPlot, bundled: no CDN): the duration of each of the
 * latest runs over time, succeeded runs as a green line, failed and partial ones as red points, and
 * the collector's duration baseline (median dashed, 90th percentile dotted) from the status body.
 * Drawn into the `.chart[data-chart]` boxes the server (or the client's re-render) left, which carry
 * the chart's text alternative; the canvas itself is hidden from assistive technology.
 */
import uPlot from "uplot";
import { timeAxis, timeWindow } from "../chart-axis.ts";
import type { FailuresJson, StatusJson } from "../view-types.ts";

const live: uPlot[] = [];
let resize: ResizeObserver | null = null;

/** Width of the duration axis, left of the plot. */
const Y_AXIS_PX = 54;

const COLOURS = {
  ok: "#1a7f37",
  bad: "#cf222e",
  grid: "#eaeef2",
  axis: "#59636e",
  base: "#6e7781",
  p90: "#9a6700",
};

function seconds(v: number): string {
  if (v === 0) return "0";
  if (v < 1) return `${Math.round(v * 1000)} ms`;
  if (v >= 100) return `${Math.round(v)} s`;
  if (v >= 10) return `${v.toFixed(0)} s`;
  return `${v.toFixed(1)} s`;
}

/** Removes the charts of the previous render. */
export function destroyCharts(): void {
  for (const u of live.splice(0)) u.destroy();
  resize?.disconnect();
  resize = null;
}

/** Draws one chart per `.chart[data-chart]` box under `root`. */
export function drawCharts(
  root: ParentNode,
  failures: FailuresJson | null,
  status?: StatusJson | null,
): void {
  destroyCharts();
  const byName = new Map((failures?.collectors ?? []).map((c) => [c.name, c.recent_runs ?? []]));
  const baselines = new Map((status?.collectors ?? []).map((c) => [c.name, c.duration?.baseline ?? null]));
  resize = new ResizeObserver((entries) => {
    for (const e of entries) {
      const u = live.find((x) => x.root.parentElement === e.target);
      const w = Math.floor(e.contentRect.width);
      if (u && w > 0 && w !== u.width) u.setSize({ width: w, height: u.height });
    }
  });
  for (const box of root.querySelectorAll<HTMLElement>(".chart[data-chart]")) {
    const runs = byName.get(box.dataset.chart ?? "") ?? [];
    if (runs.length === 0) continue;
    const xs = runs.map((r) => Date.parse(r.completed_at) / 1000);
    const dur = (r: (typeof runs)[number]) => (r.duration_ms ?? 0) / 1000;
    const ok = runs.map((r) => (r.status === "succeeded" ? dur(r) : null));
    const bad = runs.map((r) => (r.status === "succeeded" ? null : dur(r)));
    const base = baselines.get(box.dataset.chart ?? "") ?? null;
    const median = runs.map(() => (base === null ? null : base.median_ms / 1000));
    const p90 = runs.map(() => (base === null ? null : base.p90_ms / 1000));
    // The time axis is ours (chart-axis.ts): uPlot would spread one run over 1,000 days.
    const span = timeWindow(xs);
    const axisOf = (u: uPlot) => timeAxis(span[0], span[1], u.width - Y_AXIS_PX - 8);
    box.replaceChildren();
    const axis = {
      stroke: COLOURS.axis,
      grid: { stroke: COLOURS.grid, width: 1 },
      ticks: { stroke: COLOURS.grid, width: 1, size: 4 },
      font: "11px system-ui, sans-serif",
    };
    const u = new uPlot(
      {
        width: Math.max(200, Math.floor(box.clientWidth)),
        height: box.clientHeight || 120,
        legend: { show: false },
        // The page shows every time in UTC (view.ts fmtTime).
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
        cursor: { drag: { x: false, y: false } },
        padding: [6, 8, 0, 0],
        scales: {
          x: { time: true, range: () => span },
          y: { range: (_u, _min, max) => [0, Math.max(0.1, max * 1.15)] },
        },
        axes: [
          { ...axis, size: 24, splits: (u) => axisOf(u).splits, values: (u) => axisOf(u).labels },
          { ...axis, size: Y_AXIS_PX, values: (_u, vals) => vals.map((v) => seconds(v)) },
        ],
        series: [
          {},
          {
            label: "succeeded",
            stroke: COLOURS.ok,
            width: 1.5,
            spanGaps: true,
            points: { show: true, size: 4, fill: COLOURS.ok, stroke: COLOURS.ok },
          },
          {
            label: "failed or partial",
            stroke: COLOURS.bad,
            width: 0,
            paths: () => null,
            points: { show: true, size: 7, fill: COLOURS.bad, stroke: COLOURS.bad },
          },
          { label: "median", stroke: COLOURS.base, width: 1, dash: [6, 4], points: { show: false } },
          { label: "90th percentile", stroke: COLOURS.p90, width: 1, dash: [2, 3], points: { show: false } },
        ],
      },
      [xs, ok, bad, median, p90],
      box,
    );
    u.root.setAttribute("aria-hidden", "true");
    live.push(u);
    resize.observe(box);
  }
}
