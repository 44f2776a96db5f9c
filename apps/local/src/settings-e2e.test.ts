// Index settings end to end through HTTP on the in-process stack: customer PATCH → settings table →
// exporter → KV copy → search proxy → embedded engine (docs/search.md, "Compatibility: index settings").
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@relevance/settings";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "./env.ts";
import { type Stack, startStack } from "./stack.ts";
import { ADMIN_TOKEN } from "./test-support.ts";

const log: Logger = { info: () => {}, warn: () => {}, error: () => {} };
let stack: Stack;
let key: Record<string, string>;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

async function http(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(stack.url + path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: test responses are read loosely
  return { status: res.status, body: (await res.json()) as any };
}

const settings = (body: unknown) => http("PATCH", "/api/v1/indexes/rooms/settings", body, key);
const search = (q: string) => http("POST", "/api/v1/indexes/rooms/search", { q }, key);
const ids = (r: Awaited<ReturnType<typeof search>>) => (r.body.hits ?? []).map((h: { id: number }) => h.id);

/** Settings reach search through the exporter: the spec allows 2 s; in process it takes milliseconds. */
async function searchUntil(
  q: string,
  accept: (ids: number[], r: Awaited<ReturnType<typeof search>>) => boolean,
) {
  const deadline = Date.now() + 2000;
  for (;;) {
    const r = await search(q);
    if (accept(ids(r), r) || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const same = (expected: number[]) => (got: number[]) => JSON.stringify(got) === JSON.stringify(expected);

beforeAll(async () => {
  stack = await startStack(
    configFrom({
      PORT: "0",
      DATA_DIR: mkdtempSync(join(tmpdir(), "settings-e2e-")),
      ADMIN_TOKEN,
      MONITOR_TOKEN: "test-monitor-token-0123456789",
      DEMO: "0",
    }),
    log,
  );
  const created = await http("POST", "/api/v1/admin/accounts", { name: "Settings" }, admin);
  key = { "x-api-key": created.body.apiKey as string };
  await http("POST", "/api/v1/indexes", { name: "rooms" }, key);
  const upload = await http(
    "POST",
    "/api/v1/indexes/rooms/documents",
    [
      { id: 1, title: "Red lamp", description: "A blue chair", price: 10 },
      { id: 2, title: "Blue chair", description: "A red lamp", price: 20 },
      { id: 3, title: "Sofa cover", description: "Washable", price: 30 },
    ],
    key,
  );
  expect(upload.status).toBe(202);
});

afterAll(async () => {
  await stack.stop();
});

describe("index settings end to end (embedded stack)", () => {
  it('searchableAttributes ["*"], as GET answers by default, finds the documents', async () => {
    const got = await http("GET", "/api/v1/indexes/rooms/settings", undefined, key);
    expect(got.body.searchableAttributes).toEqual(["*"]);
    expect((await settings({ searchableAttributes: ["*"] })).status).toBe(200);
    const r = await searchUntil("lamp", (x) => x.length === 2);
    expect(ids(r).sort()).toEqual([1, 2]);
  });

  it("an ordered searchableAttributes list ranks a title match above a description match", async () => {
    await settings({ searchableAttributes: ["title", "description"] });
    expect(ids(await searchUntil("lamp", same([1, 2])))).toEqual([1, 2]);
    await settings({ searchableAttributes: ["description", "title"] });
    expect(ids(await searchUntil("lamp", same([2, 1])))).toEqual([2, 1]);
    await settings({ searchableAttributes: null });
  });

  it("synonyms: after the PATCH a search for the synonym finds the documents (within 2 s)", async () => {
    expect(ids(await search("couch"))).toEqual([]);
    expect((await settings({ synonyms: { couch: ["sofa"] } })).status).toBe(200);
    expect(ids(await searchUntil("couch", same([3])))).toEqual([3]);
    // One-way: "sofa" does not find what only "couch" would.
    expect(ids(await search("sofa"))).toEqual([3]);
  });

  it("stopWords change the results", async () => {
    // No document has both words: matchingStrategy last keeps the documents with the first word "a".
    expect(ids(await searchUntil("a sofa", (x) => x.length === 2)).sort()).toEqual([1, 2]);
    await settings({ stopWords: ["a"] });
    expect(ids(await searchUntil("a sofa", same([3])))).toEqual([3]);
    await settings({ stopWords: null });
  });

  it("displayedAttributes hides fields, the primary key included", async () => {
    await settings({ displayedAttributes: ["title", "price"] });
    const hidden = (_: number[], r: Awaited<ReturnType<typeof search>>) =>
      !("id" in (r.body.hits?.[0] ?? {}));
    const r = await searchUntil("sofa", hidden);
    expect(r.body.hits).toEqual([{ title: "Sofa cover", price: 30 }]);
    await settings({ displayedAttributes: null });
    const all = await searchUntil("sofa", (_, x) => !hidden(_, x));
    expect(all.body.hits).toEqual([{ id: 3, title: "Sofa cover", description: "Washable", price: 30 }]);
  });

  it("filterableAttributes: a filter on another attribute is a 422 naming it", async () => {
    await settings({ filterableAttributes: ["price"] });
    const filtered = (filter: string) => http("POST", "/api/v1/indexes/rooms/search", { q: "", filter }, key);
    const deadline = Date.now() + 2000;
    let ok = await filtered("price > 15");
    while (ok.status !== 200 && Date.now() < deadline) ok = await filtered("price > 15");
    expect(ids(ok)).toEqual([2, 3]);
    const refused = await filtered("title = lamp");
    expect(refused.status).toBe(422);
    expect(refused.body.error.details[0]).toMatchObject({
      path: "filter",
      message: expect.stringMatching(/`title` is not filterable/),
    });
  });

  it("settings the engine cannot honour are refused with 422 naming them, and not stored", async () => {
    const res = await settings({
      rankingRules: ["typo", "words"],
      synonyms: { tv: ["smart tv"] },
      typoTolerance: { disableOnAttributes: ["title"] },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      "rankingRules",
      "synonyms.tv[0]",
      "typoTolerance.disableOnAttributes",
    ]);
    const got = await http("GET", "/api/v1/indexes/rooms/settings", undefined, key);
    expect(got.body.synonyms).toEqual({ couch: ["sofa"] });
    expect(got.body.rankingRules).toEqual(["words", "typo", "proximity", "attribute", "sort", "exactness"]);
  });
});
