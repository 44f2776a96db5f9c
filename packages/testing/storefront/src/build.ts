import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ENTRY = fileURLToPath(new URL("./page/storefront.ts", import.meta.url));
const HTML = fileURLToPath(new URL("./page/index.html", import.meta.url));

export interface StorefrontFiles {
  html: string;
  script: string;
}

let built: Promise<StorefrontFiles> | null = null;

/** The page and its script bundled for the browser, once per process (esbuild, about a second). */
export function buildStorefront(): Promise<StorefrontFiles> {
  built ??= build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  }).then((result) => ({
    html: readFileSync(HTML, "utf8"),
    script: result.outputFiles[0]?.text ?? "",
  }));
  return built;
}
