// The management calls of Meilisearch's official client against the embedded stack (npm start's
// composition): documents one at a time, partial updates, deletions, fields, per-setting routes,
// the settings reset, GET /tasks and GET /stats.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { Meilisearch, type MeilisearchApiError } from "meilisearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN } from "./test-support.ts";

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
let stack: Stack;

async function newAccount(): Promise<{ account: string; apiKey: string }> {
  const res = await fetch(`${stack.url}/api/v1/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Management calls" }),
  });
  const body = (await res.json()) as { systemAccountId: string; apiKey: string };
  return { account: body.systemAccountId, apiKey: body.apiKey };
}

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "management-"));
  stack = await startStack(
    configFrom({
      PORT: "0",
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      MONITOR_TOKEN: "test-monitor-token-0123456789",
      DEMO: "0",
    }),
    quiet,
  );
});

afterAll(async () => {
  await stack.stop();
});

/**
 * The management calls of Meilisearch's official client on one new index: each answers as
 * Meilisearch would, or 422 naming what is not supported.
 */
async function officialClientCalls(client: Meilisearch, name: string, interval: number): Promise<void> {
  const status = (error: unknown) => (error as MeilisearchApiError).response?.status;
  await client.createIndex(name, { primaryKey: "sku" }).waitTask({ interval });
  const index = client.index(name);
  await index
    .addDocuments([
      { sku: "a", title: "Oak table", price: 10 },
      { sku: "b", title: "Pine shelf", price: 20 },
      { sku: "c", title: "Walnut sofa", price: 30 },
    ])
    .waitTask({ interval });

  expect(await index.getDocument("a")).toEqual({ sku: "a", title: "Oak table", price: 10 });
  expect(await index.getDocument("a", { fields: ["title"] })).toEqual({ title: "Oak table" });
  expect(status(await index.getDocument("nope").catch((e: unknown) => e))).toBe(404);
  const fields = await index.getDocuments({ fields: ["sku"], limit: 10 });
  expect(fields.results).toEqual([{ sku: "a" }, { sku: "b" }, { sku: "c" }]);

  const merged = await index.updateDocuments([{ sku: "a", price: 12 }]).waitTask({ interval });
  expect(merged.status).toBe("succeeded");
  expect(await index.getDocument("a")).toEqual({ sku: "a", title: "Oak table", price: 12 });

  expect((await index.deleteDocument("c").waitTask({ interval })).status).toBe("succeeded");
  expect((await index.deleteDocuments(["b", "missing"]).waitTask({ interval })).status).toBe("succeeded");
  expect((await index.getDocuments()).results.map((d) => d.sku)).toEqual(["a"]);
  // Filters on documents are not supported: 422, nothing deleted.
  expect(status(await index.deleteDocuments({ filter: "price > 1" }).catch((e: unknown) => e))).toBe(422);
  expect(status(await index.getDocuments({ filter: "price > 1" }).catch((e: unknown) => e))).toBe(422);
  expect((await index.getStats()).numberOfDocuments).toBe(1);

  expect((await index.updateFilterableAttributes(["price"]).waitTask({ interval })).status).toBe("succeeded");
  expect(await index.getFilterableAttributes()).toEqual(["price"]);
  expect((await index.updateSynonyms({ couch: ["sofa"] }).waitTask({ interval })).status).toBe("succeeded");
  expect(await index.getSynonyms()).toEqual({ couch: ["sofa"] });
  expect((await index.updateTypoTolerance({ enabled: false }).waitTask({ interval })).status).toBe(
    "succeeded",
  );
  expect((await index.getTypoTolerance())?.enabled).toBe(false);
  expect((await index.getSettings()).filterableAttributes).toEqual(["price"]);
  await index.resetFilterableAttributes().waitTask({ interval });
  expect(await index.getFilterableAttributes()).toEqual([]);
  expect(status(await index.getPagination().catch((e: unknown) => e))).toBe(422);
  expect(status(await index.updateDistinctAttribute("sku").catch((e: unknown) => e))).toBe(422);
  await index.resetSettings().waitTask({ interval });
  const reset = await index.getSettings();
  expect(reset.synonyms).toEqual({});
  expect(reset.typoTolerance?.enabled).toBe(true);

  const succeeded = await client.tasks.getTasks({ statuses: ["succeeded"], indexUids: [name], limit: 3 });
  expect(succeeded.results).toHaveLength(3);
  expect(succeeded.results.every((t) => t.status === "succeeded" && t.indexUid === name)).toBe(true);
  expect(succeeded.next).not.toBeNull();
  const deletions = await client.tasks.getTasks({ types: ["documentDeletion"], indexUids: [name] });
  expect(deletions.results.map((t) => t.details?.deletedDocuments)).toEqual([1, 1]);

  expect((await index.deleteAllDocuments().waitTask({ interval })).status).toBe("succeeded");
  expect((await index.getStats()).numberOfDocuments).toBe(0);
  const stats = await client.getStats();
  expect(stats.indexes[name]).toMatchObject({ numberOfDocuments: 0 });
  expect(typeof stats.lastUpdate).toBe("string");
}

describe("the official client's management calls on the embedded stack", () => {
  it("gets, merges and deletes documents, sets and resets settings one at a time, lists tasks and stats", async () => {
    const { apiKey } = await newAccount();
    const client = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey });
    await officialClientCalls(client, "furniture", 10);
  });

  it("shows an account only its own tasks and indexes", async () => {
    const first = await newAccount();
    const second = await newAccount();
    const mine = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey: first.apiKey });
    const theirs = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey: second.apiKey });
    await mine.createIndex("private", { primaryKey: "sku" }).waitTask({ interval: 10 });
    const listed = await theirs.tasks.getTasks();
    expect(listed.results.some((t) => t.indexUid === "private")).toBe(false);
    expect((await theirs.tasks.getTasks({ indexUids: ["private"] })).total).toBe(0);
    expect(Object.keys((await theirs.getStats()).indexes)).not.toContain("private");
    expect(Object.keys((await mine.getStats()).indexes)).toEqual(["private"]);
  });
});
