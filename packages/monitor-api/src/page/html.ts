/**
 * The HTML of `/system` and `/system/login`: self-contained (inline CSS and script, no CDN, no web
 * fonts). The page shell is rendered here; its inline script fetches `/api/system/status` and
 * `/api/system/collectors/failures` every 10 s and re-renders the live region. docs/monitor-page.md.
 */

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const CSS = `
:root { color-scheme: light; --ok:#1a7f37; --warn:#9a6700; --bad:#cf222e; --new:#0969da; --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#f6f8fa; }
* { box-sizing: border-box; }
body { margin:0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; flex-wrap:wrap; gap:.75rem; align-items:center; padding:.75rem 1.25rem; background:#fff; border-bottom:1px solid var(--line); }
header h1 { font-size:1.25rem; margin:0 auto 0 0; }
main { padding:1rem 1.25rem; max-width:1200px; }
h2 { font-size:1.1rem; margin:1.25rem 0 .5rem; }
h3 { font-size:1rem; margin:0 0 .25rem; overflow-wrap:anywhere; }
button { font:inherit; padding:.35rem .8rem; border:1px solid var(--line); border-radius:6px; background:#fff; cursor:pointer; }
button:hover { background:#eef1f4; }
:focus-visible { outline:3px solid #0969da; outline-offset:2px; }
.muted { color:var(--muted); }
.grid { display:grid; grid-template-columns:repeat(auto-fill,minmax(260px,1fr)); gap:.75rem; }
.card { background:#fff; border:1px solid var(--line); border-left:6px solid var(--line); border-radius:6px; padding:.75rem; }
.card.green { border-left-color:var(--ok); } .card.amber { border-left-color:var(--warn); } .card.red { border-left-color:var(--bad); } .card.new { border-left-color:var(--new); border-left-style:dashed; }
.badge { display:inline-block; font-weight:600; padding:0 .45rem; border-radius:999px; color:#fff; }
.badge.green { background:var(--ok); } .badge.amber { background:var(--warn); } .badge.red { background:var(--bad); } .badge.new { background:var(--new); }
dl.kv { display:grid; grid-template-columns:max-content 1fr; gap:.1rem .75rem; margin:.4rem 0; }
dl.kv dt { color:var(--muted); } dl.kv dd { margin:0; overflow-wrap:anywhere; }
.err { color:var(--bad); }
table { border-collapse:collapse; background:#fff; min-width:320px; }
th, td { text-align:left; padding:.35rem .75rem; border:1px solid var(--line); }
tr.attention td { color:var(--bad); font-weight:600; background:#ffebe9; }
tr.unreadable td { color:var(--warn); font-weight:600; background:#fff8c5; }
.panel { background:#fff; border:1px solid var(--line); border-radius:6px; padding:.75rem; }
.problem { background:#ffebe9; color:#82071e; border:1px solid var(--bad); border-radius:6px; padding:.5rem .75rem; margin:.5rem 0; font-weight:600; }
.stale { opacity:.75; }
.linked { outline:3px solid #0969da; outline-offset:2px; }
.stale-note { color:var(--bad); font-weight:600; }
svg.spark { display:block; margin-top:.35rem; }
.cost-warning { background:#fff8c5; border:1px solid var(--warn); border-radius:6px; padding:.5rem .75rem; margin:.5rem 0; }
.triage { background:#fff; border:1px solid var(--line); border-left:6px solid var(--line); border-radius:6px; padding:.75rem; margin:0 0 .75rem; }
.triage.amber { border-left-color:var(--warn); } .triage.red { border-left-color:var(--bad); }
.triage table { width:100%; min-width:0; } .triage td, .triage th { overflow-wrap:anywhere; }
@media (max-width: 600px) {
  .triage table, .triage tbody, .triage tr, .triage th, .triage td { display:block; width:100%; }
  .triage thead { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); }
  .triage tr { border:1px solid var(--line); border-radius:6px; margin-bottom:.5rem; }
  .triage th, .triage td { border:0; padding:.2rem .5rem; }
  .triage td::before { content:attr(data-label) ": "; color:var(--muted); }
}
.triage code { display:block; background:var(--bg); border:1px solid var(--line); border-radius:6px; padding:.35rem .5rem; overflow-wrap:anywhere; white-space:pre-wrap; font-size:.85em; }
.sr-only { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
.skip { position:absolute; left:-999px; } .skip:focus { left:1rem; top:.5rem; background:#fff; padding:.25rem .5rem; }
form.login { background:#fff; border:1px solid var(--line); border-radius:6px; padding:1rem; max-width:420px; }
form.login label { display:block; font-weight:600; margin-bottom:.25rem; }
form.login input { font:inherit; width:100%; padding:.4rem; margin-bottom:.75rem; border:1px solid var(--line); border-radius:6px; }
`;

export function loginPage(nonce: string, error?: string): string {
  const err =
    error === undefined ? "" : `<p class="problem" role="alert" id="login-error">${escapeHtml(error)}</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · System status</title><style nonce="${nonce}">${CSS}</style></head>
<body><header><h1>System status</h1></header>
<main id="main"><h2>Sign in</h2>${err}
<form class="login" method="post" action="/system/login">
<label for="token">Monitor token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus${error === undefined ? "" : ' aria-describedby="login-error" aria-invalid="true"'}>
<button type="submit">Sign in</button>
</form>
<p class="muted">The token is checked once; the browser then keeps a session cookie (not the token).</p>
</main></body></html>`;
}

/** `silences`: whether this deployment keeps silences (else the page neither shows nor fetches them). */
export function systemPage(nonce: string, silences = false): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>System status</title><style nonce="${nonce}">${CSS}</style></head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<h1>System status</h1>
<p id="updated" class="muted" role="status">Loading…</p>
<button type="button" id="refresh">Refresh now</button>
<form method="post" action="/system/logout"><button type="submit" id="logout">Log out</button></form>
</header>
<main id="main">
<div id="problems"></div>
<div id="live" aria-live="polite">
<section aria-labelledby="h-triage" id="triage-section" hidden><h2 id="h-triage">Needs attention</h2><div id="triage"></div></section>
<section aria-labelledby="h-collectors"><h2 id="h-collectors">Collectors</h2><p id="overall"></p><div id="collectors" class="grid"><p class="muted">Loading…</p></div></section>
<section aria-labelledby="h-accounts"><h2 id="h-accounts">Account coverage</h2><div id="accounts"></div></section>
<section aria-labelledby="h-db" id="analytics-db"><h2 id="h-db">Analytics database</h2><div id="db" class="panel"></div></section>
<section aria-labelledby="h-queues"><h2 id="h-queues">Message queues</h2><div id="queues" class="panel"></div></section>
<section aria-labelledby="h-alerts"><h2 id="h-alerts">Firing alerts</h2><div id="alerts" class="panel"></div></section>
<section aria-labelledby="h-silences" id="silences-section" data-enabled="${silences ? "1" : "0"}" hidden><h2 id="h-silences">Silences</h2><div id="silences" class="panel"></div></section>
<section aria-labelledby="h-cost" id="own-cost-section" hidden><h2 id="h-cost">Own cost</h2><div id="own-cost" class="panel"></div></section>
</div>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body></html>`;
}

/** Browser-side: plain ES2020, DOM built with textContent only (no innerHTML of server data). */
const SCRIPT = `
"use strict";
const REFRESH_MS = 10000;
// "new": waiting for a first run within its grace (docs/monitor-rules.md); not a problem, so not red.
const WORDS = { new: "Waiting", green: "Healthy", amber: "Degraded", red: "Unhealthy" };
const OVERALL = { new: "Waiting for the collectors' first runs", green: "Healthy", amber: "Degraded", red: "Unhealthy" };
const ATTENTION = { no_access: "no access: role assumption fails", pending_setup: "pending setup" };
let last = null, lastFailures = null, lastAt = null, timer = null, scrolled = false;

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const k of kids.flat()) if (k !== undefined && k !== null && k !== false) el.append(k instanceof Node ? k : String(k));
  return el;
}
const SVG = "http://www.w3.org/2000/svg";
function s(tag, attrs) { const el = document.createElementNS(SVG, tag); for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v)); return el; }
const fmtTime = (iso) => iso ? new Date(iso).toLocaleString() : "never";
const num = (v, unit) => (v === null || v === undefined) ? "not available" : (Math.round(v * 100) / 100) + (unit || "");
function kv(pairs) { const dl = h("dl", { class: "kv" }); for (const [k, v] of pairs) dl.append(h("dt", {}, k), h("dd", {}, v)); return dl; }

function sparkline(name, days, counts) {
  const w = 140, hgt = 28, max = Math.max(1, ...counts), step = w / Math.max(1, counts.length);
  const text = "Failures of " + name + " over the last " + counts.length + " days: " +
    days.map((d, i) => d + ": " + counts[i]).join(", ") + " (total " + counts.reduce((a, b) => a + b, 0) + ")";
  const svg = s("svg", { class: "spark", width: w, height: hgt, viewBox: "0 0 " + w + " " + hgt, role: "img", "aria-label": text });
  const t = s("title", {}); t.textContent = text; svg.append(t);
  counts.forEach((c, i) => {
    const bh = c === 0 ? 1 : Math.max(3, (c / max) * (hgt - 2));
    svg.append(s("rect", { x: i * step + 1, y: hgt - bh, width: step - 2, height: bh, fill: c === 0 ? "#d1d9e0" : "#cf222e" }));
  });
  return svg;
}

function renderCollectors(st, fl) {
  const box = document.getElementById("collectors");
  const byName = new Map(((fl && fl.collectors) || []).map((c) => [c.name, c]));
  const reasons = new Map();
  for (const w of st.warnings || []) if (w.kind === "collector") (reasons.get(w.subject) || reasons.set(w.subject, []).get(w.subject)).push(w.message);
  const cards = (st.collectors || []).map((c) => {
    const f = byName.get(c.name), lr = f && f.latest_run;
    const word = WORDS[c.health] || c.health;
    const card = h("article", { class: "card " + c.health, "aria-labelledby": "c-" + c.name, id: "collector-" + c.name },
      h("h3", { id: "c-" + c.name }, c.name),
      h("span", { class: "badge " + c.health }, word),
      kv([
        ["Last run", c.last_run ? fmtTime(c.last_run) + (c.minutes_ago !== null ? " (" + c.minutes_ago + " min ago)" : "") : "never ran"],
        ...(c.health === "new" && c.new_until ? [["Waiting until", fmtTime(c.new_until) + " (stale, and alerted, if it has not run by then)"]] : []),
        ...(c.registered_at && !c.last_run ? [["Registered", fmtTime(c.registered_at)]] : []),
        ...(c.registered_by === "first_run" ? [["Registered by", "its first run" + (c.registered_at ? ", " + fmtTime(c.registered_at) : "") +
          " (auto-registered with the defaults: adjust with PUT, or remove with DELETE /api/system/collectors/" + c.name + ")"]] : []),
        ["Last status", c.status || "none"],
        ["Duration", lr && lr.duration_ms !== null && lr.duration_ms !== undefined ? (lr.duration_ms / 1000).toFixed(1) + " s" : "not available"],
        ["Events", lr ? String(lr.events_produced) : "not available"],
        ["Last error", lr ? (lr.error ? h("span", { class: "err" }, lr.error) : "none") : "not available"],
      ]));
    const rs = reasons.get(c.name);
    if (rs) card.append(h("ul", { class: c.health === "new" ? "muted" : "err" }, rs.map((r) => h("li", {}, r))));
    if (f && fl.days) card.append(sparkline(c.name, fl.days, f.failures),
      h("p", { class: "muted", "aria-hidden": "true" }, "Failures, last " + f.failures.length + " days: " + f.total));
    else card.append(h("p", { class: "muted" }, "Failure history (7 days) unavailable"));
    return card;
  });
  box.replaceChildren(...(cards.length ? cards : [h("p", { class: "muted" }, "No collectors registered")]));
  const overall = document.getElementById("overall");
  if (st.overall_health) overall.replaceChildren("Overall: ", h("span", { class: "badge " + st.overall_health }, OVERALL[st.overall_health] || st.overall_health));
  else overall.replaceChildren();
}

// Triage (docs/monitor-page.md): per red or amber collector, where it fails, since when, the last error, its runs.
function renderTriage(st) {
  const section = document.getElementById("triage-section");
  const list = Array.isArray(st.triage) ? st.triage : [];
  section.hidden = list.length === 0;
  document.getElementById("triage").replaceChildren(...list.map((t) => {
    const id = "t-" + t.collector;
    const faults = t.at_fault || [];
    const runsHref = (t.runs && t.runs.href) || "";
    const table = faults.length
      ? h("table", {}, h("caption", { class: "sr-only" }, "Accounts and regions at fault for " + t.collector),
          h("thead", {}, h("tr", {}, ["Account", "Region", "Failed in a row", "Last run", "Last success", "Runs"].map((x) => h("th", { scope: "col" }, x)))),
          h("tbody", {}, faults.map((f) => h("tr", {},
            h("th", { scope: "row" }, f.cloud_account_id),
            h("td", { "data-label": "Region" }, f.cloud_region),
            h("td", { "data-label": "Failed in a row" }, String(f.consecutive_failures)),
            h("td", { "data-label": "Last run" }, f.last_status + ", " + fmtTime(f.last_run_at)),
            h("td", { "data-label": "Last success" }, fmtTime(f.last_success_at)),
            h("td", { "data-label": "Runs" }, h("a", { href: runsHref + "&account=" + encodeURIComponent(f.cloud_account_id) + "&region=" + encodeURIComponent(f.cloud_region) }, "runs of " + f.cloud_account_id + "/" + f.cloud_region))))))
      : h("p", { class: "muted" }, "No account or region with a failing latest run: the collector has not run (successfully) recently.");
    return h("article", { class: "triage " + t.health, id: id, "aria-labelledby": id + "-h" },
      h("h3", { id: id + "-h" }, t.collector + " ", h("span", { class: "badge " + t.health }, WORDS[t.health] || t.health)),
      h("ul", { class: "err" }, (t.reasons || []).map((r) => h("li", {}, r))),
      kv([
        ["Unhealthy since", t.since ? fmtTime(t.since) + (t.last_success_at ? " (its last success; none since)" : " (never succeeded)") : "unknown (never succeeded)"],
        ["Last error", t.last_error ? h("span", { class: "err" }, t.last_error) : (t.last_error === "" ? "none given" : "none (the latest run did not fail)")],
        ...(t.last_error_at ? [["Failed at", fmtTime(t.last_error_at)]] : []),
      ]),
      h("h4", {}, "At fault"),
      table,
      h("p", {}, h("a", { href: runsHref }, "Recent runs of " + t.collector), " (JSON), or from a shell:"),
      h("code", {}, (t.runs && t.runs.command) || ""));
  }));
}

function renderAccounts(st) {
  const counts = st.accounts || {};
  const rows = Object.entries(counts).map(([status, n]) => {
    const bad = status in ATTENTION;
    return h("tr", { class: bad && n > 0 ? "attention" : bad ? "attention-zero" : "" },
      h("th", { scope: "row" }, status),
      h("td", {}, String(n)),
      h("td", {}, bad ? (n > 0 ? "Needs attention: " + ATTENTION[status] : "none") : "ok"));
  });
  const table = h("table", {}, h("caption", { class: "sr-only" }, "Monitored accounts by status"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Status"), h("th", { scope: "col" }, "Accounts"), h("th", { scope: "col" }, "Note"))),
    h("tbody", {}, rows));
  const un = st.unscanned_accounts || [];
  const unEl = un.length
    ? h("div", {}, h("h3", {}, "Active accounts not scanned in 24 hours (" + un.length + ")"),
        h("ul", {}, un.map((u) => h("li", { class: "err", id: "account-" + u.account_id }, (u.account_name || "") + " (" + u.account_id + "): last scanned " + fmtTime(u.last_scanned_at)))))
    : h("p", { class: "muted" }, "Every active account was scanned in the last 24 hours" + ((st.new_accounts || []).length ? ", or is waiting for its first scan." : "."));
  const fresh = st.new_accounts || [];
  const newEl = fresh.length
    ? h("div", { id: "new-accounts" }, h("h3", {}, "Waiting for their first scan (" + fresh.length + ")"),
        h("ul", {}, fresh.map((a) => h("li", { id: "account-" + a.account_id }, (a.account_name || "") + " (" + a.account_id + "): active since " + fmtTime(a.first_active_at) + "; unscanned if not scanned by " + fmtTime(a.new_until)))))
    : null;
  // Accounts that need attention (no_access, pending_setup), each an anchor alert links can point at.
  const attention = (st.warnings || []).filter((w) => w.kind === "account");
  const attEl = attention.length
    ? h("div", { id: "accounts-attention" }, h("h3", {}, "Accounts needing attention (" + attention.length + ")"),
        h("ul", {}, attention.map((w) => h("li", { class: "err", id: "account-" + w.subject }, w.message + " (" + w.subject + ")"))))
    : null;
  document.getElementById("accounts").replaceChildren(table, ...(attEl ? [attEl] : []), unEl, ...(newEl ? [newEl] : []));
}

function renderDb(st) {
  const d = st.analytics_db || {};
  const src = d.source ? Object.entries(d.source).map(([k, v]) => k + ": " + v).join("; ") : "not stated";
  const latencyBy = {
    "system.query_log": "the server: queries finished in the last 15 min (system.query_log)",
    "client-timings": "this monitor: the time its own recent queries took (no system.query_log)",
  }[d.source && d.source.query_latency] || "not stated";
  document.getElementById("db").replaceChildren(kv([
    ["Disk used", num(d.disk_used_gb, " GB") + (d.disk_total_gb ? " of " + num(d.disk_total_gb, " GB") : "")],
    ["Service data", num(d.svc_disk_used_gb, " GB")],
    ["Disk holding the data", d.disk_used_ratio === null || d.disk_used_ratio === undefined ? "not available" : (Math.round(d.disk_used_ratio * 1000) / 10) + " % used (alert above 80 %)"],
    ["Query latency p50", num(d.query_p50_ms, " ms")],
    ["Query latency p95", num(d.query_p95_ms, " ms")],
    ["Query latency p99", num(d.query_p99_ms, " ms")],
    ["Latency samples", num(d.query_samples)],
    ["Latency measured by", latencyBy],
    ["Active queries", num(d.active_queries)],
    ["Source", src],
  ]));
}

function renderDbDown(message) {
  const box = document.getElementById("db");
  const old = document.getElementById("db-down");
  if (old) old.remove();
  box.prepend(h("p", { class: "err", id: "db-down" }, h("span", { class: "badge red" }, "Unreachable"), " " + message + (last ? " (figures below are from " + lastAt.toLocaleTimeString() + ")" : "")));
}

function renderGeneric(list, fields) {
  return h("ul", {}, list.map((item) => h("li", {}, typeof item === "object" && item !== null
    ? fields.filter((f) => item[f] !== undefined && item[f] !== null).map((f) => f + ": " + item[f]).join(" · ") || JSON.stringify(item)
    : String(item))));
}

// Queue status in words and colour (docs/monitor-page.md "Message queues"); dead letters are expected to be 0.
const QUEUE_COLOUR = { ok: "green", dead_letters: "red", unreadable: "amber" };
const QUEUE_WORDS = { ok: "OK", dead_letters: "Dead letters", unreadable: "Unreadable" };
function queueDetail(x) {
  if (x.status === "dead_letters") return " Needs attention: " + x.dead_letter_depth + " message(s) in the dead-letter queue (expected 0)";
  if (x.status === "unreadable") return " " + (x.error || "unknown error");
  return "";
}
function renderQueues(st) {
  const box = document.getElementById("queues");
  const q = Array.isArray(st.queues) ? st.queues : [];
  const parts = [];
  if (st.queues_error) parts.push(h("p", { class: "err", id: "queues-error" }, "Queue health unavailable: " + st.queues_error));
  if (q.length === 0) { box.replaceChildren(...parts, h("p", {}, "No queue configured")); return; }
  const count = (v) => (v === null || v === undefined) ? "unknown" : String(v);
  const rows = q.map((x) => h("tr", { class: x.status === "dead_letters" ? "attention" : x.status === "unreadable" ? "unreadable" : "", "data-queue": x.name, id: "queue-" + x.name },
    h("th", { scope: "row" }, x.name),
    h("td", {}, count(x.depth)),
    h("td", {}, count(x.in_flight)),
    // The dead-letter alert's subject is the dead-letter queue: its own anchor (a failure queue is its row).
    h("td", {}, x.dead_letter_queue && x.dead_letter_queue !== x.name ? h("span", { id: "queue-" + x.dead_letter_queue }, x.dead_letter_queue) : (x.dead_letter_queue || (x.status === "unreadable" ? "unknown" : "none"))),
    h("td", {}, x.dead_letter_queue ? count(x.dead_letter_depth) : (x.status === "unreadable" ? "unknown" : "no dead-letter queue")),
    h("td", {}, h("span", { class: "badge " + (QUEUE_COLOUR[x.status] || "amber") }, QUEUE_WORDS[x.status] || String(x.status)), queueDetail(x))));
  parts.push(h("table", {}, h("caption", { class: "sr-only" }, "Message queues: depth and dead-letter queue depth (expected 0)"),
    h("thead", {}, h("tr", {}, ["Queue", "Messages waiting", "In flight", "Dead-letter queue", "Dead letters", "Status"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows)));
  box.replaceChildren(...parts);
}

function renderAlerts(st) {
  const box = document.getElementById("alerts");
  const a = st.alerts;
  if (!Array.isArray(a) || a.length === 0) { box.replaceChildren(h("p", {}, "No alerts")); return; }
  box.replaceChildren(h("ul", {}, a.map((x) => {
    if (typeof x !== "object" || x === null) return h("li", {}, String(x));
    const sev = x.severity || "unknown";
    // A muted alert is listed, marked and explained: held back, not notified (docs/monitor-page.md).
    const mutedBy = x.muted_by ? (x.muted_by.kind === "silence" ? "silence " + x.muted_by.id + " by " + x.muted_by.author + " until " + new Date(x.muted_by.endsAt).toISOString() : x.muted_by.rule + " " + x.muted_by.subject) : null;
    return h("li", { class: x.muted ? "muted muted-alert" : sev === "critical" ? "err" : "", id: x.fingerprint ? "alert-" + x.fingerprint : undefined, "data-muted": x.muted ? "true" : undefined },
      x.muted ? h("span", { class: "badge new" }, "Muted") : null, x.muted ? " " : null,
      h("strong", {}, sev.toUpperCase() + ": "), (x.rule || x.alert || x.kind || "alert") + (x.subject ? " — " + x.subject : ""),
      x.since ? " (since " + fmtTime(x.since) + ")" : "",
      x.muted ? " · muted, not notified" + (mutedBy ? " (muted by " + mutedBy + ")" : "") + (x.reason ? ": " + x.reason : "")
        : x.notified === false ? " · not yet notified" : "",
      x.summary ? h("div", {}, x.summary) : null,
      x.last_error ? h("div", { class: "err" }, "Last error: " + x.last_error) : null,
      x.message ? " · " + x.message : "");
  })));
}

// Own cost (docs/monitor-cost.md): shown only when the status body has own_cost.
function money(v, cur) {
  if (v === null || v === undefined) return "not available";
  if (!cur) return String(v);
  try { return new Intl.NumberFormat("en", { style: "currency", currency: cur, minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(v); }
  catch (e) { return v.toFixed(2) + " " + cur; }
}
function costSparkline(daily, cur) {
  const w = 240, hgt = 40, vals = daily.map((d) => d.cost), max = Math.max(0, ...vals) || 1, step = w / Math.max(1, vals.length);
  const text = "Own cost per day over the last " + daily.length + " days: " + daily.map((d) => d.day + ": " + money(d.cost, cur)).join(", ");
  const svg = s("svg", { class: "spark", id: "own-cost-spark", width: w, height: hgt, viewBox: "0 0 " + w + " " + hgt, role: "img", "aria-label": text });
  const t = s("title", {}); t.textContent = text; svg.append(t);
  vals.forEach((v, i) => {
    const bh = v <= 0 ? 1 : Math.max(2, (v / max) * (hgt - 2));
    svg.append(s("rect", { x: i * step + 1, y: hgt - bh, width: Math.max(1, step - 2), height: bh, fill: v <= 0 ? "#d1d9e0" : "#0969da" }));
  });
  return svg;
}
// Silences (issue 18): those not ended; created and expired with svcmon silence or the API.
function renderSilences(body) {
  const section = document.getElementById("silences-section");
  const box = document.getElementById("silences");
  if (body === null) { section.hidden = true; return; }
  section.hidden = false;
  const list = Array.isArray(body.silences) ? body.silences : [];
  if (list.length === 0) { box.replaceChildren(h("p", {}, "No silences (svcmon silence add)")); return; }
  box.replaceChildren(h("ul", {}, ...list.map((x) => {
    const m = x.matchers || {};
    const subj = m.subject ? (m.subject.op === "eq" ? "subject " : m.subject.op === "prefix" ? "subject starts with " : "subject matches ") + m.subject.value : null;
    const what = [m.rule ? "rule " + m.rule : null, subj].filter(Boolean).join(", ");
    return h("li", { id: "silence-" + x.id, "data-state": x.state },
      h("span", { class: "badge new" }, x.state === "pending" ? "Pending" : "Silenced"), " ",
      h("strong", {}, what), " until " + new Date(x.ends_at).toLocaleString() + " by " + x.author + ": " + x.reason,
      x.state === "pending" ? " (starts " + new Date(x.starts_at).toLocaleString() + ")" : null,
      h("span", { class: "muted" }, " · id " + x.id));
  })));
}

function renderOwnCost(st) {
  const section = document.getElementById("own-cost-section");
  if (!("own_cost" in st)) { section.hidden = true; return; }
  section.hidden = false;
  const box = document.getElementById("own-cost");
  const c = st.own_cost;
  if (!c) { box.replaceChildren(h("p", { class: "err" }, "Own cost unavailable: " + (st.own_cost_error || "unknown error"))); return; }
  const cur = c.currency, out = c.outside_any_node || {};
  const parts = [];
  if (!c.as_of) parts.push(h("p", { class: "muted" }, "No cost report ingested yet."));
  parts.push(kv([
    ["Month to date", money(c.month_to_date, cur)],
    ["Last 30 days", money(c.last_30_days_total, cur)],
    ["Counted", "resources tagged svc:purpose=svc-infrastructure (node " + c.node + ")"],
    ["Outside any node, last 30 days", money(out.last_30_days_total, out.currency || cur) +
      ((out.by_reason || []).length ? " (" + out.by_reason.map((r) => r.reason + " " + money(r.last_30_days_total, out.currency || cur)).join(", ") + "): tax, fees and support belong to no node" : "")],
    ["Cost data through", c.data_through || "none"],
    ["Report ingested", fmtTime(c.as_of)],
  ]));
  for (const o of c.other_currencies || []) parts.push(h("p", { class: "muted" }, "Also " + money(o.month_to_date, o.currency) + " month to date in " + o.currency + " (not added)"));
  if (c.daily && c.daily.length) {
    parts.push(costSparkline(c.daily, cur),
      h("p", { class: "muted", "aria-hidden": "true" }, "Per day, " + c.daily[0].day + " to " + c.daily[c.daily.length - 1].day));
  }
  const u = c.untagged_service_resources || [];
  if (u.length) {
    parts.push(h("div", { class: "cost-warning", id: "untagged-warning" },
      h("strong", {}, "Warning: " + u.length + " resource(s) belong to the service but lack the tag svc:purpose=svc-infrastructure; their cost is not counted above."),
      h("ul", {}, u.map((x) => h("li", {}, x.resource_id + " (account " + x.cloud_account_id + (x.cloud_region ? ", " + x.cloud_region : "") + "): " + x.reason +
        (x.source === "inventory" ? " (seen by the collectors)" : " (seen in the cost report)"))))));
  } else parts.push(h("p", { class: "muted" }, "Every resource that belongs to the service carries the tag."));
  box.replaceChildren(...parts);
}

function problems(list) {
  document.getElementById("problems").replaceChildren(...list.map((p) => h("p", { class: "problem", role: "alert" }, p)));
  document.getElementById("live").classList.toggle("stale", list.length > 0);
}

async function getJson(path) {
  const r = await fetch(path, { credentials: "same-origin", headers: { accept: "application/json" }, cache: "no-store" });
  if (r.status === 401) { location.assign("/system/login"); throw new Error("signed out"); }
  let body = null; try { body = await r.json(); } catch (e) {}
  if (!r.ok) { const e = new Error((body && body.error && body.error.message) || ("HTTP " + r.status)); e.status = r.status; e.code = body && body.error && body.error.code; e.body = body; throw e; }
  return body;
}

// Without a silence store the route does not exist: the page asks for nothing (no 404 in the console).
const silencesEnabled = document.getElementById("silences-section").dataset.enabled === "1";
async function refresh() {
  clearTimeout(timer);
  const live = document.getElementById("live");
  live.setAttribute("aria-busy", "true");
  const [st, fl, si] = await Promise.allSettled([getJson("/api/system/status"), getJson("/api/system/collectors/failures"), silencesEnabled ? getJson("/api/system/silences") : Promise.resolve(null)]);
  const issues = [];
  if (st.status === "fulfilled") { last = st.value; lastAt = new Date(); }
  else issues.push((st.reason.status === 503 || st.reason.code === "analytics_db_unavailable" ? "Analytics database unreachable" : "Status unavailable (" + st.reason.message + ")") +
    (last ? ": showing the last data, from " + lastAt.toLocaleTimeString() : ": no data yet"));
  // No silence store (404): no section; another failure: a problem line, the last list kept.
  if (si.status === "fulfilled") renderSilences(si.value);
  else if (si.reason.status === 404) renderSilences(null);
  else issues.push("Silences unavailable (" + si.reason.message + ")");
  if (fl.status === "fulfilled") lastFailures = fl.value;
  else issues.push("Failure history unavailable" + (lastFailures ? " (showing the last known)" : ""));
  if (last) {
    renderTriage(last); renderCollectors(last, lastFailures); renderAccounts(last); renderDb(last); renderQueues(last); renderAlerts(last); renderOwnCost(last);
  }
  // A 503 still carries what does not live in the database: fresh queue health, the database marked.
  const partial = st.status === "rejected" && st.reason.body && Array.isArray(st.reason.body.queues) ? st.reason.body : null;
  if (partial) renderQueues(partial);
  if (st.status === "rejected" && (st.reason.status === 503 || st.reason.code === "analytics_db_unavailable")) renderDbDown(st.reason.message);
  problems(issues);
  document.getElementById("updated").textContent = lastAt
    ? "Updated " + lastAt.toLocaleTimeString() + (issues.length ? " (stale)" : "") + "; refreshes every 10 s"
    : "Not loaded yet";
  live.setAttribute("aria-busy", "false");
  // Render marker (npm run bench times navigation → first render of fresh status data by it).
  if (st.status === "fulfilled") document.body.dataset.loaded = lastAt.toISOString();
  // A notification's link (/system#collector-…, #account-…, #queue-…, #analytics-db): the element
  // exists only once the data is rendered, so scroll to it then (once).
  if (st.status === "fulfilled" && !scrolled && location.hash.length > 1) {
    scrolled = true;
    let id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (e) {}
    const target = document.getElementById(id);
    if (target) { target.scrollIntoView(); target.classList.add("linked"); }
  }
  timer = setTimeout(refresh, REFRESH_MS);
}

document.getElementById("refresh").addEventListener("click", () => { refresh(); });
refresh();
`;
