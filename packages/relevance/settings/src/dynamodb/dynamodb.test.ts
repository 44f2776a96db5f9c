import {
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsTableContract } from "../contract/settings-table.contract.ts";
import { type DynaliteServer, startDynalite } from "./dynalite.ts";
import { createSettingsTableInput, DynamoSettingsTable } from "./settings-table.ts";

let dynamo: DynaliteServer;

beforeAll(async () => {
  dynamo = await startDynalite();
});

afterAll(async () => {
  await dynamo?.close();
});

async function freshTable(): Promise<{ table: DynamoSettingsTable; tableName: string }> {
  const tableName = await dynamo.createSettingsTable();
  return { table: new DynamoSettingsTable({ client: dynamo.client, tableName }), tableName };
}

settingsTableContract("DynamoDB (AWS SDK v3 against dynalite)", async () => (await freshTable()).table);

describe("DynamoSettingsTable item layout (raw DynamoDB, against dynalite)", () => {
  const key = { pk: { S: "acct" }, sk: { S: "INDEX#products" } };

  it("creates the table as createSettingsTableInput says (pk HASH, sk RANGE, on demand)", async () => {
    const { tableName } = await freshTable();
    const { Table } = await dynamo.client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: "pk", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ]);
    expect(createSettingsTableInput("prod-EcomIndexSettingsTable")).toMatchObject({
      TableName: "prod-EcomIndexSettingsTable",
      BillingMode: "PAY_PER_REQUEST",
      StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
    });
  });

  it("stores relevance_trigger_config as a top-level M whose null members are NULL", async () => {
    const { table, tableName } = await freshTable();
    await table.put(
      "acct",
      "INDEX#products",
      {
        type: "index",
        searchable_attributes: ["title"],
        relevance_trigger_config: { model_id: "acct:products:v1", title_field: "title", tags_field: null },
      },
      { mustNotExist: true },
    );
    const { Item } = await dynamo.client.send(
      new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
    );
    expect(Item).toEqual({
      pk: { S: "acct" },
      sk: { S: "INDEX#products" },
      version: { N: "1" },
      type: { S: "index" },
      searchable_attributes: { L: [{ S: "title" }] },
      relevance_trigger_config: {
        M: { model_id: { S: "acct:products:v1" }, title_field: { S: "title" }, tags_field: { NULL: true } },
      },
    });
  });

  it("setAttribute writes the same NULL-bearing map a console edit would", async () => {
    const { table, tableName } = await freshTable();
    await table.put("acct", "INDEX#products", { type: "index" }, { mustNotExist: true });
    await table.setAttribute("acct", "INDEX#products", "relevance_trigger_config", {
      model_id: "acct:products:v2",
      title_field: null,
      tags_field: null,
    });
    const { Item } = await dynamo.client.send(
      new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
    );
    expect(Item?.relevance_trigger_config).toEqual({
      M: { model_id: { S: "acct:products:v2" }, title_field: { NULL: true }, tags_field: { NULL: true } },
    });
    expect(Item?.version).toEqual({ N: "2" });
  });

  it("reads back a direct console edit (raw UpdateItem that leaves version alone)", async () => {
    const { table, tableName } = await freshTable();
    await table.put("acct", "INDEX#products", { type: "index" }, { mustNotExist: true });
    await dynamo.client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: "SET relevance_trigger_config = :c",
        ExpressionAttributeValues: {
          ":c": {
            M: {
              model_id: { S: "acct:products:v3" },
              title_field: { S: "name" },
              tags_field: { NULL: true },
            },
          },
        },
      }),
    );
    const item = await table.get("acct", "INDEX#products");
    expect(item).toEqual({
      pk: "acct",
      sk: "INDEX#products",
      version: 1,
      attributes: {
        type: "index",
        relevance_trigger_config: { model_id: "acct:products:v3", title_field: "name", tags_field: null },
      },
    });
    // The version did not move, so a writer that read version 1 still wins (last writer wins, as in
    // the console); the adapter's own setAttribute bumps it instead.
    const write = await table.put("acct", "INDEX#products", { type: "index" }, { expectedVersion: 1 });
    expect(write).toMatchObject({ ok: true, item: { version: 2 } });
  });

  it("treats an item created in the console without a version as version 0", async () => {
    const { table, tableName } = await freshTable();
    await dynamo.client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { ...key, type: { S: "index" }, tags: { SS: ["a", "b"] } },
      }),
    );
    expect(await table.get("acct", "INDEX#products")).toEqual({
      pk: "acct",
      sk: "INDEX#products",
      version: 0,
      attributes: { type: "index", tags: ["a", "b"] },
    });
    expect(await table.put("acct", "INDEX#products", { n: 1 }, { expectedVersion: 3 })).toMatchObject({
      ok: false,
      current: { version: 0 },
    });
    expect(await table.put("acct", "INDEX#products", { n: 1 }, { expectedVersion: 0 })).toMatchObject({
      ok: true,
      item: { version: 1, attributes: { n: 1 } },
    });
    // version 0 never matches an absent item
    expect(await table.put("acct", "INDEX#none", { n: 1 }, { expectedVersion: 0 })).toMatchObject({
      ok: false,
      current: null,
    });
  });

  it("setAttribute on a version-less item starts counting at 1", async () => {
    const { table, tableName } = await freshTable();
    await dynamo.client.send(
      new PutItemCommand({ TableName: tableName, Item: { ...key, type: { S: "index" } } }),
    );
    const edited = await table.setAttribute("acct", "INDEX#products", "shop_id", "shop-1");
    expect(edited).toEqual({
      pk: "acct",
      sk: "INDEX#products",
      version: 1,
      attributes: { type: "index", shop_id: "shop-1" },
    });
  });

  it("put with `always` replaces the whole item and bumps the version", async () => {
    const { table } = await freshTable();
    await table.put("acct", "INDEX#p", { a: 1, b: 2 }, { always: true });
    const second = await table.put("acct", "INDEX#p", { c: 3 }, { always: true });
    expect(second).toMatchObject({ ok: true, item: { version: 2, attributes: { c: 3 } } });
    expect(await table.get("acct", "INDEX#p")).toEqual({
      pk: "acct",
      sk: "INDEX#p",
      version: 2,
      attributes: { c: 3 },
    });
  });

  it("keeps empty strings and drops undefined members", async () => {
    const { table } = await freshTable();
    await table.put(
      "acct",
      "INDEX#p",
      { empty: "", nested: { gone: undefined, kept: [] } },
      { always: true },
    );
    expect((await table.get("acct", "INDEX#p"))?.attributes).toEqual({ empty: "", nested: { kept: [] } });
  });

  it("refuses attribute names reserved for the key and version", async () => {
    const { table } = await freshTable();
    await expect(table.put("acct", "INDEX#p", { version: 9 }, { always: true })).rejects.toThrow(/reserved/);
    await table.put("acct", "INDEX#p", {}, { always: true });
    await expect(table.setAttribute("acct", "INDEX#p", "sk", "x")).rejects.toThrow(/reserved/);
  });

  it("pages through a partition larger than one Query response (1 MB)", async () => {
    const { table } = await freshTable();
    const blob = "x".repeat(100_000);
    const names = Array.from({ length: 14 }, (_, i) => `INDEX#i${String(i).padStart(2, "0")}`);
    for (const sk of names) await table.put("acct", sk, { blob }, { always: true });
    const items = await table.query("acct", "INDEX#");
    expect(items.map((i) => i.sk)).toEqual(names);
  });
});
