// On npm start's stack (in process): a scored search answers a queryUid, the click a page sends for
// it with the official client's request shape is stored under the key's account and attributed to
// that search, and the search itself was recorded as served.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildArtifact, importXgboost, modelKey } from "@relevance/core";
import { QUERY_UID } from "@relevance/outcomes";
import { Meilisearch } from "meilisearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN } from "./test-support.ts";

const FIXTURE = fileURLToPath(
  new URL("../../../packages/relevance/core/fixtures/xgboost/binary_logistic.model.json", import.meta.url),
);
const silent = { info() {}, warn() {}, error() {} };
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

let stack: Stack;
let dataDir: string;
let account: string;
let searchKey: string;

async function http(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(stack.url + path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as Record<string, unknown> };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "outcomes-e2e-"));
  stack = await startStack(
    configFrom({
      PORT: "0",
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      MONITOR_TOKEN: "test-monitor-token-0123456789",
      DEMO: "0",
    }),
    silent,
  );
  const created = await http("POST", "/api/v1/admin/accounts", { name: "Outcomes" }, admin);
  account = created.body.systemAccountId as string;
  searchKey = created.body.searchApiKey as string;
  const key = { "x-api-key": created.body.apiKey as string };
  await http("POST", "/api/v1/indexes", { name: "products" }, key);
  await http(
    "POST",
    "/api/v1/indexes/products/documents",
    [
      { id: 1, title: "Red running shoes", tags: ["shoes", "running"] },
      { id: 2, title: "Red leather shoes", tags: ["shoes"] },
    ],
    key,
  );
  const draft = importXgboost(JSON.parse(readFileSync(FIXTURE, "utf8")));
  if (!draft.ok) throw new Error("fixture");
  const modelId = `${account}:products:v1`;
  const built = buildArtifact(draft.value, { modelId, titleField: "title", tagsField: "tags" });
  if (!built.ok) throw new Error("fixture");
  await stack.kv.put(modelKey(modelId), built.value.text);
  await http(
    "PUT",
    `/api/v1/admin/accounts/${account}/indexes/products/relevance-trigger-config`,
    { relevanceTriggerConfig: { modelId, titleField: "title", tagsField: "tags" } },
    admin,
  );
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("outcomes on npm start", () => {
  it("answers a queryUid for a scored search, stores the click sent for it, and attributes it", async () => {
    const client = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey: searchKey });
    let res: {
      metadata?: { queryUid: string; indexUid: string };
      relevanceScore?: number;
      hits: { id: number }[];
    };
    // The trigger config reaches the search through the exporter (milliseconds).
    for (let i = 0; ; i++) {
      res = (await client.index("products").search("red shoes", { relevanceScore: true } as never, {
        headers: { "X-MS-USER-ID": "shopper-1" },
      })) as never;
      if (res.relevanceScore !== undefined || i > 200) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(res.metadata?.queryUid).toMatch(QUERY_UID);
    const uid = res.metadata?.queryUid as string;

    const click = await fetch(`${stack.url}/api/v1/events`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Bearer ${searchKey}`,
        "X-Meilisearch-Client": "Meilisearch JavaScript",
        "X-MS-USER-ID": "shopper-1",
      },
      body: JSON.stringify({
        eventType: "click",
        eventName: "Search Result Clicked",
        indexUid: res.metadata?.indexUid,
        queryUid: uid,
        objectId: String(res.hits[0]?.id),
        position: 0,
      }),
    });
    expect(click.status).toBe(201);

    await stack.recorder?.flush();
    expect(stack.recorder?.stats()).toMatchObject({ recorded: 1, sinkFailed: 0 });
    const quality = await stack.outcomes.quality({
      account,
      index: "products",
      since: 0,
      until: Date.now() + 60_000,
      minImpressions: 1,
      maxQueries: 10,
    });
    expect(quality.events).toEqual({ attributed: 1, unattributed: 0, duplicates: 0 });
    expect(quality.queries).toEqual([
      expect.objectContaining({ queryKey: "red shoes", impressions: 1, clicked: 1 }),
    ]);
  }, 60_000);
});
