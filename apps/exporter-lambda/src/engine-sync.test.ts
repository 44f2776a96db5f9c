// The settings stream applies each index's settings to the search engine (Meilisearch, here its
// LOCAL DOUBLE from @relevance/search/meilisearch/test-support): after the KV copy, through the
// IndexManager port, waiting for Meilisearch's task; a failure stops the batch so Lambda retries it.
import { MeilisearchIndexManager } from "@relevance/search/meilisearch";
import {
  MASTER_KEY,
  type MeilisearchDouble,
  startMeilisearchDouble,
} from "@relevance/search/meilisearch/test-support";
import type { Logger, SettingsTable, TableItem } from "@relevance/settings";
import { openDatabase, SqliteKv } from "@relevance/settings/sqlite";
import type { AttributeValue, DynamoDBRecord } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler, indexManagerFromEnv, settingsTableFromEnv } from "./handler.ts";

let meili: MeilisearchDouble;
beforeAll(async () => {
  meili = await startMeilisearchDouble();
});
afterAll(async () => {
  await meili?.close();
});

let sequence = 500;
function streamRecord(
  eventName: "INSERT" | "MODIFY" | "REMOVE",
  sk: string,
  images: { NewImage?: Record<string, AttributeValue>; OldImage?: Record<string, AttributeValue> },
): DynamoDBRecord {
  sequence++;
  return {
    eventID: `e${sequence}`,
    eventName,
    eventSource: "aws:dynamodb",
    awsRegion: "eu-west-1",
    dynamodb: {
      ApproximateCreationDateTime: 1_795_305_600,
      Keys: { pk: { S: "acct_1" }, sk: { S: sk } },
      ...images,
      SequenceNumber: String(sequence).padStart(24, "2"),
      StreamViewType: "NEW_AND_OLD_IMAGES",
    },
  };
}

const image = (index: string, extra: Record<string, AttributeValue>): Record<string, AttributeValue> => ({
  pk: { S: "acct_1" },
  sk: { S: `INDEX#${index}` },
  version: { N: "1" },
  type: { S: "index" },
  primary_key: { S: "id" },
  created_at: { S: "2026-11-21T00:00:00.000Z" },
  updated_at: { S: "2026-11-21T00:00:00.000Z" },
  ...extra,
});

function setup(url = meili.url, key = MASTER_KEY, table?: Pick<SettingsTable, "get">) {
  const lines: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
  const log: Logger = {
    info: (message, fields = {}) => lines.push({ level: "info", message, fields }),
    warn: (message, fields = {}) => lines.push({ level: "warn", message, fields }),
    error: (message, fields = {}) => lines.push({ level: "error", message, fields }),
  };
  const indexManager = new MeilisearchIndexManager({ url, apiKey: key, timeoutMs: 2000 });
  const handle = createHandler({
    kv: new SqliteKv(openDatabase(":memory:")),
    log,
    indexManager,
    engineTaskTimeoutMs: 2000,
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    now: () => 1_795_305_600_000 + 750,
    ...(table === undefined ? {} : { table }),
  });
  return { handle, indexManager, lines };
}

describe("index settings from the stream to the search engine", () => {
  it("applies an index record's whole settings (synonyms, stop words, searchable order) and reports the lag", async () => {
    const { handle, indexManager, lines } = setup();
    const insert = streamRecord("INSERT", "INDEX#shoes", {
      NewImage: image("shoes", {
        searchable_attributes: { L: [{ S: "title" }, { S: "tags" }] },
        synonyms: { M: { sneaker: { L: [{ S: "trainer" }] } } },
        stop_words: { L: [{ S: "the" }] },
      }),
    });
    expect(await handle({ Records: [insert] })).toEqual({ batchItemFailures: [] });
    expect(await indexManager.getSettings("acct_1-shoes")).toMatchObject({
      searchableAttributes: ["title", "tags"],
      synonyms: { sneaker: ["trainer"] },
      stopWords: ["the"],
    });
    expect(
      lines.find((l) => l.message === "index settings applied in the search engine")?.fields,
    ).toMatchObject({
      uid: "acct_1-shoes",
      lagMs: 750,
    });
  });

  it("is idempotent: the same change again leaves the same settings", async () => {
    const { handle, indexManager, lines } = setup();
    const r = streamRecord("INSERT", "INDEX#hats", {
      NewImage: image("hats", { synonyms: { M: { cap: { L: [{ S: "hat" }] } } } }),
    });
    const result = await handle({ Records: [r, r] });
    expect(result, JSON.stringify(lines.filter((l) => l.level === "error"))).toEqual({
      batchItemFailures: [],
    });
    expect((await indexManager.getSettings("acct_1-hats")).synonyms).toEqual({ cap: ["hat"] });
  });

  it("deletes the engine index when the record is removed, and ignores aliases", async () => {
    const { handle, indexManager } = setup();
    const socks = image("socks", {});
    await handle({ Records: [streamRecord("INSERT", "INDEX#socks", { NewImage: socks })] });
    expect(await indexManager.getIndex("acct_1-socks")).not.toBeNull();
    const alias = image("catalog", { type: { S: "alias" }, alias_of: { S: "socks" } });
    expect(
      await handle({
        Records: [
          streamRecord("INSERT", "INDEX#catalog", { NewImage: alias }),
          streamRecord("REMOVE", "INDEX#socks", { OldImage: socks }),
          streamRecord("REMOVE", "INDEX#never-created", { OldImage: image("never-created", {}) }),
        ],
      }),
    ).toEqual({ batchItemFailures: [] });
    expect(await indexManager.getIndex("acct_1-socks")).toBeNull();
    expect(await indexManager.getIndex("acct_1-catalog")).toBeNull();
  });

  it("stops the batch at a change the engine refuses, so Lambda retries it and then parks it", async () => {
    const { handle, lines } = setup(meili.url, "a-wrong-key");
    const first = streamRecord("INSERT", "INDEX#boots", { NewImage: image("boots", {}) });
    const second = streamRecord("INSERT", "INDEX#belts", { NewImage: image("belts", {}) });
    expect(await handle({ Records: [first, second] })).toEqual({
      batchItemFailures: [{ itemIdentifier: first.dynamodb?.SequenceNumber }],
    });
    expect(lines.some((l) => l.level === "error" && /not applied to the search engine/.test(l.message))).toBe(
      true,
    );
  });

  it("with the table, writes a version the engine lacks once, and never a version the table has replaced", async () => {
    // The table's current record of each key, as the settings table answers `get`.
    const current = new Map<string, TableItem>();
    const table = { get: async (pk: string, sk: string) => current.get(`${pk}|${sk}`) ?? null };
    const { handle, indexManager, lines } = setup(meili.url, MASTER_KEY, table);
    const writes = () =>
      meili.indexRequests.filter((r) => r.method === "PATCH" && r.path === "/indexes/acct_1-mats/settings")
        .length;
    const item = (version: number, synonyms: Record<string, string[]>): TableItem => ({
      pk: "acct_1",
      sk: "INDEX#mats",
      version,
      attributes: { type: "index", primary_key: "id", synonyms },
    });
    const record = (version: number, word: string) =>
      streamRecord("MODIFY", "INDEX#mats", {
        NewImage: image("mats", {
          version: { N: String(version) },
          synonyms: { M: { mat: { L: [{ S: word }] } } },
        }),
        OldImage: image("mats", { version: { N: String(version - 1) } }),
      });

    // A direct table edit: the engine does not have it yet, so the stream writes it.
    current.set("acct_1|INDEX#mats", item(1, { mat: ["rug"] }));
    expect(await handle({ Records: [record(1, "rug")] })).toEqual({ batchItemFailures: [] });
    expect((await indexManager.getSettings("acct_1-mats")).synonyms).toEqual({ mat: ["rug"] });
    expect(writes()).toBe(1);

    // Version 3 is in the table and the engine (the customer API wrote both); version 2 arrives late.
    current.set("acct_1|INDEX#mats", item(3, { mat: ["carpet"] }));
    await indexManager.waitForTask(
      (await indexManager.updateSettings("acct_1-mats", { synonyms: { mat: ["carpet"] } })).taskUid,
    );
    expect(await handle({ Records: [record(2, "doormat"), record(3, "carpet")] })).toEqual({
      batchItemFailures: [],
    });
    expect((await indexManager.getSettings("acct_1-mats")).synonyms).toEqual({ mat: ["carpet"] });
    expect(writes()).toBe(2);
    expect(
      lines
        .filter((l) => l.message.endsWith("not written to the search engine"))
        .map((l) => [l.message, l.fields.version, l.fields.currentVersion]),
    ).toEqual([
      ["index settings superseded: not written to the search engine", 2, 3],
      ["index settings unchanged: not written to the search engine", 3, undefined],
    ]);
  });

  it("reads the table for its version check when SETTINGS_TABLE_NAME names it", () => {
    expect(settingsTableFromEnv({})).toBeNull();
    expect(settingsTableFromEnv({ SETTINGS_TABLE_NAME: "dev-EcomIndexSettingsTable" })).not.toBeNull();
  });

  it("is off without MEILISEARCH_URL, and refuses a URL without its key", () => {
    expect(indexManagerFromEnv({})).toBeNull();
    expect(() => indexManagerFromEnv({ MEILISEARCH_URL: "https://meili.example.net" })).toThrow(
      /MEILISEARCH_API_KEY/,
    );
    expect(
      indexManagerFromEnv({ MEILISEARCH_URL: "https://meili.example.net", MEILISEARCH_API_KEY: "k" }),
    ).not.toBeNull();
  });
});
