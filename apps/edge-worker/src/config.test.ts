// The Worker checks its own configuration: deployed without its KV binding, Meilisearch URL or key,
// every request answers 503 with a JSON error naming what is missing, never a stack trace.
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, startWorker, startWorkerWithoutKv } from "./test-support.ts";

let bundle: string;
const started: Miniflare[] = [];

beforeAll(async () => {
  bundle = await bundleWorker();
}, 60_000);

afterAll(async () => {
  for (const mf of started) await mf.dispose();
});

async function answer(mf: Miniflare) {
  started.push(mf);
  const res = await mf.dispatchFetch("http://worker/api/v1/indexes/products/search", {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "rk_any" },
    body: JSON.stringify({ q: "chair" }),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: JSON.parse(text) as { error: { code: string; details: { path: string }[] } },
  };
}

describe("a misconfigured Worker", () => {
  it("without MEILISEARCH_API_KEY answers 503 naming the secret", async () => {
    const { mf } = await startWorker(bundle, { MEILISEARCH_URL: "https://meili.example" });
    const r = await answer(mf);
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe("service_misconfigured");
    expect(r.body.error.details.map((d) => d.path)).toEqual(["MEILISEARCH_API_KEY"]);
    expect(r.text).not.toMatch(/at \w+ \(|\.ts:\d+/);
  });

  it("without its KV binding and Meilisearch URL answers 503 naming both", async () => {
    const r = await answer(await startWorkerWithoutKv(bundle, { MEILISEARCH_API_KEY: "key" }));
    expect(r.status).toBe(503);
    expect(r.body.error.details.map((d) => d.path)).toEqual(["KV", "MEILISEARCH_URL"]);
  });

  it("with a MEILISEARCH_URL that is not http(s) and a bad MODEL_CACHE_MB answers 503 naming them", async () => {
    const { mf } = await startWorker(bundle, {
      MEILISEARCH_URL: "ftp://meili.example",
      MEILISEARCH_API_KEY: "key",
      MODEL_CACHE_MB: "lots",
    });
    const r = await answer(mf);
    expect(r.status).toBe(503);
    expect(r.body.error.details.map((d) => d.path)).toEqual(["MEILISEARCH_URL", "MODEL_CACHE_MB"]);
  });
});
