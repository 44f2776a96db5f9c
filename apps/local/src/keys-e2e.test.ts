// API keys and CORS through npm start's composition over real HTTP: the official `meilisearch`
// client manages keys (getKeys, createKey, getKey, updateKey, deleteKey), a search key searches and
// is refused every write, and a revoked key stops working once the exporter removed its copy.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { Meilisearch, MeilisearchApiError } from "meilisearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN } from "./test-support.ts";

const log: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const SHOP = "https://shop.example";
let stack: Stack;
let apiKey: string;
let searchApiKey: string;

beforeAll(async () => {
  stack = await startStack(
    configFrom({
      PORT: "0",
      DATA_DIR: mkdtempSync(join(tmpdir(), "keys-e2e-")),
      ADMIN_TOKEN,
      MONITOR_TOKEN: "test-monitor-token-0123456789",
      DEMO: "0",
    }),
    log,
  );
  const res = await fetch(`${stack.url}/api/v1/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Keys" }),
  });
  ({ apiKey, searchApiKey } = (await res.json()) as { apiKey: string; searchApiKey: string });
  const admin = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey });
  await admin.createIndex("products").waitTask({ interval: 10 });
  await admin
    .index("products")
    .addDocuments([{ id: "1", title: "Red chair" }])
    .waitTask({ interval: 10 });
});

afterAll(async () => {
  await stack.stop();
});

/** The exporter copies table changes to KV in the background: milliseconds in the embedded stack. */
async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const status = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: unknown) => (error instanceof MeilisearchApiError ? (error.response?.status ?? -1) : -2),
  );

describe("the official client's key calls against npm start", () => {
  it("getKeys, createKey, getKey, updateKey and deleteKey; the new key searches, then fails once deleted", async () => {
    const client = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey });
    const listed = await client.getKeys();
    expect(listed.total).toBe(2);
    expect(listed.results.map((k) => k.name).sort()).toEqual([
      "Default Admin API Key",
      "Default Search API Key",
    ]);

    const created = await client.createKey({
      name: "front",
      description: "the shop's pages",
      actions: ["search"],
      indexes: ["prod*"],
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    expect(created.key).toMatch(/^rk_/);
    expect((await client.getKey(created.uid)).name).toBe("front");
    expect((await client.updateKey(created.uid, { name: "renamed" })).name).toBe("renamed");

    const page = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey: created.key });
    const found = await until(
      () => status(page.index("products").search("chair")),
      (s) => s === 200,
    );
    expect(found).toBe(200);

    await client.deleteKey(created.uid);
    expect(
      await until(
        () => status(page.index("products").search("chair")),
        (s) => s === 401,
      ),
    ).toBe(401);
    expect(await status(client.getKey(created.uid))).toBe(404);
  });

  it("the default search key searches and gets 403 invalid_api_key on writes, nothing written", async () => {
    const page = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey: searchApiKey });
    expect((await page.index("products").search("chair")).hits).toHaveLength(1);
    const write = await page
      .index("products")
      .addDocuments([{ id: "2", title: "Blue sofa" }])
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(write).toBeInstanceOf(MeilisearchApiError);
    expect((write as MeilisearchApiError).response?.status).toBe(403);
    expect((write as MeilisearchApiError).cause?.code).toBe("invalid_api_key");
    expect(await status(page.deleteIndex("products"))).toBe(403);
    expect(await status(page.getKeys())).toBe(403);
    const admin = new Meilisearch({ host: `${stack.url}/api/v1`, apiKey });
    expect((await admin.index("products").getDocuments()).total).toBe(1);
  });
});

describe("CORS on Node (npm start)", () => {
  it("answers the preflight of search and of the customer API 204 with the origin, and the search answer carries it", async () => {
    for (const path of ["/api/v1/indexes/products/search", "/api/v1/indexes/products/documents"]) {
      const preflight = await fetch(`${stack.url}${path}`, {
        method: "OPTIONS",
        headers: {
          origin: SHOP,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, x-meilisearch-client",
        },
      });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe(SHOP);
      expect(preflight.headers.get("access-control-allow-headers")).toContain("x-meilisearch-client");
    }
    const res = await fetch(`${stack.url}/api/v1/indexes/products/search`, {
      method: "POST",
      headers: { origin: SHOP, authorization: `Bearer ${searchApiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ q: "chair" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(res.headers.get("vary")).toBe("Origin");
    const write = await fetch(`${stack.url}/api/v1/indexes/products/documents`, {
      method: "POST",
      headers: { origin: SHOP, "x-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify([{ id: "3" }]),
    });
    expect(write.status).toBe(403);
    expect(write.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(((await write.json()) as { error: { code: string } }).error.code).toBe("origin_not_allowed");
  });
});
