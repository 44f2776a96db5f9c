/**
 * The time axis of the collector cards' run-history charts (client/charts.ts draws them with uPlot):
 * the window shown and its ticks and labels, chosen here rather than by uPlot. Left to uPlot, a chart
 * of one run spans 1,000 days (its default width for a single time value) and labels its ticks
 * `01-01 01-01 01-01`. Pure, in epoch seconds (uPlot's unit), UTC like every time on the page.
 */

/**
 * The narrowest window: one run, or a burst of runs (npm start's collectors run every account and
 * region at once), on twenty readable minutes rather than squeezed into a corner of an hour.
 */
export const MIN_WINDOW_S = 1200;
/** Room per tick label (`14:05` or `11-28` at 11 px, with space around it). */
export const PX_PER_TICK = 56;
/** Half a label less the chart's right padding: no tick nearer the right edge than this. */
const RIGHT_EDGE_PX = 10;

const MIN = 60;
const HOUR = 3600;
const DAY = 86_400;
/** Tick steps, each dividing a day (so a window across midnight always has a tick at 00:00), then days. */
const STEPS = [
  MIN,
  2 * MIN,
  5 * MIN,
  10 * MIN,
  15 * MIN,
  30 * MIN,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
];

/** Room after the latest run of a short window, so its point is not drawn on the edge. */
const SHORT_PAD_S = 0.1 * MIN_WINDOW_S;

/**
 * The x range of a chart of runs completed at `xs`: their span with a little room on each side, and
 * at least MIN_WINDOW_S wide. A shorter span (one run, or a burst) is shown in the minutes that end
 * just after its latest run, as "the last 20 minutes" read: never a stretch of the future beside it.
 */
export function timeWindow(xs: readonly number[]): [number, number] {
  if (xs.length === 0) return [0, MIN_WINDOW_S];
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const pad = Math.max(MIN, (hi - lo) * 0.03);
  if (hi - lo + 2 * pad >= MIN_WINDOW_S) return [lo - pad, hi + pad];
  return [hi + SHORT_PAD_S - MIN_WINDOW_S, hi + SHORT_PAD_S];
}

const two = (n: number) => String(n).padStart(2, "0");

/**
 * Ticks of the window [min, max] on a plot `widthPx` wide: the smallest step that leaves room for
 * every label, at whole multiples of it (UTC), none so near the right edge that its label is cut. Labels are the time of day (`14:00`); the date
 * (`11-28`) where a tick falls on midnight of a window that spans more than one day, and on every
 * tick once the step is a day or more.
 */
export function timeAxis(min: number, max: number, widthPx: number): { splits: number[]; labels: string[] } {
  const room = Math.max(2, Math.floor(widthPx / PX_PER_TICK));
  // A label centred on a tick this near the right edge would be cut off there (the duration axis
  // leaves room on the left).
  const last = max - ((max - min) * RIGHT_EDGE_PX) / Math.max(1, widthPx);
  const ticks = (step: number) => {
    const out: number[] = [];
    for (let t = Math.ceil(min / step) * step; t <= last; t += step) out.push(t);
    return out;
  };
  const step =
    STEPS.find((s) => ticks(s).length <= room) ?? DAY * Math.ceil((max - min) / DAY / Math.max(1, room - 1));
  const splits = ticks(step);
  const days = Math.floor(min / DAY) !== Math.floor(max / DAY);
  const labels = splits.map((t) => {
    const d = new Date(t * 1000);
    const date = `${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
    if (step >= DAY || (days && t % DAY === 0)) return date;
    return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
  });
  return { splits, labels };
}
