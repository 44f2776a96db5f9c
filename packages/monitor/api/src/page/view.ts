/**
 * The /system page's markup as hono/jsx components, shared by the server (the first response is
 * rendered from the status body, so the page shows its data before any script runs) and the
 * browser client (client/main.ts re-renders the live region from the JSON bodies every 10 s, with
 * the same components and the same escaping). Components are written with hono/jsx's element factory (what
 * JSX compiles to) rather than JSX syntax: `npm start` runs the TypeScript sources with Node's type
 * stripping, which does not accept .tsx files. docs/monitor-page.md.
 */
import type { Child, JSXNode } from "hono/jsx";
// The runtime entry, not "hono/jsx" itself: the same element factory without the hooks and the DOM
// renderer that "hono/jsx" also exports (about 20 kB more in the client bundle).
import { jsxDEV } from "hono/jsx/jsx-dev-runtime";
import type {
  AlertJson,
  CollectorJson,
  FailuresJson,
  Health,
  MaintenanceListJson,
  MaintenanceWindowJson,
  OwnCostJson,
  PageState,
  RunPointJson,
  SilenceJson,
  SilencesJson,
  StatusJson,
  TriageJson,
} from "./view-types.ts";

type Props = Record<string, string | number | boolean | null | undefined>;

/** An element: `h("p", { class: "muted" }, "text", child)`. Text is escaped by hono/jsx. */
export function h(tag: string, props: Props | null, ...kids: Child[]): JSXNode {
  return jsxDEV(tag, { ...props, children: kids }, undefined) as JSXNode;
}

export const REFRESH_MS = 10_000;

// "new": waiting for a first run within its grace (docs/monitor-rules.md); not a problem, so not red.
export const WORDS: Record<string, string> = {
  new: "Waiting",
  green: "Healthy",
  amber: "Degraded",
  red: "Unhealthy",
};
export const OVERALL: Record<string, string> = {
  new: "Waiting for the collectors' first runs",
  green: "Healthy",
  amber: "Degraded",
  red: "Unhealthy",
};
const ATTENTION: Record<string, string> = {
  no_access: "no access: role assumption fails",
  pending_setup: "pending setup",
};

const pad = (n: number) => String(n).padStart(2, "0");
/** A time in UTC, the same on the server and in every browser: `2026-11-25 14:05 UTC`. */
export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return "never";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}
/** A clock time in UTC: `14:05:09 UTC`. */
export function fmtClock(iso: string): string {
  const d = new Date(iso);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}
const num = (v: number | null | undefined, unit = "") =>
  v === null || v === undefined ? "not available" : `${Math.round(v * 100) / 100}${unit}`;

const BYTE_UNITS = ["bytes", "KB", "MB", "GB", "TB", "PB"] as const;
/**
 * A size in the unit that fits it (decimal, as the status body's GB: 1 KB = 1,000 bytes), with at
 * most three significant digits: `184 KB`, `1.23 MB`, `109 GB`, `0 bytes`.
 */
export function fmtBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return "not available";
  if (bytes < 1000) return `${Math.round(bytes)} bytes`;
  let i = 0;
  let v = bytes;
  while (i < BYTE_UNITS.length - 1 && Number(v.toPrecision(3)) >= 1000) {
    v /= 1000;
    i += 1;
  }
  return `${Number(v.toPrecision(3))} ${BYTE_UNITS[i]}`;
}
/** The status body's sizes are in GB (10^9 bytes, 6 decimals); shown in the unit that fits. */
const sizeGb = (gb: number | null | undefined) =>
  gb === null || gb === undefined ? "not available" : fmtBytes(gb * 1e9);

function kv(pairs: [string, Child][], extra = ""): JSXNode {
  return h(
    "dl",
    { class: extra ? `kv ${extra}` : "kv" },
    ...pairs.flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)]),
  );
}

const badge = (health: string, text: string, extra: Props = {}) =>
  h("span", { class: `badge ${health}`, ...extra }, text);

type Fact = [what: string, count: number, colour: "red" | "amber"];

/**
 * What is red or amber, counted: collectors (by health), firing alerts that are not muted (critical
 * red, warning amber), queues (dead letters red, unreadable amber), accounts needing attention
 * (no_access, pending_setup, unscanned: amber, as their alerts are warnings).
 */
export function verdictFacts(st: StatusJson): Fact[] {
  const cs = st.collectors ?? [];
  const count = (x: Health) => cs.filter((c) => c.health === x).length;
  const queues = st.queues ?? [];
  const attention = (st.warnings ?? []).filter((w) => w.kind === "account").length;
  const unscanned = (st.unscanned_accounts ?? []).length;
  const alerts = (st.alerts ?? []).filter((a) => !a.muted);
  const critical = alerts.filter((a) => a.severity === "critical").length;
  return [
    ["collector(s) unhealthy", count("red"), "red"],
    ["collector(s) degraded", count("amber"), "amber"],
    ["critical alert(s)", critical, "red"],
    ["warning(s)", alerts.length - critical, "amber"],
    ["queue(s) with dead letters", queues.filter((q) => q.status === "dead_letters").length, "red"],
    [
      "queue(s) unreadable",
      queues.filter((q) => q.status !== "ok" && q.status !== "dead_letters").length,
      "amber",
    ],
    ["account(s) need attention", attention + unscanned, "amber"],
    [
      "alert engine late or failing",
      st.alert_engine?.state === "late" || st.alert_engine?.state === "failing" ? 1 : 0,
      "amber",
    ],
  ];
}

const ENGINE_WORDS: Record<string, [colour: string, words: string]> = {
  ok: ["green", "running"],
  late: ["amber", "late"],
  failing: ["amber", "failing"],
  never_ran: ["new", "not run yet"],
};

/**
 * The alert engine's own state, one line under the verdict (docs/monitor-page.md): whether the loop
 * that sends the alerts is running, when its last round completed and, when it failed, why.
 */
function EngineLine(st: StatusJson): JSXNode | null {
  const e = st.alert_engine;
  if (e === undefined) return null;
  const [colour, words] = ENGINE_WORDS[e.state] ?? ["amber", e.state];
  const parts: Child[] = ["Alert engine: ", badge(colour, words)];
  if (e.last_completed_at !== null) {
    const every = e.interval_s !== null ? `, every ${e.interval_s} s` : "";
    const lag = e.lag_s !== null ? ` (${e.lag_s} s ago${every})` : "";
    parts.push(` last round ${fmtTime(e.last_completed_at)}${lag}`);
  }
  if (e.last_error !== null) parts.push(h("span", { class: "muted" }, ` — ${e.last_error}`));
  return h("p", { id: "alert-engine", class: `engine ${e.state}` }, ...parts);
}

const RANK: Record<Health, number> = { new: 0, green: 1, amber: 2, red: 3 };

/**
 * The verdict's health: the collectors' `overall_health`, raised to the worst of what the verdict
 * counts. A firing warning, or an account needing attention, makes a healthy (or waiting) system
 * amber; a critical alert or dead letters make it red. So the banner never says "Healthy" beside a
 * count of problems. Null when the status says nothing (no overall health and nothing counted).
 */
export function verdictHealth(st: StatusJson): Health | null {
  let worst: Health | null = st.overall_health ?? null;
  for (const [, n, colour] of verdictFacts(st)) {
    if (n > 0 && (worst === null || RANK[colour] > RANK[worst])) worst = colour;
  }
  return worst;
}

/** The verdict: overall health in words and colour, with what is red or amber counted. */
function Verdict(st: StatusJson): JSXNode {
  const overall = verdictHealth(st);
  const shown = verdictFacts(st).filter(([, n]) => n > 0);
  return h(
    "div",
    { class: `verdict ${overall ?? "unknown"}`, id: "verdict" },
    h(
      "p",
      { id: "overall" },
      overall ? ["Overall: ", badge(overall, OVERALL[overall] ?? overall)] : "Overall: unknown",
    ),
    h(
      "ul",
      { class: "facts" },
      shown.length === 0
        ? h(
            "li",
            null,
            `${(st.collectors ?? []).length} collector(s), all healthy or waiting; nothing needs attention`,
          )
        : shown.map(([what, n, colour]) =>
            h("li", { class: colour }, h("strong", null, String(n)), ` ${what}`),
          ),
    ),
    EngineLine(st),
  );
}

/**
 * A bar chart as inline SVG (no script needed): one bar per value, a thin grey bar for zero, the
 * text alternative as its title and label.
 */
function barSpark(opts: {
  values: number[];
  width: number;
  height: number;
  text: string;
  fill: string;
  /** The shortest bar of a non-zero value, so one failure among hundreds still shows. */
  minBar: number;
  id?: string;
}): JSXNode {
  const { values, width: w, height: hgt, text } = opts;
  const max = Math.max(0, ...values) || 1;
  const step = w / Math.max(1, values.length);
  return h(
    "svg",
    {
      class: "spark",
      ...(opts.id === undefined ? {} : { id: opts.id }),
      width: w,
      height: hgt,
      viewBox: `0 0 ${w} ${hgt}`,
      role: "img",
      "aria-label": text,
      xmlns: "http://www.w3.org/2000/svg",
    },
    h("title", null, text),
    ...values.map((v, i) => {
      const bh = v <= 0 ? 1 : Math.max(opts.minBar, (v / max) * (hgt - 2));
      return h("rect", {
        x: i * step + 1,
        y: hgt - bh,
        width: Math.max(1, step - 2),
        height: bh,
        fill: v <= 0 ? "#d1d9e0" : opts.fill,
      });
    }),
  );
}

function sparkline(name: string, days: string[], counts: number[]): JSXNode {
  const total = counts.reduce((a, b) => a + b, 0);
  const text = `Failures of ${name} over the last ${counts.length} days: ${days.map((d, i) => `${d}: ${counts[i]}`).join(", ")} (total ${total})`;
  return barSpark({ values: counts, width: 140, height: 28, text, fill: "#cf222e", minBar: 3 });
}

/**
 * The box of a card's run-history chart (drawn by the client with uPlot: client/charts.ts), with
 * the chart's text alternative and a key; without the script it shows the same summary in words.
 */
function RunHistory(name: string, runs: RunPointJson[], duration?: CollectorJson["duration"]): Child {
  const failed = runs.filter((r) => r.status !== "succeeded").length;
  const secs = runs.map((r) => (r.duration_ms ?? 0) / 1000);
  const first = runs[0]?.completed_at ?? null;
  const last = runs[runs.length - 1]?.completed_at ?? null;
  const base = duration?.baseline ?? null;
  const baseline =
    base === null
      ? ""
      : `; baseline over ${base.runs} successful runs: median ${(base.median_ms / 1000).toFixed(1)} s, 90th percentile ${(base.p90_ms / 1000).toFixed(1)} s`;
  const summary = `Run history of ${name}: the latest ${runs.length} run(s), ${fmtTime(first)} to ${fmtTime(last)}; ${failed} failed or partial; duration ${Math.min(...secs).toFixed(1)} to ${Math.max(...secs).toFixed(1)} s${baseline}`;
  return [
    h(
      "div",
      { class: "chart", "data-chart": name, role: "img", "aria-label": summary },
      h("p", { class: "muted chart-fallback" }, summary),
    ),
    h(
      "p",
      { class: "chart-note muted", "aria-hidden": "true" },
      h("span", { class: "key ok" }),
      " succeeded ",
      h("span", { class: "key bad" }),
      ` failed or partial · duration, ${runs.length === 1 ? "1 run" : `last ${runs.length} runs`}`,
      base === null
        ? null
        : [" · ", h("span", { class: "key median" }), " median ", h("span", { class: "key p90" }), " p90"],
    ),
    duration?.detail ? h("p", { class: "err duration-verdict" }, duration.detail) : null,
  ];
}

/** A span for people: "45 s", "12 min", "2 h 5 min", "3 d 4 h". */
function span(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const hours = Math.floor(m / 60);
  if (hours < 48) return m % 60 === 0 ? `${hours} h` : `${hours} h ${m % 60} min`;
  return hours % 24 === 0 ? `${Math.floor(hours / 24)} d` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** Open runs shown per collector card; the rest are counted. */
const OPEN_RUNS_SHOWN = 3;

/** A collector card's open runs (started, no final record): "running since …" or "hung for …". */
function openRunPairs(runs: NonNullable<StatusJson["open_runs"]>): [string, Child][] {
  const pairs = runs.slice(0, OPEN_RUNS_SHOWN).map((r): [string, Child] => {
    const where = `${r.cloud_account_id}/${r.cloud_region}`;
    const limit = `max ${span(r.max_duration_ms)}, ${r.max_duration_source}`;
    return r.state === "hung"
      ? [
          "Hung",
          h(
            "span",
            { class: "err" },
            `hung for ${span(r.elapsed_ms)} in ${where} (since ${fmtTime(r.started_at)}; ${limit})`,
          ),
        ]
      : ["Running", `running since ${fmtTime(r.started_at)} (${span(r.elapsed_ms)}) in ${where} (${limit})`];
  });
  if (runs.length > OPEN_RUNS_SHOWN) pairs.push(["Open runs", `and ${runs.length - OPEN_RUNS_SHOWN} more`]);
  return pairs;
}

function Collectors(st: StatusJson, fl: FailuresJson | null): JSXNode {
  const byName = new Map((fl?.collectors ?? []).map((c) => [c.name, c]));
  const openBy = new Map<string, NonNullable<StatusJson["open_runs"]>>();
  // Hung runs first, then the oldest start first (the body's order).
  for (const r of [...(st.open_runs ?? [])].sort((a, b) =>
    a.state === b.state ? 0 : a.state === "hung" ? -1 : 1,
  )) {
    const list = openBy.get(r.collector) ?? [];
    list.push(r);
    openBy.set(r.collector, list);
  }
  const triaged = new Set((st.triage ?? []).map((t) => t.collector));
  const reasons = new Map<string, string[]>();
  for (const w of st.warnings ?? []) {
    if (w.kind !== "collector") continue;
    const list = reasons.get(w.subject) ?? [];
    list.push(w.message);
    reasons.set(w.subject, list);
  }
  const cards = (st.collectors ?? []).map((c) => {
    const f = byName.get(c.name);
    const lr = f?.latest_run ?? null;
    // A red or amber collector's reasons are in its triage block above ("Needs attention").
    const rs = triaged.has(c.name) ? undefined : reasons.get(c.name);
    const pairs: [string, Child][] = [
      [
        "Last run",
        c.last_run
          ? fmtTime(c.last_run) + (c.minutes_ago !== null ? ` (${c.minutes_ago} min ago)` : "")
          : "never ran",
      ],
    ];
    if (c.health === "new" && c.new_until)
      pairs.push([
        "Waiting until",
        `${fmtTime(c.new_until)} (stale, and alerted, if it has not run by then)`,
      ]);
    if (c.schedule) {
      pairs.push(["Schedule", h("code", null, c.schedule)]);
      pairs.push(["Next expected run", c.next_expected_run ? fmtTime(c.next_expected_run) : "none"]);
    }
    if (c.registered_at && !c.last_run) pairs.push(["Registered", fmtTime(c.registered_at)]);
    if (c.registered_by === "first_run")
      pairs.push([
        "Registered by",
        `its first run${c.registered_at ? `, ${fmtTime(c.registered_at)}` : ""} (auto-registered with the defaults: adjust with PUT, or remove with DELETE /api/system/collectors/${c.name})`,
      ]);
    pairs.push(...openRunPairs(openBy.get(c.name) ?? []));
    pairs.push(
      ["Last status", c.status || "none"],
      [
        "Duration",
        lr && lr.duration_ms !== null && lr.duration_ms !== undefined
          ? `${(lr.duration_ms / 1000).toFixed(1)} s`
          : "not available",
      ],
      ["Events", lr ? String(lr.events_produced) : "not available"],
      ["Last error", lr ? (lr.error ? h("span", { class: "err" }, lr.error) : "none") : "not available"],
    );
    return h(
      "article",
      { class: `card ${c.health}`, "aria-labelledby": `c-${c.name}`, id: `collector-${c.name}` },
      h("h3", { id: `c-${c.name}` }, c.name),
      badge(c.health, WORDS[c.health] ?? c.health),
      c.in_maintenance ? [" ", badge("new", "In maintenance")] : null,
      kv(pairs),
      rs
        ? h("ul", { class: c.health === "new" ? "muted" : "err" }, ...rs.map((r) => h("li", null, r)))
        : null,
      f?.recent_runs?.length ? RunHistory(c.name, f.recent_runs, c.duration) : null,
      f && fl?.days
        ? h(
            "div",
            { class: "history" },
            sparkline(c.name, fl.days, f.failures),
            h(
              "p",
              { class: "muted", "aria-hidden": "true" },
              `Failures, last ${f.failures.length} days: ${f.total}`,
            ),
          )
        : h("p", { class: "muted" }, "Failure history (7 days) unavailable"),
      h(
        "p",
        { class: "timeline-link" },
        h("a", { href: `/system/timeline?collector=${encodeURIComponent(c.name)}` }, `Timeline of ${c.name}`),
      ),
    );
  });
  return h(
    "div",
    { id: "collectors", class: "grid" },
    cards.length ? cards : h("p", { class: "muted" }, "No collectors registered"),
  );
}

// Triage (docs/monitor-page.md): per red or amber collector, where it fails, since when, the last error, its runs.
function TriageBlock(t: TriageJson): JSXNode {
  const id = `t-${t.collector}`;
  const faults = t.at_fault ?? [];
  const runsHref = t.runs?.href ?? "";
  const table = faults.length
    ? h(
        "table",
        null,
        h("caption", { class: "sr-only" }, `Accounts and regions at fault for ${t.collector}`),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ...["Account", "Region", "Failed in a row", "Last run", "Last success", "Runs"].map((x) =>
              h("th", { scope: "col" }, x),
            ),
          ),
        ),
        h(
          "tbody",
          null,
          ...faults.map((f) =>
            h(
              "tr",
              null,
              h("th", { scope: "row" }, f.cloud_account_id),
              h("td", { "data-label": "Region" }, f.cloud_region),
              h("td", { "data-label": "Failed in a row" }, String(f.consecutive_failures)),
              h("td", { "data-label": "Last run" }, `${f.last_status}, ${fmtTime(f.last_run_at)}`),
              h("td", { "data-label": "Last success" }, fmtTime(f.last_success_at)),
              h(
                "td",
                { "data-label": "Runs" },
                h(
                  "a",
                  {
                    href: `${runsHref}&account=${encodeURIComponent(f.cloud_account_id)}&region=${encodeURIComponent(f.cloud_region)}`,
                  },
                  `runs of ${f.cloud_account_id}/${f.cloud_region}`,
                ),
              ),
            ),
          ),
        ),
      )
    : h(
        "p",
        { class: "muted" },
        "No account or region with a failing latest run: the collector has not run (successfully) recently.",
      );
  const pairs: [string, Child][] = [
    [
      "Unhealthy since",
      t.since
        ? fmtTime(t.since) + (t.last_success_at ? " (its last success; none since)" : " (never succeeded)")
        : "unknown (never succeeded)",
    ],
    [
      "Last error",
      t.last_error
        ? h("span", { class: "err" }, t.last_error)
        : t.last_error === ""
          ? "none given"
          : "none (the latest run did not fail)",
    ],
  ];
  if (t.last_error_at) pairs.push(["Failed at", fmtTime(t.last_error_at)]);
  return h(
    "article",
    { class: `triage ${t.health}`, id, "aria-labelledby": `${id}-h` },
    h("h3", { id: `${id}-h` }, `${t.collector} `, badge(t.health, WORDS[t.health] ?? t.health)),
    h("ul", { class: "err" }, ...(t.reasons ?? []).map((r) => h("li", null, r))),
    kv(pairs),
    h("h4", null, "At fault"),
    table,
    h("p", null, h("a", { href: runsHref }, `Recent runs of ${t.collector}`), " (JSON), or from a shell:"),
    h("code", null, t.runs?.command ?? ""),
  );
}

function Accounts(st: StatusJson): JSXNode {
  const counts: Record<string, number> = st.accounts ?? {};
  const rows = Object.entries(counts).map(([status, n]) => {
    const bad = status in ATTENTION;
    return h(
      "tr",
      { class: bad && n > 0 ? "attention" : bad ? "attention-zero" : "" },
      h("th", { scope: "row" }, status),
      h("td", null, String(n)),
      h("td", null, bad ? (n > 0 ? `Needs attention: ${ATTENTION[status]}` : "none") : "ok"),
    );
  });
  const table = h(
    "table",
    null,
    h("caption", { class: "sr-only" }, "Monitored accounts by status"),
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        h("th", { scope: "col" }, "Status"),
        h("th", { scope: "col" }, "Accounts"),
        h("th", { scope: "col" }, "Note"),
      ),
    ),
    h("tbody", null, ...rows),
  );
  const un = st.unscanned_accounts ?? [];
  const fresh = st.new_accounts ?? [];
  const unEl = un.length
    ? h(
        "div",
        null,
        h("h3", null, `Active accounts not scanned in 24 hours (${un.length})`),
        h(
          "ul",
          null,
          ...un.map((u) =>
            h(
              "li",
              { class: "err", id: `account-${u.account_id}` },
              `${u.account_name ?? ""} (${u.account_id}): last scanned ${fmtTime(u.last_scanned_at)}`,
            ),
          ),
        ),
      )
    : h(
        "p",
        { class: "muted" },
        `Every active account was scanned in the last 24 hours${fresh.length ? ", or is waiting for its first scan." : "."}`,
      );
  const newEl = fresh.length
    ? h(
        "div",
        { id: "new-accounts" },
        h("h3", null, `Waiting for their first scan (${fresh.length})`),
        h(
          "ul",
          null,
          ...fresh.map((a) =>
            h(
              "li",
              { id: `account-${a.account_id}` },
              `${a.account_name ?? ""} (${a.account_id}): active since ${fmtTime(a.first_active_at)}; unscanned if not scanned by ${fmtTime(a.new_until)}`,
            ),
          ),
        ),
      )
    : null;
  // Accounts that need attention (no_access, pending_setup), each an anchor alert links can point at.
  const attention = (st.warnings ?? []).filter((w) => w.kind === "account");
  const attEl = attention.length
    ? h(
        "div",
        { id: "accounts-attention" },
        h("h3", null, `Accounts needing attention (${attention.length})`),
        h(
          "ul",
          null,
          ...attention.map((w) =>
            h("li", { class: "err", id: `account-${w.subject}` }, `${w.message} (${w.subject})`),
          ),
        ),
      )
    : null;
  return h("div", { id: "accounts", class: "panel" }, table, attEl, unEl, newEl);
}

function Db(st: StatusJson, down: string | null | undefined, lastAt: string | null): JSXNode {
  const d = st.analytics_db ?? {};
  const src = d.source
    ? Object.entries(d.source)
        .map(([k, v]) => `${k}: ${v}`)
        .join("; ")
    : "not stated";
  const latencyBy =
    (
      {
        "system.query_log": "the server: queries finished in the last 15 min (system.query_log)",
        "client-timings": "this monitor: the time its own recent queries took (no system.query_log)",
      } as Record<string, string>
    )[d.source?.query_latency ?? ""] ?? "not stated";
  const ratio =
    d.disk_used_ratio === null || d.disk_used_ratio === undefined
      ? "not available"
      : `${Math.round(d.disk_used_ratio * 1000) / 10} % used (alert above 80 %)`;
  return h(
    "div",
    { id: "db", class: "panel" },
    down
      ? h(
          "p",
          { class: "err", id: "db-down" },
          badge("red", "Unreachable"),
          ` ${down}${lastAt ? ` (figures below are from ${fmtClock(lastAt)})` : ""}`,
        )
      : null,
    kv([
      ["Disk used", sizeGb(d.disk_used_gb) + (d.disk_total_gb ? ` of ${sizeGb(d.disk_total_gb)}` : "")],
      ["Service data", sizeGb(d.svc_disk_used_gb)],
      ["Disk holding the data", ratio],
      ["Query latency p50", num(d.query_p50_ms, " ms")],
      ["Query latency p95", num(d.query_p95_ms, " ms")],
      ["Query latency p99", num(d.query_p99_ms, " ms")],
      ["Latency samples", num(d.query_samples)],
      ["Active queries", num(d.active_queries)],
    ]),
    kv(
      [
        ["Latency measured by", latencyBy],
        ["Source", src],
      ],
      "wide",
    ),
  );
}

// Queue status in words and colour (docs/monitor-page.md "Message queues"); dead letters are expected to be 0.
const QUEUE_COLOUR: Record<string, string> = { ok: "green", dead_letters: "red", unreadable: "amber" };
const QUEUE_WORDS: Record<string, string> = {
  ok: "OK",
  dead_letters: "Dead letters",
  unreadable: "Unreadable",
};

function Queues(st: StatusJson): JSXNode {
  const q = Array.isArray(st.queues) ? st.queues : [];
  const err = st.queues_error
    ? h("p", { class: "err", id: "queues-error" }, `Queue health unavailable: ${st.queues_error}`)
    : null;
  if (q.length === 0)
    return h("div", { id: "queues", class: "panel" }, err, h("p", null, "No queue configured"));
  const count = (v: number | null | undefined) => (v === null || v === undefined ? "unknown" : String(v));
  const detail = (x: (typeof q)[number]) => {
    if (x.status === "dead_letters")
      return ` Needs attention: ${x.dead_letter_depth} message(s) in the dead-letter queue (expected 0)`;
    if (x.status === "unreadable") return ` ${x.error || "unknown error"}`;
    return "";
  };
  const rows = q.map((x) =>
    h(
      "tr",
      {
        class: x.status === "dead_letters" ? "attention" : x.status === "unreadable" ? "unreadable" : "",
        "data-queue": x.name,
        id: `queue-${x.name}`,
      },
      h("th", { scope: "row" }, x.name),
      h("td", { "data-label": "Messages waiting" }, count(x.depth)),
      h("td", { "data-label": "In flight" }, count(x.in_flight)),
      // The dead-letter alert's subject is the dead-letter queue: its own anchor (a failure queue is its row).
      h(
        "td",
        { "data-label": "Dead-letter queue" },
        x.dead_letter_queue && x.dead_letter_queue !== x.name
          ? h("span", { id: `queue-${x.dead_letter_queue}` }, x.dead_letter_queue)
          : x.dead_letter_queue || (x.status === "unreadable" ? "unknown" : "none"),
      ),
      h(
        "td",
        { "data-label": "Dead letters" },
        x.dead_letter_queue
          ? count(x.dead_letter_depth)
          : x.status === "unreadable"
            ? "unknown"
            : "no dead-letter queue",
      ),
      h(
        "td",
        { "data-label": "Status" },
        badge(QUEUE_COLOUR[x.status] ?? "amber", QUEUE_WORDS[x.status] ?? String(x.status)),
        detail(x) ? h("span", { class: "qdetail" }, detail(x)) : "",
      ),
    ),
  );
  return h(
    "div",
    { id: "queues", class: "panel" },
    err,
    h(
      "table",
      null,
      h("caption", { class: "sr-only" }, "Message queues: depth and dead-letter queue depth (expected 0)"),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          ...["Queue", "Messages waiting", "In flight", "Dead-letter queue", "Dead letters", "Status"].map(
            (t) => h("th", { scope: "col" }, t),
          ),
        ),
      ),
      h("tbody", null, ...rows),
    ),
  );
}

/** A silence button: creates a silence of this alert (rule and subject) through POST /system/silences. */
function SilenceForm(a: AlertJson, csrf: string): JSXNode | null {
  if (!a.rule || !a.subject) return null;
  return h(
    "form",
    {
      class: "silence",
      method: "post",
      action: "/system/silences",
      "data-rule": a.rule,
      "data-subject": a.subject,
    },
    h("input", { type: "hidden", name: "csrf", value: csrf }),
    h("input", { type: "hidden", name: "rule", value: a.rule }),
    h("input", { type: "hidden", name: "subject", value: a.subject }),
    h(
      "label",
      null,
      h("span", { class: "sr-only" }, `Reason to silence ${a.rule} — ${a.subject}`),
      h("input", {
        name: "reason",
        type: "text",
        maxlength: 200,
        placeholder: "reason (optional)",
        "aria-label": `Reason to silence ${a.rule} — ${a.subject}`,
      }),
    ),
    h(
      "button",
      {
        type: "submit",
        name: "minutes",
        value: "60",
        "aria-label": `Silence ${a.rule} — ${a.subject} for 1 h`,
      },
      "Silence 1 h",
    ),
    h(
      "button",
      {
        type: "submit",
        name: "minutes",
        value: "1440",
        "aria-label": `Silence ${a.rule} — ${a.subject} for 24 h`,
      },
      "24 h",
    ),
  );
}

function Alerts(st: StatusJson, csrf: string | null): JSXNode {
  const a = st.alerts;
  if (!Array.isArray(a) || a.length === 0)
    return h("div", { id: "alerts", class: "panel" }, h("p", null, "No alerts"));
  const item = (x: AlertJson) => {
    const sev = x.severity || "unknown";
    const m = x.muted_by;
    // A muted alert is listed, marked and explained: held back, not notified (docs/monitor-page.md).
    const mutedBy = m
      ? m.kind === "silence"
        ? `silence ${m.id} by ${m.author} until ${new Date(m.endsAt).toISOString()}`
        : m.kind === "maintenance"
          ? `maintenance window ${m.id} by ${m.author} until ${new Date(m.endsAt).toISOString()}`
          : `${m.rule} ${m.subject}`
      : null;
    const inMaintenance = m?.kind === "maintenance";
    return h(
      "li",
      {
        class: x.muted ? "muted muted-alert" : sev === "critical" ? "err critical" : "warning",
        id: x.fingerprint ? `alert-${x.fingerprint}` : undefined,
        "data-muted": x.muted ? "true" : undefined,
      },
      h(
        "div",
        { class: "alert-body" },
        h(
          "div",
          { class: "alert-line" },
          x.muted ? [badge("new", inMaintenance ? "In maintenance" : "Muted"), " "] : null,
          h("strong", null, `${sev.toUpperCase()}: `),
          (x.rule || "alert") + (x.subject ? ` — ${x.subject}` : ""),
          x.since ? ` (since ${fmtTime(x.since)})` : "",
          x.muted
            ? ` · muted, not notified${mutedBy ? ` (muted by ${mutedBy})` : ""}${x.reason ? `: ${x.reason}` : ""}`
            : x.notified === false
              ? " · not yet notified"
              : "",
          x.rule && x.subject
            ? [
                " · ",
                h(
                  "a",
                  {
                    class: "timeline-link",
                    href: `/system/timeline?rule=${encodeURIComponent(x.rule)}&subject=${encodeURIComponent(x.subject)}`,
                  },
                  "Timeline",
                ),
              ]
            : null,
        ),
        x.summary ? h("div", { class: "alert-summary" }, x.summary) : null,
        x.last_error ? h("div", { class: "err" }, `Last error: ${x.last_error}`) : null,
      ),
      csrf !== null && !x.muted ? SilenceForm(x, csrf) : null,
    );
  };
  // Unmuted first (critical before warnings), muted last: what needs action on top.
  const rank = (x: AlertJson) => (x.muted ? 2 : x.severity === "critical" ? 0 : 1);
  const sorted = [...a].map((x, i) => ({ x, i })).sort((p, q) => rank(p.x) - rank(q.x) || p.i - q.i);
  return h("div", { id: "alerts", class: "panel" }, h("ul", null, ...sorted.map(({ x }) => item(x))));
}

// Silences: those not ended; created with the page's buttons, svcmon silence or the API.
function Silences(body: SilencesJson): JSXNode {
  const list = Array.isArray(body.silences) ? body.silences : [];
  if (list.length === 0)
    return h("div", { id: "silences", class: "panel" }, h("p", null, "No silences (svcmon silence add)"));
  return h(
    "div",
    { id: "silences", class: "panel" },
    h(
      "ul",
      null,
      ...list.map((x) => {
        const m: Partial<NonNullable<SilenceJson["matchers"]>> = x.matchers ?? {};
        const subj = m.subject
          ? `${m.subject.op === "eq" ? "subject " : m.subject.op === "prefix" ? "subject starts with " : "subject matches "}${m.subject.value}`
          : null;
        const what = [m.rule ? `rule ${m.rule}` : null, subj].filter(Boolean).join(", ");
        return h(
          "li",
          { id: `silence-${x.id}`, "data-state": x.state },
          badge("new", x.state === "pending" ? "Pending" : "Silenced"),
          " ",
          h("strong", null, what),
          ` until ${fmtTime(x.ends_at)} by ${x.author}: ${x.reason}`,
          x.state === "pending" ? ` (starts ${fmtTime(x.starts_at)})` : null,
          h("span", { class: "muted" }, ` · id ${x.id}`),
        );
      }),
    ),
  );
}

// Maintenance windows not over: the active ones first, each with an End button (session + CSRF).
function Maintenance(body: MaintenanceListJson, csrf: string | null): JSXNode {
  const list = Array.isArray(body.maintenance) ? body.maintenance : [];
  if (list.length === 0)
    return h(
      "div",
      { id: "maintenance", class: "panel" },
      h("p", null, "No maintenance windows (svcmon maintenance add)"),
    );
  const sorted = [...list].sort((a, b) => Number(b.active) - Number(a.active));
  const scopeText = (w: MaintenanceWindowJson) =>
    "all" in w.scope
      ? "everything"
      : "collectors" in w.scope
        ? `collectors ${w.scope.collectors.join(", ")}`
        : `accounts ${w.scope.accounts.join(", ")}`;
  return h(
    "div",
    { id: "maintenance", class: "panel" },
    h(
      "ul",
      null,
      ...sorted.map((w) =>
        h(
          "li",
          { id: `maintenance-${w.id}`, "data-state": w.state },
          badge("new", w.active ? "In maintenance" : "Next"),
          " ",
          h("strong", null, scopeText(w)),
          w.active
            ? ` until ${fmtTime(w.ends_at)}`
            : w.starts_at
              ? ` from ${fmtTime(w.starts_at)} to ${fmtTime(w.ends_at)}`
              : "",
          w.kind === "recurring"
            ? ` (recurring: ${w.schedule} ${w.timezone}, ${w.duration_minutes} min)`
            : "",
          ` by ${w.author}: ${w.reason}`,
          h("span", { class: "muted" }, ` · id ${w.id}`),
          csrf === null
            ? null
            : h(
                "form",
                {
                  class: "maintenance-end",
                  method: "post",
                  action: `/system/maintenance/${encodeURIComponent(w.id)}/end`,
                },
                h("input", { type: "hidden", name: "csrf", value: csrf }),
                h(
                  "button",
                  { type: "submit", "aria-label": `End the maintenance window of ${scopeText(w)} now` },
                  "End",
                ),
              ),
        ),
      ),
    ),
  );
}

// Own cost (docs/monitor-cost.md): shown only when the status body has own_cost.
export function money(v: number | null | undefined, cur: string | null | undefined): string {
  if (v === null || v === undefined) return "not available";
  if (!cur) return String(v);
  try {
    return new Intl.NumberFormat("en", {
      style: "currency",
      currency: cur,
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    }).format(v);
  } catch {
    return `${v.toFixed(2)} ${cur}`;
  }
}

function costSparkline(daily: { day: string; cost: number }[], cur: string | null | undefined): JSXNode {
  const text = `Own cost per day over the last ${daily.length} days: ${daily.map((d) => `${d.day}: ${money(d.cost, cur)}`).join(", ")}`;
  const values = daily.map((d) => d.cost);
  return barSpark({ values, width: 240, height: 40, text, fill: "#0969da", minBar: 2, id: "own-cost-spark" });
}

function OwnCost(st: StatusJson): JSXNode {
  const c: OwnCostJson | null | undefined = st.own_cost;
  if (!c)
    return h(
      "div",
      { id: "own-cost", class: "panel" },
      h("p", { class: "err" }, `Own cost unavailable: ${st.own_cost_error || "unknown error"}`),
    );
  const cur = c.currency;
  const out: Partial<NonNullable<OwnCostJson["outside_any_node"]>> = c.outside_any_node ?? {};
  const byReason = out.by_reason ?? [];
  const daily = c.daily ?? [];
  const u = c.untagged_service_resources ?? [];
  return h(
    "div",
    { id: "own-cost", class: "panel" },
    c.as_of ? null : h("p", { class: "muted" }, "No cost report ingested yet."),
    kv([
      ["Month to date", money(c.month_to_date, cur)],
      ["Last 30 days", money(c.last_30_days_total, cur)],
      ["Cost data through", c.data_through || "none"],
      ["Report ingested", fmtTime(c.as_of)],
    ]),
    kv(
      [
        [
          "Outside any node, last 30 days",
          money(out.last_30_days_total, out.currency || cur) +
            (byReason.length
              ? ` (${byReason.map((r) => `${r.reason} ${money(r.last_30_days_total, out.currency || cur)}`).join(", ")}): tax, fees and support belong to no node`
              : ""),
        ],
        ["Counted", `resources tagged svc:purpose=svc-infrastructure (node ${c.node})`],
      ],
      "wide",
    ),
    ...(c.other_currencies ?? []).map((o) =>
      h(
        "p",
        { class: "muted" },
        `Also ${money(o.month_to_date, o.currency)} month to date in ${o.currency} (not added)`,
      ),
    ),
    daily.length
      ? h(
          "div",
          { class: "history" },
          costSparkline(daily, cur),
          h(
            "p",
            { class: "muted", "aria-hidden": "true" },
            `Per day, ${daily[0]?.day} to ${daily[daily.length - 1]?.day}`,
          ),
        )
      : null,
    u.length
      ? h(
          "div",
          { class: "cost-warning", id: "untagged-warning" },
          h(
            "strong",
            null,
            `Warning: ${u.length} resource(s) belong to the service but lack the tag svc:purpose=svc-infrastructure; their cost is not counted above.`,
          ),
          h(
            "ul",
            null,
            ...u.map((x) =>
              h(
                "li",
                null,
                `${x.resource_id} (account ${x.cloud_account_id}${x.cloud_region ? `, ${x.cloud_region}` : ""}): ${x.reason}${x.source === "inventory" ? " (seen by the collectors)" : " (seen in the cost report)"}`,
              ),
            ),
          ),
        )
      : h("p", { class: "muted" }, "Every resource that belongs to the service carries the tag."),
  );
}

const section = (id: string | undefined, hid: string, title: string, hidden: boolean, ...body: Child[]) =>
  h(
    "section",
    { "aria-labelledby": hid, id, hidden, class: "section" },
    h("h2", { id: hid }, title),
    ...body,
  );

/** The live region's content: re-rendered as a whole by the client on every refresh. */
export function LiveContent(s: PageState): JSXNode {
  const st = s.status ?? {};
  const have = s.status !== null;
  const triage = Array.isArray(st.triage) ? st.triage : [];
  // A 503 still carries what does not live in the database: fresh queue health.
  const queuesFrom = s.partialQueues && Array.isArray(s.partialQueues.queues) ? s.partialQueues : st;
  const loading = h("p", { class: "muted" }, "Loading…");
  return h(
    "div",
    { class: "layout" },
    have ? Verdict(st) : null,
    h(
      "div",
      { class: "col-main" },
      section(
        "triage-section",
        "h-triage",
        "Needs attention",
        triage.length === 0,
        h("div", { id: "triage" }, ...triage.map(TriageBlock)),
      ),
      section(
        "collectors-section",
        "h-collectors",
        "Collectors",
        false,
        have ? Collectors(st, s.failures) : loading,
      ),
    ),
    h(
      "div",
      { class: "col-side" },
      // What is red or amber comes first here too: alerts and queues, then coverage and the database.
      section("alerts-section", "h-alerts", "Firing alerts", false, have ? Alerts(st, s.csrf) : loading),
      section(
        "queues-section",
        "h-queues",
        "Message queues",
        false,
        have || s.partialQueues ? Queues(queuesFrom) : loading,
      ),
      section("accounts-section", "h-accounts", "Account coverage", false, have ? Accounts(st) : loading),
      section("analytics-db", "h-db", "Analytics database", false, Db(st, s.dbDown, s.statusAt)),
      section(
        "silences-section",
        "h-silences",
        "Silences",
        s.silences === null,
        s.silences ? Silences(s.silences) : null,
      ),
      section(
        "maintenance-section",
        "h-maintenance",
        "Maintenance windows",
        s.maintenance === null || s.maintenance === undefined,
        s.maintenance ? Maintenance(s.maintenance, s.csrf) : null,
      ),
      section(
        "own-cost-section",
        "h-cost",
        "Own cost",
        !("own_cost" in st),
        "own_cost" in st ? OwnCost(st) : null,
      ),
    ),
  );
}

export function Problems(list: string[]): JSXNode {
  return h("div", { id: "problems" }, ...list.map((p) => h("p", { class: "problem", role: "alert" }, p)));
}

export function updatedText(s: PageState): string {
  return s.statusAt
    ? `Updated ${fmtClock(s.statusAt)}${s.problems.length ? " (stale)" : ""}; refreshes every ${REFRESH_MS / 1000} s`
    : "Not loaded yet";
}
