import {
  ConditionalCheckFailedException,
  type CreateTableCommandInput,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { DeleteResult, SettingsTable, TableItem, WriteCondition, WriteResult } from "../ports.ts";
import {
  assertNotReserved,
  type DynamoItem,
  fromDynamoItem,
  toAttributeValue,
  toDynamoItem,
} from "./attributes.ts";

export interface DynamoSettingsTableOptions {
  client: DynamoDBClient;
  /** `{env}-EcomIndexSettingsTable` in production. */
  tableName: string;
}

/** The CreateTable input of the settings table (tests, local setup and infrastructure code). */
export function createSettingsTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" },
      { AttributeName: "sk", AttributeType: "S" },
    ],
    KeySchema: [
      { AttributeName: "pk", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ],
    BillingMode: "PAY_PER_REQUEST",
    // ecom_settings_exporter needs both images: the new one to copy, the old one to delete.
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  };
}

/** A conditional expression (with its names and values) for one WriteCondition. */
interface Guard {
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: DynamoItem;
}

/** Condition of a write that needs the item at version `expected` (0: an item that has no version). */
function atVersion(expected: number): Guard {
  return expected === 0
    ? {
        // Items created or rewritten in the console may carry no version; they read as version 0.
        ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(#v) OR #v = :expected)",
        ExpressionAttributeNames: { "#v": "version" },
        ExpressionAttributeValues: { ":expected": { N: "0" } },
      }
    : {
        ConditionExpression: "#v = :expected",
        ExpressionAttributeNames: { "#v": "version" },
        ExpressionAttributeValues: { ":expected": { N: String(expected) } },
      };
}

const MUST_NOT_EXIST: Guard = { ConditionExpression: "attribute_not_exists(pk)" };
const MUST_EXIST: Guard = { ConditionExpression: "attribute_exists(pk)" };

/** How often `always` writes re-read and retry when another writer gets in between. */
const ALWAYS_ATTEMPTS = 20;

const isConditionFailure = (error: unknown): error is ConditionalCheckFailedException =>
  error instanceof ConditionalCheckFailedException ||
  (error instanceof Error && error.name === "ConditionalCheckFailedException");

/**
 * The settings table on DynamoDB (`{env}-EcomIndexSettingsTable`, pk/sk strings). Each record is one
 * item: `pk`, `sk`, `version` (N) and every settings attribute at the top level in native DynamoDB
 * types (maps as M, JSON null as NULL), so an operator's console edit and this adapter see
 * the same shape. Every write is conditional on the version, and every read is strongly consistent.
 */
export class DynamoSettingsTable implements SettingsTable {
  private readonly client: DynamoDBClient;
  private readonly tableName: string;

  constructor(options: DynamoSettingsTableOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async get(pk: string, sk: string): Promise<TableItem | null> {
    const out = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: this.key(pk, sk), ConsistentRead: true }),
    );
    return out.Item === undefined ? null : fromDynamoItem(out.Item);
  }

  async put(
    pk: string,
    sk: string,
    attributes: Record<string, unknown>,
    condition: WriteCondition,
  ): Promise<WriteResult> {
    if ("mustNotExist" in condition) return this.putGuarded(pk, sk, attributes, 1, MUST_NOT_EXIST);
    if ("expectedVersion" in condition) {
      const expected = condition.expectedVersion;
      return this.putGuarded(pk, sk, attributes, expected + 1, atVersion(expected));
    }
    // `always`: read the version, then write conditionally on it; retry if someone got in between.
    for (let attempt = 1; attempt <= ALWAYS_ATTEMPTS; attempt++) {
      const current = await this.get(pk, sk);
      const guard = current === null ? MUST_NOT_EXIST : atVersion(current.version);
      const result = await this.putGuarded(pk, sk, attributes, (current?.version ?? 0) + 1, guard);
      if (result.ok) return result;
    }
    throw new Error(`put of ${pk}/${sk} lost ${ALWAYS_ATTEMPTS} races in a row`);
  }

  async delete(pk: string, sk: string, condition: WriteCondition): Promise<DeleteResult> {
    if ("mustNotExist" in condition) {
      // Deleting an item that must not exist can never succeed.
      return { ok: false, reason: "conflict", current: await this.get(pk, sk) };
    }
    const guard = "expectedVersion" in condition ? atVersion(condition.expectedVersion) : MUST_EXIST;
    try {
      const out = await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: this.key(pk, sk),
          ...guard,
          ReturnValues: "ALL_OLD",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      );
      if (out.Attributes === undefined) throw new Error(`DeleteItem of ${pk}/${sk} returned no old image`);
      return { ok: true, old: fromDynamoItem(out.Attributes) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { ok: false, reason: "conflict", current: await this.currentAfterFailure(pk, sk, error) };
    }
  }

  async query(pk: string, skPrefix: string): Promise<TableItem[]> {
    const items: TableItem[] = [];
    // begins_with needs a non-empty operand: an empty prefix means the whole partition.
    const input: QueryCommandInput =
      skPrefix === ""
        ? {
            TableName: this.tableName,
            KeyConditionExpression: "pk = :pk",
            ExpressionAttributeValues: { ":pk": { S: pk } },
            ConsistentRead: true,
          }
        : {
            TableName: this.tableName,
            KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues: { ":pk": { S: pk }, ":prefix": { S: skPrefix } },
            ConsistentRead: true,
          };
    let startKey: DynamoItem | undefined;
    do {
      const out = await this.client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
      for (const item of out.Items ?? []) items.push(fromDynamoItem(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined);
    return items;
  }

  async setAttribute(pk: string, sk: string, name: string, value: unknown): Promise<TableItem | null> {
    assertNotReserved(name);
    const values: DynamoItem = { ":one": { N: "1" }, ":zero": { N: "0" } };
    let update = "SET #v = if_not_exists(#v, :zero) + :one";
    if (value === undefined) update += " REMOVE #name";
    else {
      update += ", #name = :value";
      values[":value"] = toAttributeValue(value);
    }
    try {
      const out = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: this.key(pk, sk),
          UpdateExpression: update,
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeNames: { "#name": name, "#v": "version" },
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_NEW",
        }),
      );
      if (out.Attributes === undefined) throw new Error(`UpdateItem of ${pk}/${sk} returned no new image`);
      return fromDynamoItem(out.Attributes);
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  private async putGuarded(
    pk: string,
    sk: string,
    attributes: Record<string, unknown>,
    version: number,
    guard: Guard,
  ): Promise<WriteResult> {
    const item = toDynamoItem(pk, sk, version, attributes);
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: item,
          ...guard,
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      );
      // What was stored, read back through the same mapping as get() (drops undefined members).
      return { ok: true, item: fromDynamoItem(item) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { ok: false, reason: "conflict", current: await this.currentAfterFailure(pk, sk, error) };
    }
  }

  /**
   * The item that failed a condition: DynamoDB returns it with ReturnValuesOnConditionCheckFailure
   * (ALL_OLD); servers that do not (dynalite) and absent items get a strongly consistent re-read.
   */
  private async currentAfterFailure(
    pk: string,
    sk: string,
    error: ConditionalCheckFailedException,
  ): Promise<TableItem | null> {
    return error.Item === undefined ? this.get(pk, sk) : fromDynamoItem(error.Item);
  }

  private key(pk: string, sk: string): DynamoItem {
    return { pk: { S: pk }, sk: { S: sk } };
  }
}
