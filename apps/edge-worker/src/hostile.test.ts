// The hostile-input suite in the Worker (docs/limits.md): every catalogue case the Worker serves
// (search and the unknown-route answers), sent to the bundle inside real workerd, each checked for
// its status and JSON error and followed by a normal search that must still answer. Meilisearch is
// the local double of @relevance/search/meilisearch/test-support.

import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "@relevance/search/meilisearch/test-support";
import { putApiKey, putSettings } from "@relevance/search/test-support";
import { type Answer, HOSTILE_CASES, type HostileContext, judge, send } from "@testing/hostile";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, startWorker } from "./test-support.ts";

const ctx: HostileContext = {
  apiKey: "rk_worker_hostile_key_0123456789",
  adminToken: "unused-in-the-worker",
  monitorToken: "unused-in-the-worker",
  account: "acct_0123456789ab",
  index: "products",
};

let mf: Miniflare;
let meili: MeilisearchDouble;

beforeAll(async () => {
  meili = await startMeilisearchDouble();
  const started = await startWorker(await bundleWorker(), {
    MEILISEARCH_URL: meili.url,
    MEILISEARCH_API_KEY: MASTER_KEY,
    KV_TIMEOUT_MS: "1000",
  });
  mf = started.mf;
  await putApiKey(started.kv, ctx.apiKey, ctx.account);
  await putSettings(started.kv, ctx.account, ctx.index, {});
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await meili?.close();
});

const dispatch = (url: string, init: RequestInit) =>
  mf.dispatchFetch(url, init as never) as unknown as Promise<Response>;

async function normalSearch(): Promise<number> {
  const res = await dispatch(`http://worker/api/v1/indexes/${ctx.index}/search`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": ctx.apiKey },
    body: JSON.stringify({ q: "red shoes", limit: 3 }),
  });
  const body = (await res.json()) as { hits?: unknown[] };
  return res.status === 200 && Array.isArray(body.hits) ? body.hits.length : -res.status;
}

describe("hostile requests against the Worker in workerd", () => {
  it("starts from a normal search", async () => {
    expect(await normalSearch()).toBe(3);
  });

  for (const c of HOSTILE_CASES.filter((x) => x.surfaces.includes("worker"))) {
    it(`${c.id}: ${c.proves}`, async () => {
      let answer: Answer | undefined;
      for (const req of c.requests(ctx)) answer = await send(dispatch, "http://worker", req);
      expect(judge(c, answer as Answer)).toBeNull();
      expect(await normalSearch()).toBe(3);
    });
  }
});
