// The search team's quality page: asks the admin API's quality route (with the admin token the
// user pastes: kept in this tab's sessionStorage, sent as a bearer header, never in a URL) and
// draws the report per model: tiles (searches, τ, ρ, AUC with n and intervals), the score
// histogram per day, the calibration chart and table, and "too little data" where a metric says so.
import type { ModelQuality, QualityReport } from "@relevance/outcomes/quality-schema";
import { calibrationChart, histogramChart } from "./charts.ts";
import { comparisonSections } from "./comparison.ts";
import { el } from "./dom.ts";
import { driftSections } from "./drift.ts";
import { count, interval, num3, pct } from "./format.ts";
import { legend } from "./legend.ts";
import { fewTile, type TooLittle, tile } from "./tiles.ts";

const TOKEN_KEY = "relevance-quality-admin-token";
const FIELDS = ["account", "index", "since", "model"] as const;

function input(name: string): HTMLInputElement {
  const node = document.querySelector<HTMLInputElement>(`#q-${name}`);
  if (node === null) throw new Error(`the page has no #q-${name}`);
  return node;
}

function status(text: string, kind: "info" | "error" = "info"): void {
  const node = document.querySelector<HTMLElement>("#status");
  if (node === null) return;
  node.textContent = text;
  node.dataset.kind = kind;
}

function correlationTile(label: string, m: ModelQuality["kendallTau"]): HTMLElement {
  if (m.status !== "ok") return fewTile(label, m);
  return tile(label, num3(m.value), `n = ${count(m.n)} queries · 95 % ${interval(m.interval, num3)}`);
}

function aucTile(m: ModelQuality["auc"]): HTMLElement {
  const label = "AUC (no-click searches)";
  if (m.status !== "ok") return fewTile(label, m);
  return tile(
    label,
    num3(m.value),
    `n = ${count(m.clicked)} clicked, ${count(m.notClicked)} not · 95 % ${interval(m.interval, num3)}`,
  );
}

function calibrationTable(model: ModelQuality): HTMLElement {
  if (model.calibration.status !== "ok") return el("p", { class: "few" }, "");
  const head = el(
    "tr",
    {},
    ...["decile", "score range", "n", "mean score", "CTR", "CTR 95 %", "conversion", "conversion 95 %"].map(
      (h) => el("th", {}, h),
    ),
  );
  const rows = model.calibration.groups.map((g) =>
    el(
      "tr",
      {},
      el("td", {}, String(g.decile)),
      el("td", {}, `${g.minScore.toFixed(2)}–${g.maxScore.toFixed(2)}`),
      el("td", {}, count(g.n)),
      el("td", {}, g.meanScore.toFixed(2)),
      el("td", {}, pct(g.clickThrough.rate)),
      el("td", {}, interval(g.clickThrough.interval, pct)),
      el("td", {}, pct(g.conversion.rate)),
      el("td", {}, interval(g.conversion.interval, pct)),
    ),
  );
  return el(
    "div",
    { class: "table-wrap" },
    el("table", { class: "calibration" }, el("thead", {}, head), el("tbody", {}, ...rows)),
  );
}

/** The width the charts are drawn at: the section's content width, at most 760 px. */
const chartWidth = (): number => Math.max(280, Math.min(760, document.documentElement.clientWidth - 62));

function modelSection(model: ModelQuality): HTMLElement {
  const section = el("section", { class: "model", "data-model": model.modelId });
  section.append(
    el("h2", {}, `Model ${model.modelId}`),
    el(
      "div",
      { class: "tiles" },
      tile("Searches served", count(model.searches), `${model.histogram.length} day(s) with searches`),
      correlationTile("Kendall τ-b", model.kendallTau),
      correlationTile("Spearman ρ", model.spearmanRho),
      aucTile(model.auc),
    ),
  );
  if (model.queries.truncated) {
    section.append(
      el(
        "p",
        { class: "note" },
        `τ and ρ over the ${count(model.queries.n)} queries with the most searches.`,
      ),
    );
  }
  section.append(el("h3", {}, "Score distribution per day"));
  section.append(
    model.histogram.length === 0
      ? el("p", { class: "few" }, "No searches in the range.")
      : histogramChart(model, chartWidth()),
    legend(),
  );
  section.append(el("h3", {}, "Calibration: click-through by score decile"));
  const chart = calibrationChart(model, chartWidth());
  if (chart === null) {
    const c = model.calibration as TooLittle;
    section.append(el("p", { class: "few", "data-metric": "calibration" }, `Too little data: ${c.reason}.`));
  } else {
    section.append(chart, calibrationTable(model));
  }
  return section;
}

function render(report: QualityReport): void {
  const out = document.querySelector<HTMLElement>("#report");
  if (out === null) return;
  out.replaceChildren(
    el(
      "p",
      { class: "scope" },
      `${report.account} / ${report.index} · ${report.since.slice(0, 16).replace("T", " ")} to ${report.until.slice(0, 16).replace("T", " ")} UTC` +
        (report.modelId === null ? "" : ` · model ${report.modelId}`) +
        ` · queries with at least ${report.minImpressions} searches count for τ and ρ`,
    ),
    el(
      "p",
      { class: "scope" },
      `Events: ${count(report.events.attributed)} attributed, ${count(report.events.unattributed)} unattributed, ${count(report.events.duplicates)} duplicates.`,
    ),
    ...(report.models.length === 0
      ? [el("p", { class: "few" }, "No scored searches were recorded in this range.")]
      : []),
    ...comparisonSections(report, chartWidth()),
    ...report.models.map(modelSection),
    ...driftSections(report, chartWidth()),
  );
}

async function load(): Promise<void> {
  const token = input("token").value.trim();
  const [account, index, since, model] = FIELDS.map((f) => input(f).value.trim());
  if (token === "" || account === "" || index === "") {
    status("Paste the admin token and name the account and index.", "error");
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  // The account, index and range may be shared as a link; the token never is.
  const shown = new URLSearchParams();
  for (const [k, v] of [
    ["account", account],
    ["index", index],
    ["since", since],
    ["model", model],
  ] as const) {
    if (v) shown.set(k, v);
  }
  history.replaceState(null, "", `?${shown.toString()}`);
  const query = new URLSearchParams();
  if (since) query.set("since", since);
  if (model) query.set("model", model);
  status("Loading…");
  const path = `/api/v1/admin/accounts/${encodeURIComponent(account ?? "")}/indexes/${encodeURIComponent(index ?? "")}/quality?${query.toString()}`;
  let res: Response;
  try {
    res = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
  } catch {
    status("The admin API could not be reached.", "error");
    return;
  }
  const body = (await res.json().catch(() => null)) as
    | (QualityReport & { error?: undefined })
    | { error?: { code: string; message: string; details?: { path: string; message: string }[] } }
    | null;
  if (!res.ok || body === null || body.error !== undefined) {
    const e = body?.error;
    const detail = e?.details?.[0] ? ` (${e.details[0].path}: ${e.details[0].message})` : "";
    status(`${res.status}: ${e?.message ?? "the admin API did not answer a report"}${detail}`, "error");
    return;
  }
  status(`Generated ${(body as QualityReport).generatedAt}`);
  render(body as QualityReport);
}

function start(): void {
  const params = new URLSearchParams(location.search);
  for (const f of FIELDS) {
    const v = params.get(f);
    if (v !== null) input(f).value = v;
  }
  input("token").value = sessionStorage.getItem(TOKEN_KEY) ?? "";
  document.querySelector("#query")?.addEventListener("submit", (event) => {
    event.preventDefault();
    void load();
  });
  document.querySelector("#forget")?.addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    input("token").value = "";
    status("The token is forgotten in this tab.");
  });
  if (input("token").value !== "" && input("account").value !== "" && input("index").value !== "")
    void load();
}

start();
