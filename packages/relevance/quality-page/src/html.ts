/** The quality page's document: the form, an empty report, the styles and the client script. */
export function qualityPageHtml(scriptPath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Search quality</title>
<style>${STYLES}</style>
</head>
<body>
<header><h1>Search quality</h1><p>Live quality of an index's relevance score, per model: what shoppers clicked and bought after each scored search. What each number means: docs/quality.md in the repository.</p></header>
<form id="query" autocomplete="off">
  <label>Admin token<input id="q-token" type="password" placeholder="ADMIN_TOKEN from npm start's banner" required></label>
  <label>Account<input id="q-account" placeholder="acct_…" required></label>
  <label>Index<input id="q-index" placeholder="products" required></label>
  <label>Since<input id="q-since" placeholder="7d"></label>
  <label>Model<input id="q-model" placeholder="every model"></label>
  <div class="buttons"><button type="submit">Show quality</button><button type="button" id="forget">Forget token</button></div>
</form>
<p id="status" role="status"></p>
<main id="report"></main>
<script src="${scriptPath}" defer></script>
</body>
</html>
`;
}

const STYLES = `
*{box-sizing:border-box}
body{margin:0;padding:16px;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f7f9}
header h1{margin:0 0 4px;font-size:22px}
header p{margin:0 0 12px;color:#57606a}
form{display:grid;grid-template-columns:repeat(auto-fit,minmax(160px,1fr));gap:10px;align-items:end;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:12px}
label{display:flex;flex-direction:column;font-size:13px;color:#57606a;gap:4px}
input{font:inherit;padding:6px 8px;border:1px solid #d0d7de;border-radius:6px;min-width:0}
.buttons{display:flex;gap:8px;flex-wrap:wrap}
button{font:inherit;padding:6px 12px;border-radius:6px;border:1px solid #1f6feb;background:#1f6feb;color:#fff;cursor:pointer}
button#forget{background:#fff;color:#1f6feb}
#status{min-height:1.4em;color:#57606a}
#status[data-kind=error]{color:#b42318;font-weight:600}
.scope{margin:4px 0;color:#57606a}
section.model,section.comparison,section.drift{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:12px 14px;margin:14px 0}
section.comparison{border-left:4px solid #d4570b}
section h2{margin:0 0 10px;font-size:18px;word-break:break-all}
section h3{margin:18px 0 6px;font-size:15px}
.tiles.pair{margin-top:10px}
.legend .key{display:inline-block;width:14px;height:4px;border-radius:2px;margin-left:8px}
.alert{color:#b42318;font-weight:600}
svg .threshold{stroke:#b42318;stroke-width:1.5;stroke-dasharray:5 4}
svg .threshold-label{fill:#b42318}
svg .bar{fill:#8c959f}
svg .bar.drifted{fill:#c33a2c}
svg .cell.drifted{stroke:#7f1d1d;stroke-width:1.5}
svg .muted{fill:#8c959f;font-style:italic}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:10px}
.tile{border:1px solid #d0d7de;border-radius:8px;padding:10px;background:#fbfcfd}
.tile-label{font-size:13px;color:#57606a}
.tile-value{font-size:24px;font-weight:650;font-variant-numeric:tabular-nums}
.tile-detail{font-size:12px;color:#57606a}
.tile.few{background:#fff8e6;border-color:#e8c36a}
.tile.few .tile-value{font-size:17px;color:#8a5a00}
.few{color:#8a5a00}
.note{font-size:13px;color:#57606a}
svg.chart{max-width:100%;height:auto;display:block}
svg .grid{stroke:#e6e8eb}
svg .tick,svg .axis-label{font-size:12px;fill:#57606a}
svg .whisker{stroke:#1f6feb;stroke-width:1.6}
svg .point{fill:#1f6feb}
.legend{font-size:12px;color:#57606a;display:flex;flex-wrap:wrap;gap:3px;align-items:center;margin:4px 0}
.swatch{display:inline-block;min-width:20px;text-align:center;border-radius:3px;color:#1f2328;padding:0 3px}
.table-wrap{overflow-x:auto;margin-top:8px}
table.calibration{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums;white-space:nowrap}
table.calibration th,table.calibration td{border-bottom:1px solid #e6e8eb;padding:4px 8px;text-align:right}
table.calibration th{color:#57606a;font-weight:600}
`;
