/**
 * The repository's import graph: every TypeScript file tsconfig.json type-checks, each import
 * resolved to a file. Relative specifiers resolve by path; a workspace package's name resolves
 * through its package.json `exports`, so an import by name still counts for cycles and layering.
 * Imports of anything else (node:*, npm packages) are not edges.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { Edge } from "./rules.ts";
import { scanImports } from "./scan-imports.ts";

/** The folders tsconfig.json includes (its globs are all under these). */
const SOURCE_ROOTS = ["packages/*/*/src", "apps/*/src", "infra/src", "scripts", "training"];
const WORKSPACES = ["packages/*/*", "apps/*", "infra"];

interface WorkspacePackage {
  dir: string;
  exports: Record<string, string>;
}

// The folders a pattern names, each star one folder level.
function expand(root: string, pattern: string): string[] {
  const parts = pattern.split("/");
  const star = parts.indexOf("*");
  if (star < 0) return existsSync(join(root, pattern)) ? [pattern] : [];
  const parent = parts.slice(0, star).join("/");
  const base = join(root, parent);
  if (!existsSync(base)) return [];
  return readdirSync(base, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== "node_modules")
    .flatMap((d) => expand(root, [...parts.slice(0, star), d.name, ...parts.slice(star + 1)].join("/")));
}

function walk(root: string, dir: string, out: string[]): void {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(root, path, out);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
}

export function sourceFiles(root: string): string[] {
  const files: string[] = [];
  for (const dir of SOURCE_ROOTS.flatMap((pattern) => expand(root, pattern))) walk(root, dir, files);
  return files.sort();
}

/** A conditional export names its file under one of these (this repository uses plain strings). */
function exportTarget(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") {
    const conditions = value as Record<string, unknown>;
    return exportTarget(conditions.import ?? conditions.default ?? conditions.types);
  }
  return undefined;
}

function workspacePackages(root: string): Map<string, WorkspacePackage> {
  const byName = new Map<string, WorkspacePackage>();
  for (const dir of WORKSPACES.flatMap((pattern) => expand(root, pattern))) {
    const manifest = join(root, dir, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; exports?: unknown };
    if (!pkg.name) continue;
    const exports: Record<string, string> = {};
    const raw = typeof pkg.exports === "string" ? { ".": pkg.exports } : (pkg.exports ?? {});
    for (const [subpath, value] of Object.entries(raw as Record<string, unknown>)) {
      const target = exportTarget(value);
      if (target) exports[subpath] = join(dir, target).split(sep).join("/");
    }
    byName.set(pkg.name, { dir, exports });
  }
  return byName;
}

function packageSubpath(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split("/");
  const length = specifier.startsWith("@") ? 2 : 1;
  const rest = parts.slice(length);
  return { name: parts.slice(0, length).join("/"), subpath: rest.length > 0 ? `./${rest.join("/")}` : "." };
}

/** The file a relative specifier names: as written, or with .ts for .js (TypeScript's rewrite). */
function resolveRelative(root: string, from: string, specifier: string): string | undefined {
  const base = resolve(root, dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.js$/, ".tsx"),
    `${base}.ts`,
    `${base}.tsx`,
    join(base, "index.ts"),
  ];
  const found = candidates.find((candidate) => existsSync(candidate) && !candidate.endsWith(sep));
  return found ? relative(root, found).split(sep).join("/") : undefined;
}

export function buildEdges(root: string): Edge[] {
  const packages = workspacePackages(root);
  const edges: Edge[] = [];
  for (const file of sourceFiles(root)) {
    for (const ref of scanImports(readFileSync(join(root, file), "utf8"))) {
      let to: string | undefined;
      if (ref.specifier.startsWith("./") || ref.specifier.startsWith("../")) {
        to = resolveRelative(root, file, ref.specifier);
      } else {
        const { name, subpath } = packageSubpath(ref.specifier);
        to = packages.get(name)?.exports[subpath];
      }
      if (to) edges.push({ from: file, specifier: ref.specifier, to, line: ref.line });
    }
  }
  return edges;
}
