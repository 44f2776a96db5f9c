/**
 * No package or app over 5,000 source lines, so each stays small enough to read whole. A
 * source line is a non-blank line of a non-test TypeScript file that is not only a comment; tests,
 * test support and contract suites are not counted (they are not what a reader of the package loads).
 */
import { readFileSync } from "node:fs";
import { unitOf } from "./import-graph/rules.ts";
import { sourceFiles } from "./import-graph/workspace-graph.ts";

export const MAX_SOURCE_LINES = 5000;

const NOT_SOURCE = /(\.test\.tsx?$|\/test-support\/|test-support\.ts$|\.contract\.ts$|\/contract\/)/;

/** Non-blank lines that are not only a comment (`//`, or a line of a block comment). */
export function sourceLineCount(text: string): number {
  let n = 0;
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t === "" || t.startsWith("//") || t.startsWith("/*") || t.startsWith("*")) continue;
    n += 1;
  }
  return n;
}

/** Source lines per package, app and infra, largest first. */
export function workspaceSizes(root: string): { dir: string; lines: number }[] {
  const sizes = new Map<string, number>();
  for (const file of sourceFiles(root)) {
    const unit = unitOf(file);
    if (unit.kind === "tooling" || NOT_SOURCE.test(file)) continue;
    sizes.set(
      unit.dir,
      (sizes.get(unit.dir) ?? 0) + sourceLineCount(readFileSync(`${root}/${file}`, "utf8")),
    );
  }
  return [...sizes].map(([dir, lines]) => ({ dir, lines })).sort((a, b) => b.lines - a.lines);
}
