// The Worker as tests run it: the esbuild bundle of worker.ts inside real workerd (Miniflare) with a
// real KV namespace. Meilisearch is not available here; tests point MEILISEARCH_URL at the local
// double from @relevance/search/meilisearch/test-support.
import { fileURLToPath } from "node:url";
import { type KvNamespaceBinding, WorkersKv } from "@relevance/settings/workers-kv";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const ENTRY = fileURLToPath(new URL("./worker.ts", import.meta.url));

/** The Worker bundle exactly as wrangler would ship it (ESM, neutral platform, worker conditions). */
export async function bundleWorker(): Promise<string> {
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["worker", "browser"],
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0]?.text ?? "";
}

/** One workerd instance running `bundle` with a KV namespace bound as `KV` and the given variables. */
export async function startWorker(
  bundle: string,
  bindings: Record<string, string>,
): Promise<{ mf: Miniflare; kv: WorkersKv }> {
  const mf = new Miniflare({
    modules: true,
    script: bundle,
    compatibilityDate: "2025-01-01",
    kvNamespaces: ["KV"],
    bindings,
  });
  const kv = new WorkersKv((await mf.getKVNamespace("KV")) as unknown as KvNamespaceBinding);
  return { mf, kv };
}

/** The same Worker deployed without its KV namespace binding (a misconfiguration). */
export function startWorkerWithoutKv(bundle: string, bindings: Record<string, string>): Miniflare {
  return new Miniflare({ modules: true, script: bundle, compatibilityDate: "2025-01-01", bindings });
}
