// The test files of the repository by lane, for vitest.config.ts (see lanes.ts for the rule).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type Lane, laneOf, relativeImports } from "./lanes.ts";

const ROOTS = ["packages", "apps", "infra/src", "scripts", "training"];

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.name.endsWith(".test.ts")) out.push(path);
  }
}

/** Every test file under `root`, relative to it, grouped by lane. */
export function testFilesByLane(root: string): Record<Lane, string[]> {
  const files: string[] = [];
  for (const r of ROOTS) if (existsSync(join(root, r))) walk(join(root, r), files);
  const lanes: Record<Lane, string[]> = { unit: [], integration: [], e2e: [] };
  for (const abs of files.sort()) {
    const text = readFileSync(abs, "utf8");
    const imported = relativeImports(text).flatMap((spec) => {
      const target = resolve(dirname(abs), spec);
      return existsSync(target) ? [readFileSync(target, "utf8")] : [];
    });
    lanes[laneOf(abs, text, imported)].push(abs.slice(root.length + 1));
  }
  return lanes;
}
