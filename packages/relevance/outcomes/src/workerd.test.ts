// The HTTP adapter and the ClickHouse store in real workerd (Miniflare): esbuild bundles a tiny
// Worker around them, as the Worker's queue consumer is bundled, and it writes to and reads from
// the chDB-backed ClickHouse HTTP double.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FEATURE_SET_V1 } from "@relevance/core";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newQueryUid } from "./query-uid.ts";
import {
  type ClickHouseHttpChdbDouble,
  startClickHouseHttpChdb,
} from "./test-support/clickhouse-http-chdb.ts";
import type { WorkerdRequest } from "./test-support/workerd-entry.ts";

const ENTRY = fileURLToPath(new URL("./test-support/workerd-entry.ts", import.meta.url));
const NODE_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'`]node:/;

describe("the ClickHouse outcome store over HTTP in real workerd", () => {
  const dir = mkdtempSync(join(tmpdir(), "outcomes-workerd-"));
  let double: ClickHouseHttpChdbDouble;
  let mf: Miniflare;
  let bundle = "";

  beforeAll(async () => {
    double = await startClickHouseHttpChdb(dir, { user: "w", password: "pw" });
    const result = await build({
      entryPoints: [ENTRY],
      bundle: true,
      format: "esm",
      platform: "neutral",
      write: false,
      logLevel: "silent",
    });
    bundle = result.outputFiles[0]?.text ?? "";
    mf = new Miniflare({ modules: true, script: bundle, compatibilityDate: "2025-01-01" });
    await mf.ready;
  }, 60_000);

  afterAll(async () => {
    await mf?.dispose();
    await double?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("bundles without node: imports, writes a search and reads its aggregate back", async () => {
    expect(bundle).not.toMatch(NODE_SPECIFIER);
    expect(bundle).not.toMatch(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']chdb/);
    const servedAt = Date.UTC(2026, 2, 10);
    const body: WorkerdRequest = {
      url: double.url,
      user: "w",
      password: "pw",
      database: "relevance_workerd",
      search: {
        queryUid: newQueryUid(servedAt),
        account: "acct",
        index: "products",
        indexUid: "products",
        modelId: "m1",
        score: 7.5,
        features: FEATURE_SET_V1.map((_, i) => i),
        query: "Red 'shoes'\\",
        queryKey: "red shoes",
        hitIds: ["1"],
        estimatedTotalHits: 1,
        latencyMs: 3,
        servedAt,
        userHash: null,
      },
    };
    const res = await mf.dispatchFetch("http://worker.test/", { method: "POST", body: JSON.stringify(body) });
    expect(await res.json()).toEqual({
      ok: true,
      queries: [
        { modelId: "m1", queryKey: "red shoes", impressions: 1, clicked: 0, converted: 0, meanScore: 7.5 },
      ],
    });
  });
});
