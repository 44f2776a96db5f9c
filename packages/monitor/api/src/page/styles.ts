/**
 * The /system page's stylesheet (inline, under the response's CSP nonce; no web fonts). Calm and
 * dense: a verdict banner on top, red and amber before the rest, two columns from 1100 px, one
 * below; colours always come with words. docs/monitor-page.md.
 */
export const CSS = `
:root { color-scheme: light; --ok:#1a7f37; --warn:#9a6700; --bad:#cf222e; --new:#0969da; --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#f6f8fa; --card:#fff; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin:0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; flex-wrap:wrap; gap:.5rem .75rem; align-items:center; padding:.5rem 1rem; background:#fff; border-bottom:1px solid var(--line); }
header h1 { font-size:1.15rem; margin:0 auto 0 0; }
header p { margin:0; }
header form { margin:0; }
main { padding:.75rem 1rem 1.5rem; max-width:1560px; margin:0 auto; }
h2 { font-size:.95rem; margin:0 0 .4rem; text-transform:uppercase; letter-spacing:.04em; color:#3d444d; }
h3 { font-size:.95rem; margin:0 .4rem .2rem 0; overflow-wrap:anywhere; display:inline; }
h4 { font-size:.85rem; margin:.4rem 0 .2rem; color:var(--muted); }
ul { margin:.25rem 0; padding-left:1.1rem; }
button { font:inherit; padding:.25rem .65rem; border:1px solid var(--line); border-radius:6px; background:#fff; cursor:pointer; color:var(--fg); }
button:hover { background:#eef1f4; }
:focus-visible { outline:3px solid #0969da; outline-offset:2px; }
a { color:#0550ae; }
.muted { color:var(--muted); }
.err { color:var(--bad); }
.layout { display:grid; gap:.75rem; grid-template-columns:minmax(0,1fr); }
.col-main, .col-side { display:flex; flex-direction:column; gap:.75rem; min-width:0; }
.section { min-width:0; }
/* One column below 1100 px: the sections in one flow, red and amber first (DOM order is per column). */
.card .timeline-link { margin:.1rem 0 0; font-size:.85em; line-height:1.2; }
.alert-body .timeline-link { font-size:.85em; }
.key.median, .key.p90 { border-radius:0; width:1.2em; height:0; vertical-align:middle; } .key.median { border-top:2px dashed #6e7781; } .key.p90 { border-top:2px dotted #9a6700; }
@media (max-width: 1099.98px) {
  .col-main, .col-side { display:contents; }
  #triage-section { order:1; } #alerts-section { order:2; } #queues-section { order:3; } #collectors-section { order:4; }
  #accounts-section { order:5; } #analytics-db { order:6; } #silences-section { order:7; } #own-cost-section { order:8; }
}
@media (min-width: 1100px) {
  .layout { grid-template-columns:minmax(0,1.15fr) minmax(0,1fr); }
  .verdict { grid-column:1 / -1; }
}
.verdict { display:flex; flex-wrap:wrap; align-items:center; gap:.25rem 1.5rem; background:#fff; border:1px solid var(--line); border-left:8px solid var(--line); border-radius:8px; padding:.6rem 1rem; }
.verdict.red { border-left-color:var(--bad); background:#fff5f5; } .verdict.amber { border-left-color:var(--warn); background:#fffbe6; }
.verdict.green { border-left-color:var(--ok); background:#f2fbf4; } .verdict.new { border-left-color:var(--new); }
#overall { font-size:1.35rem; font-weight:700; margin:0; }
#overall .badge { font-size:1.2rem; padding:.05rem .7rem; }
.facts { list-style:none; display:flex; flex-wrap:wrap; gap:.2rem 1.1rem; margin:0; padding:0; }
.facts li.red { color:var(--bad); } .facts li.amber { color:var(--warn); }
.facts strong { font-size:1.1rem; }
.grid { display:grid; grid-template-columns:repeat(auto-fill,minmax(290px,1fr)); gap:.6rem; }
.card { background:var(--card); border:1px solid var(--line); border-left:5px solid var(--line); border-radius:6px; padding:.5rem .65rem; min-width:0; }
.card.green { border-left-color:var(--ok); } .card.amber { border-left-color:var(--warn); } .card.red { border-left-color:var(--bad); } .card.new { border-left-color:var(--new); border-left-style:dashed; }
.badge { display:inline-block; font-weight:600; font-size:.85em; padding:0 .45rem; border-radius:999px; color:#fff; white-space:nowrap; }
.badge.green { background:var(--ok); } .badge.amber { background:var(--warn); } .badge.red { background:var(--bad); } .badge.new { background:var(--new); }
dl.kv { display:grid; grid-template-columns:max-content minmax(0,1fr); gap:0 .6rem; margin:.3rem 0; font-size:.9em; }
dl.kv dt { color:var(--muted); } dl.kv dd { margin:0; overflow-wrap:anywhere; }
.card ul { font-size:.9em; }
table { border-collapse:collapse; background:#fff; width:100%; font-size:.9em; }
th, td { text-align:left; padding:.25rem .5rem; border:1px solid var(--line); overflow-wrap:break-word; vertical-align:top; }

thead th { background:#f6f8fa; font-weight:600; }
tr.attention td { color:var(--bad); font-weight:600; background:#ffebe9; }
tr.unreadable td { color:var(--warn); font-weight:600; background:#fff8c5; }
.panel { background:#fff; border:1px solid var(--line); border-radius:6px; padding:.5rem .65rem; min-width:0; }
.panel > p:first-child { margin-top:0; } .panel > p:last-child { margin-bottom:0; }
@media (min-width: 700px) {
  #db dl.kv:not(.wide), #own-cost dl.kv:not(.wide) { grid-template-columns:max-content minmax(0,1fr) max-content minmax(0,1fr); }
}
#accounts h3 { display:block; font-size:.9rem; margin:.45rem 0 .1rem; }
#accounts ul { margin:.1rem 0; }
#accounts p { margin:.35rem 0 0; font-size:.9em; }
#own-cost p { margin:.25rem 0 0; font-size:.9em; }
.panel { overflow-x:auto; }
.qdetail { display:block; font-size:.85em; }
.problem { background:#ffebe9; color:#82071e; border:1px solid var(--bad); border-radius:6px; padding:.4rem .65rem; margin:0 0 .6rem; font-weight:600; }
.stale { opacity:.75; }
.linked { outline:3px solid #0969da; outline-offset:2px; }
svg.spark { display:block; margin-top:.25rem; }
.chart { height:100px; margin-top:.35rem; position:relative; }
.chart-note { font-size:.8em; margin:.1rem 0 0; }
.chart-fallback { font-size:.85em; margin:0; }
.key { display:inline-block; width:.7em; height:.7em; border-radius:50%; vertical-align:baseline; }
.key.ok { background:var(--ok); } .key.bad { background:var(--bad); }
.history { display:flex; align-items:flex-end; gap:.6rem; flex-wrap:wrap; }
.history p { margin:0; font-size:.85em; }
.cost-warning { background:#fff8c5; border:1px solid var(--warn); border-radius:6px; padding:.4rem .65rem; margin:.4rem 0 0; }
.triage { background:#fff; border:1px solid var(--line); border-left:5px solid var(--line); border-radius:6px; padding:.5rem .65rem; margin:0 0 .6rem; }
.triage.amber { border-left-color:var(--warn); } .triage.red { border-left-color:var(--bad); }
.triage ul.err { margin:.2rem 0; }
.triage p { margin:.3rem 0; }
.triage code { display:block; background:var(--bg); border:1px solid var(--line); border-radius:6px; padding:.25rem .45rem; overflow-wrap:anywhere; white-space:pre-wrap; font-size:.8em; }
#alerts ul, #silences ul { list-style:none; padding:0; margin:0; }
#alerts li { padding:.3rem .5rem; border-left:4px solid var(--line); margin:0 0 .3rem; background:#fff; display:flex; flex-wrap:wrap; gap:.2rem .75rem; align-items:center; }
#alerts li:last-child { margin-bottom:0; }
.alert-body { flex:1 1 15rem; min-width:0; overflow-wrap:anywhere; }
#alerts form.silence { flex:0 0 auto; width:11.5rem; }
#alerts form.silence input[type=text] { width:100%; }
#alerts form.silence label { flex:1 0 100%; }
.alert-line strong { color:inherit; }
.alert-summary { color:var(--fg); font-size:.9em; }
#alerts li.critical { border-left-color:var(--bad); background:#fff5f5; }
#alerts li.warning { border-left-color:var(--warn); background:#fffbe6; }
#alerts li.muted-alert { border-left-color:var(--new); border-left-style:dashed; }
#silences li { padding:.2rem 0; overflow-wrap:anywhere; }
form.silence { display:flex; flex-wrap:wrap; gap:.3rem; align-items:center; margin:0; flex:0 1 auto; }
form.silence input[type=text] { font:inherit; font-size:.85em; padding:.15rem .4rem; border:1px solid var(--line); border-radius:6px; width:9.5rem; max-width:100%; }
form.silence button { font-size:.9em; padding:.15rem .55rem; }
.sr-only { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
.skip { position:absolute; left:-999px; } .skip:focus { left:1rem; top:.5rem; background:#fff; padding:.25rem .5rem; }
form.login { background:#fff; border:1px solid var(--line); border-radius:6px; padding:1rem; max-width:420px; }
form.login label { display:block; font-weight:600; margin-bottom:.25rem; }
form.login input { font:inherit; width:100%; padding:.4rem; margin-bottom:.75rem; border:1px solid var(--line); border-radius:6px; }
@media (max-width: 600px) {
  main { padding:.5rem .5rem 1rem; }
  header { padding:.5rem; }
  #overall { font-size:1.15rem; }
  .grid { grid-template-columns:minmax(0,1fr); }
  .triage table, .triage tbody, .triage tr, .triage th, .triage td,
  #queues table, #queues tbody, #queues tr, #queues th, #queues td { display:block; width:100%; }
  .triage thead, #queues thead { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); }
  .triage tr, #queues tr { border:1px solid var(--line); border-radius:6px; margin-bottom:.4rem; }
  .triage th, .triage td, #queues th, #queues td { border:0; padding:.15rem .5rem; }
  .triage td::before, #queues td::before { content:attr(data-label) ": "; color:var(--muted); font-weight:400; }
}
`;
