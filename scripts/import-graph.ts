/**
 * The import-graph check (`npm run check:imports`; `npm test` runs it through
 * scripts/import-graph.test.ts): no import cycle, no relative import across workspaces, no upward
 * import (see scripts/import-graph/rules.ts). Violations that another change removes are named in
 * scripts/import-graph.allow.json; the check fails on any other violation, and on an allowlist
 * entry that no longer matches one (so the list only shrinks).
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type AllowEntry,
  describeViolation,
  findViolations,
  judge,
  type Verdict,
} from "./import-graph/rules.ts";
import { buildEdges } from "./import-graph/workspace-graph.ts";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const ALLOWLIST = join(REPO_ROOT, "scripts", "import-graph.allow.json");

export function readAllowlist(path: string): AllowEntry[] {
  return (JSON.parse(readFileSync(path, "utf8")) as { allow: AllowEntry[] }).allow;
}

export function checkImports(root = REPO_ROOT, allowlist = ALLOWLIST): Verdict {
  return judge(findViolations(buildEdges(root)), readAllowlist(allowlist));
}

export function report(verdict: Verdict): string {
  const lines: string[] = [];
  if (verdict.failures.length > 0) {
    lines.push(`${verdict.failures.length} import rule violation(s):`);
    for (const v of verdict.failures) lines.push(`  ${describeViolation(v)}`);
  }
  if (verdict.stale.length > 0) {
    lines.push(
      `${verdict.stale.length} allowlist entr(ies) match no violation any more; remove them from ${relative(REPO_ROOT, ALLOWLIST)}:`,
    );
    for (const e of verdict.stale) lines.push(`  ${e.rule}: ${e.file} imports "${e.import}"`);
  }
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const verdict = checkImports();
  const text = report(verdict);
  if (text) console.error(text);
  else console.log(`import graph: no violation beyond the ${readAllowlist(ALLOWLIST).length} allowed`);
  process.exitCode = text ? 1 : 0;
}
