import type { Kv, Logger } from "@relevance/settings";
import { openDatabase, SqliteKv } from "@relevance/settings/sqlite";
import { jsonLogger } from "@shared/kernel/json-logger";
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { createHandler, kvFromEnv } from "./handler.ts";

// Stream records written as AWS documents them (Lambda event for a DynamoDB stream,
// StreamViewType NEW_AND_OLD_IMAGES, images in AttributeValue JSON).
const ARN =
  "arn:aws:dynamodb:eu-west-1:123456789012:table/prod-EcomIndexSettingsTable/stream/2026-11-21T00:00:00.000";

const insertProducts: DynamoDBRecord = {
  eventID: "c4ca4238a0b923820dcc509a6f75849b",
  eventName: "INSERT",
  eventVersion: "1.1",
  eventSource: "aws:dynamodb",
  awsRegion: "eu-west-1",
  dynamodb: {
    ApproximateCreationDateTime: 1795305600,
    Keys: { pk: { S: "acct_1" }, sk: { S: "INDEX#products" } },
    NewImage: {
      pk: { S: "acct_1" },
      sk: { S: "INDEX#products" },
      version: { N: "1" },
      type: { S: "index" },
      primary_key: { S: "id" },
      searchable_attributes: { L: [{ S: "title" }, { S: "tags" }] },
      synonyms: { M: { tv: { L: [{ S: "television" }] } } },
      relevance_trigger_config: {
        M: {
          model_id: { S: "acct_1:products:v1" },
          title_field: { S: "title" },
          tags_field: { NULL: true },
        },
      },
      created_at: { S: "2026-11-21T00:00:00.000Z" },
      updated_at: { S: "2026-11-21T00:00:00.000Z" },
    },
    SequenceNumber: "111000000000000000000001",
    SizeBytes: 312,
    StreamViewType: "NEW_AND_OLD_IMAGES",
  },
  eventSourceARN: ARN,
};

const modifyProducts: DynamoDBRecord = {
  eventID: "c81e728d9d4c2f636f067f89cc14862c",
  eventName: "MODIFY",
  eventVersion: "1.1",
  eventSource: "aws:dynamodb",
  awsRegion: "eu-west-1",
  dynamodb: {
    ApproximateCreationDateTime: 1795305660,
    Keys: { pk: { S: "acct_1" }, sk: { S: "INDEX#products" } },
    NewImage: {
      pk: { S: "acct_1" },
      sk: { S: "INDEX#products" },
      version: { N: "2" },
      type: { S: "index" },
      primary_key: { S: "id" },
      relevance_trigger_config: {
        M: {
          model_id: { S: "acct_1:products:v2" },
          title_field: { NULL: true },
          tags_field: { S: "tags" },
        },
      },
      created_at: { S: "2026-11-21T00:00:00.000Z" },
      updated_at: { S: "2026-11-21T00:01:00.000Z" },
    },
    OldImage: insertProducts.dynamodb?.NewImage,
    SequenceNumber: "111000000000000000000002",
    SizeBytes: 540,
    StreamViewType: "NEW_AND_OLD_IMAGES",
  },
  eventSourceARN: ARN,
};

const removeProducts: DynamoDBRecord = {
  eventID: "eccbc87e4b5ce2fe28308fd9f2a7baf3",
  eventName: "REMOVE",
  eventVersion: "1.1",
  eventSource: "aws:dynamodb",
  awsRegion: "eu-west-1",
  dynamodb: {
    ApproximateCreationDateTime: 1795305720,
    Keys: { pk: { S: "acct_1" }, sk: { S: "INDEX#products" } },
    OldImage: modifyProducts.dynamodb?.NewImage,
    SequenceNumber: "111000000000000000000003",
    SizeBytes: 260,
    StreamViewType: "NEW_AND_OLD_IMAGES",
  },
  eventSourceARN: ARN,
};

let nextSequence = 200;

/** A further record of the same shape, for batches of many items. */
function record(
  eventName: "INSERT" | "MODIFY" | "REMOVE",
  pk: string,
  sk: string,
  images: { NewImage?: Record<string, AttributeValue>; OldImage?: Record<string, AttributeValue> },
): DynamoDBRecord {
  const sequence = String(++nextSequence).padStart(24, "1");
  return {
    eventID: `event-${sequence}`,
    eventName,
    eventVersion: "1.1",
    eventSource: "aws:dynamodb",
    awsRegion: "eu-west-1",
    dynamodb: {
      ApproximateCreationDateTime: 1795305600 + nextSequence,
      Keys: { pk: { S: pk }, sk: { S: sk } },
      ...images,
      SequenceNumber: sequence,
      SizeBytes: 100,
      StreamViewType: "NEW_AND_OLD_IMAGES",
    },
    eventSourceARN: ARN,
  };
}

const indexImage = (pk: string, index: string, version: number): Record<string, AttributeValue> => ({
  pk: { S: pk },
  sk: { S: `INDEX#${index}` },
  version: { N: String(version) },
  type: { S: "index" },
  created_at: { S: "2026-11-21T00:00:00.000Z" },
  updated_at: { S: "2026-11-21T00:00:00.000Z" },
});

const insertIndex = (pk: string, index: string) =>
  record("INSERT", pk, `INDEX#${index}`, { NewImage: indexImage(pk, index, 1) });

const event = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

interface Line {
  level: "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown>;
}

function captureLog(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at =
    (level: Line["level"]) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, message, fields });
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}

const FAST = { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 };

function setup(kv: Kv = new SqliteKv(openDatabase(":memory:"))) {
  const log = captureLog();
  return { kv, log, handle: createHandler({ kv, log, retry: FAST }) };
}

async function kvJson(kv: Kv, key: string): Promise<unknown> {
  const value = await kv.get(key);
  return value === null ? null : JSON.parse(value);
}

async function snapshot(kv: Kv): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const key of await kv.list("")) out[key] = await kv.get(key);
  return out;
}

/** Our real SqliteKv with one injected fault: put of `failingKey` throws while `failing` is set. */
class SqliteKvWithFailingPut implements Kv {
  failing = true;
  puts = 0;
  private readonly inner: SqliteKv;
  private readonly failingKey: string;

  constructor(inner: SqliteKv, failingKey: string) {
    this.inner = inner;
    this.failingKey = failingKey;
  }

  get(key: string) {
    return this.inner.get(key);
  }
  async put(key: string, value: string) {
    if (this.failing && key === this.failingKey) {
      this.puts++;
      throw new Error(`injected fault: KV put of ${key} refused`);
    }
    return this.inner.put(key, value);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
  list(prefix: string) {
    return this.inner.list(prefix);
  }
}

describe("ecom_settings_exporter handler (DynamoDB Streams event → SqliteKv)", () => {
  it("INSERT copies the settings JSON, NULLs of relevance_trigger_config included, to <pk>-<index>", async () => {
    const { kv, log, handle } = setup();
    expect(await handle(event(insertProducts))).toEqual({ batchItemFailures: [] });
    expect(await kvJson(kv, "acct_1-products")).toEqual({
      system_account_id: "acct_1",
      index_name: "products",
      version: 1,
      type: "index",
      primary_key: "id",
      searchable_attributes: ["title", "tags"],
      synonyms: { tv: ["television"] },
      relevance_trigger_config: { model_id: "acct_1:products:v1", title_field: "title", tags_field: null },
      created_at: "2026-11-21T00:00:00.000Z",
      updated_at: "2026-11-21T00:00:00.000Z",
    });
    expect(log.lines.filter((l) => l.level === "error")).toEqual([]);
    expect(log.lines).toContainEqual({
      level: "info",
      message: "settings copy written",
      fields: {
        pk: "acct_1",
        sk: "INDEX#products",
        sequence: "111000000000000000000001",
        key: "acct_1-products",
        kind: "insert",
        version: 1,
      },
    });
  });

  it("MODIFY replaces the copy (attributes the new image lacks are gone)", async () => {
    const { kv, handle } = setup();
    await handle(event(insertProducts));
    expect(await handle(event(modifyProducts))).toEqual({ batchItemFailures: [] });
    const copy = (await kvJson(kv, "acct_1-products")) as Record<string, unknown>;
    expect(copy.version).toBe(2);
    expect(copy.relevance_trigger_config).toEqual({
      model_id: "acct_1:products:v2",
      title_field: null,
      tags_field: "tags",
    });
    expect(copy).not.toHaveProperty("searchable_attributes");
    expect(copy).not.toHaveProperty("synonyms");
  });

  it("REMOVE deletes the copy", async () => {
    const { kv, handle } = setup();
    await handle(event(insertProducts, modifyProducts));
    expect(await kv.get("acct_1-products")).not.toBeNull();
    expect(await handle(event(removeProducts))).toEqual({ batchItemFailures: [] });
    expect(await kv.get("acct_1-products")).toBeNull();
    expect(await kv.list("")).toEqual([]);
  });

  it("ignores accounts, and copies API keys under apikey:<sha256> with their account and grant (a key without actions: everything)", async () => {
    const { kv, log, handle } = setup();
    const account = record("INSERT", "acct_1", "ACCOUNT", {
      NewImage: {
        pk: { S: "acct_1" },
        sk: { S: "ACCOUNT" },
        version: { N: "1" },
        name: { S: "Shop" },
        created_at: { S: "2026-11-21T00:00:00.000Z" },
      },
    });
    const apiKey = record("INSERT", "APIKEY#9f86d081884c7d65", "APIKEY", {
      NewImage: {
        pk: { S: "APIKEY#9f86d081884c7d65" },
        sk: { S: "APIKEY" },
        version: { N: "1" },
        system_account_id: { S: "acct_1" },
      },
    });
    const removeKey = record("REMOVE", "APIKEY#9f86d081884c7d65", "APIKEY", {
      OldImage: apiKey.dynamodb?.NewImage ?? {},
    });
    expect(await handle(event(account, apiKey))).toEqual({ batchItemFailures: [] });
    expect(await kv.list("")).toEqual(["apikey:9f86d081884c7d65"]);
    expect(await kvJson(kv, "apikey:9f86d081884c7d65")).toEqual({
      system_account_id: "acct_1",
      uid: null,
      actions: ["*"],
      indexes: ["*"],
      expires_at: null,
      version: 1,
    });
    expect(await handle(event(removeKey))).toEqual({ batchItemFailures: [] });
    expect(await kv.list("")).toEqual([]);
    expect(log.lines.filter((l) => l.level !== "info")).toEqual([]);
  });

  it("copies a scoped key's actions, indexes and expiry, and the account's CORS origins under cors:<account>", async () => {
    const { kv, handle } = setup();
    const scoped = record("INSERT", "APIKEY#abc", "APIKEY", {
      NewImage: {
        pk: { S: "APIKEY#abc" },
        sk: { S: "APIKEY" },
        version: { N: "1" },
        system_account_id: { S: "acct_1" },
        uid: { S: "5b0f3c1e-0000-4000-8000-000000000001" },
        actions: { L: [{ S: "search" }] },
        indexes: { L: [{ S: "prod*" }] },
        expires_at: { S: "2027-01-01T00:00:00.000Z" },
      },
    });
    const cors = record("INSERT", "acct_1", "CORS", {
      NewImage: {
        pk: { S: "acct_1" },
        sk: { S: "CORS" },
        version: { N: "1" },
        read_origins: { L: [{ S: "https://shop.example" }] },
        write_origins: { L: [] },
      },
    });
    expect(await handle(event(scoped, cors))).toEqual({ batchItemFailures: [] });
    expect(await kvJson(kv, "apikey:abc")).toEqual({
      system_account_id: "acct_1",
      uid: "5b0f3c1e-0000-4000-8000-000000000001",
      actions: ["search"],
      indexes: ["prod*"],
      expires_at: "2027-01-01T00:00:00.000Z",
      version: 1,
    });
    expect(await kvJson(kv, "cors:acct_1")).toMatchObject({
      system_account_id: "acct_1",
      read_origins: ["https://shop.example"],
      write_origins: [],
    });
  });

  it("exports a malformed relevance_trigger_config from a console edit as it is, and logs an error", async () => {
    const { kv, log, handle } = setup();
    const image = {
      ...indexImage("acct_2", "shoes", 0),
      // An operator's edit: no tags_field, and the version attribute untouched (here: never set).
      relevance_trigger_config: { M: { model_id: { S: "acct_2:shoes:v1" }, title_field: { S: "name" } } },
    };
    delete (image as Record<string, unknown>).version;
    const edit = record("MODIFY", "acct_2", "INDEX#shoes", {
      NewImage: image,
      OldImage: indexImage("acct_2", "shoes", 1),
    });
    expect(await handle(event(edit))).toEqual({ batchItemFailures: [] });
    expect(await kvJson(kv, "acct_2-shoes")).toMatchObject({
      version: 0,
      relevance_trigger_config: { model_id: "acct_2:shoes:v1", title_field: "name" },
    });
    const errors = log.lines.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/malformed relevance_trigger_config/);
    expect(errors[0]?.fields).toMatchObject({
      pk: "acct_2",
      sk: "INDEX#shoes",
      key: "acct_2-shoes",
      sequence: edit.dynamodb?.SequenceNumber,
    });
    expect(String(errors[0]?.fields.problem)).toMatch(/tags_field/);
  });

  it("a KV fault (SqliteKv wrapped to refuse one put) stops the batch at exactly that record", async () => {
    const kv = new SqliteKvWithFailingPut(new SqliteKv(openDatabase(":memory:")), "acct_3-broken");
    const { log, handle } = setup(kv);
    const before = insertIndex("acct_3", "first");
    const broken = insertIndex("acct_3", "broken");
    const after = [insertIndex("acct_3", "later"), insertProducts];
    const batch = event(before, broken, ...after);

    const result = await handle(batch);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: broken.dynamodb?.SequenceNumber }] });
    expect(kv.puts).toBe(FAST.attempts); // exportChange's own retries ran first
    expect(await kv.list("")).toEqual(["acct_3-first"]); // nothing after the failure was applied
    const errors = log.lines.filter((l) => l.level === "error");
    expect(errors).toEqual([
      {
        level: "error",
        message: "settings export failed after retries; the batch stops here and Lambda retries it",
        fields: {
          pk: "acct_3",
          sk: "INDEX#broken",
          key: "acct_3-broken",
          sequence: broken.dynamodb?.SequenceNumber,
          error: "injected fault: KV put of acct_3-broken refused",
        },
      },
    ]);

    // Lambda retries from the reported record (earlier ones are checkpointed); once KV recovers,
    // the rest of the batch goes through in order.
    kv.failing = false;
    expect(await handle(event(broken, ...after))).toEqual({ batchItemFailures: [] });
    expect(await kv.list("")).toEqual(["acct_1-products", "acct_3-broken", "acct_3-first", "acct_3-later"]);
  });

  it("delivering the same event twice gives the same KV state", async () => {
    const batch = event(
      insertProducts,
      modifyProducts,
      insertIndex("acct_4", "a"),
      insertIndex("acct_4", "b"),
      record("REMOVE", "acct_4", "INDEX#a", { OldImage: indexImage("acct_4", "a", 1) }),
    );
    const { kv, handle } = setup();
    expect(await handle(batch)).toEqual({ batchItemFailures: [] });
    const once = await snapshot(kv);
    expect(Object.keys(once)).toEqual(["acct_1-products", "acct_4-b"]);
    expect(await handle(batch)).toEqual({ batchItemFailures: [] });
    expect(await snapshot(kv)).toEqual(once);
  });

  it("moves the copy when a shop_id is added (old key deleted)", async () => {
    const { kv, handle } = setup();
    const created = insertIndex("acct_5", "shop");
    const withShop = record("MODIFY", "acct_5", "INDEX#shop", {
      OldImage: indexImage("acct_5", "shop", 1),
      NewImage: { ...indexImage("acct_5", "shop", 2), shop_id: { S: "shop-42" } },
    });
    await handle(event(created, withShop));
    expect(await kv.list("")).toEqual(["shop-42"]);
  });

  it("stops at a record it cannot read (KEYS_ONLY stream) and names it", async () => {
    const { kv, log, handle } = setup();
    const keysOnly: DynamoDBRecord = {
      ...insertIndex("acct_6", "x"),
      dynamodb: {
        Keys: { pk: { S: "acct_6" }, sk: { S: "INDEX#x" } },
        SequenceNumber: "999000000000000000000001",
        StreamViewType: "KEYS_ONLY",
      },
    };
    const result = await handle(event(insertIndex("acct_6", "ok"), keysOnly, insertIndex("acct_6", "after")));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: "999000000000000000000001" }] });
    expect(await kv.list("")).toEqual(["acct_6-ok"]);
    expect(log.lines.find((l) => l.level === "error")?.fields.error).toMatch(/NEW_AND_OLD_IMAGES/);
  });

  it("handles an empty batch", async () => {
    const { handle } = setup();
    expect(await handle(event())).toEqual({ batchItemFailures: [] });
  });
});

describe("deployment wiring", () => {
  it("kvFromEnv names every missing variable", () => {
    expect(() => kvFromEnv({ CLOUDFLARE_ACCOUNT_ID: "a" })).toThrow(
      "ecom_settings_exporter: missing environment CLOUDFLARE_API_TOKEN, KV_NAMESPACE_ID",
    );
    expect(
      kvFromEnv({ CLOUDFLARE_ACCOUNT_ID: "a", CLOUDFLARE_API_TOKEN: "t", KV_NAMESPACE_ID: "n" }),
    ).toBeTruthy();
  });

  it("jsonLogger writes one JSON object per line, errors to stderr", () => {
    const out: string[] = [];
    const err: string[] = [];
    const log = jsonLogger(
      "ecom_settings_exporter",
      (l) => out.push(l),
      (l) => err.push(l),
    );
    log.info("settings copy written", { key: "a-b" });
    log.error("settings export failed", { sequence: "1" });
    expect(out).toHaveLength(1);
    expect(err).toHaveLength(1);
    expect(out[0]?.endsWith("\n")).toBe(true);
    expect(JSON.parse(out[0] as string)).toMatchObject({
      level: "info",
      component: "ecom_settings_exporter",
      message: "settings copy written",
      key: "a-b",
    });
    expect(JSON.parse(err[0] as string)).toMatchObject({ level: "error", sequence: "1" });
  });
});
