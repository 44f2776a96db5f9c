/**
 * Lambda code: each entry of src/lambda/ bundled once per process with esbuild (local, no Docker,
 * no network) into a temporary folder that becomes a CDK asset. Every stack and every environment
 * shares the same bundles; the asset hash is the bundle's content, so an unchanged handler is not
 * uploaded again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Code } from "aws-cdk-lib/aws-lambda";
import { buildSync } from "esbuild";

const LAMBDA_DIR = fileURLToPath(new URL("./lambda/", import.meta.url));

export const BUNDLES = {
  "search-exporter": "search-exporter.ts",
  "search-admin": "search-admin.ts",
  "search-customer": "search-customer.ts",
  "search-drift": "search-drift.ts",
  "monitor-status": "monitor-status.ts",
  "monitor-collector": "monitor-collector.ts",
  "monitor-ingest": "monitor-ingest.ts",
  "monitor-alerts": "monitor-alerts.ts",
  "monitor-cur-ingest": "monitor-cur-ingest.ts",
} as const;
export type BundleName = keyof typeof BUNDLES;

/** The handler setting of every bundle: file index.mjs, export `handler`. */
export const BUNDLE_HANDLER = "index.handler";

// CommonJS dependencies inside an ESM bundle still call require() for Node built-ins.
const REQUIRE_SHIM =
  'import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);';

let root: string | null = null;
const built = new Map<BundleName, string>();

function bundleRoot(): string {
  if (root === null) {
    const dir = mkdtempSync(join(tmpdir(), "svc-infra-bundles-"));
    root = dir;
    // Synthesis copies each asset into the cloud assembly, so the folder is not needed afterwards
    // (tests, whose workers may not exit normally, call removeBundles).
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return root;
}

/** Builds the bundle (once per process) and returns the folder that holds its index.mjs. */
export function bundleDir(name: BundleName): string {
  const done = built.get(name);
  if (done !== undefined) return done;
  const outdir = join(bundleRoot(), name);
  const result = buildSync({
    entryPoints: [join(LAMBDA_DIR, BUNDLES[name])],
    outfile: join(outdir, "index.mjs"),
    bundle: true,
    platform: "node",
    target: "node22",
    format: "esm",
    // Identifiers stay readable in stack traces of the function's logs.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
    banner: { js: REQUIRE_SHIM },
    logLevel: "silent",
  });
  if (result.errors.length > 0) {
    throw new Error(`bundling ${name} failed: ${result.errors.map((e) => e.text).join("; ")}`);
  }
  built.set(name, outdir);
  return outdir;
}

/** Removes the bundles of this process (synthesis has copied them into the cloud assembly). */
export function removeBundles(): void {
  if (root !== null) rmSync(root, { recursive: true, force: true });
  root = null;
  built.clear();
}

/** The bundle as Lambda code. */
export function bundleCode(name: BundleName): Code {
  return Code.fromAsset(bundleDir(name));
}
