import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { marshall, type marshallOptions, unmarshall } from "@aws-sdk/util-dynamodb";
import type { TableItem } from "../ports.ts";

/** Names of the key and version attributes; no settings attribute may use them. */
export const RESERVED_ATTRIBUTES: readonly string[] = ["pk", "sk", "version"];

export type DynamoItem = Record<string, AttributeValue>;

/**
 * JSON null is NULL, maps are M, arrays are L. Empty strings stay empty strings (DynamoDB allows
 * them outside keys); undefined members are dropped, as JSON.stringify does.
 */
export const MARSHALL_OPTIONS: marshallOptions = {
  removeUndefinedValues: true,
  convertEmptyValues: false,
};

export function assertNotReserved(name: string): void {
  if (RESERVED_ATTRIBUTES.includes(name)) {
    throw new TypeError(`attribute name "${name}" is reserved for the settings table's key and version`);
  }
}

/** The full DynamoDB item of a settings record: key, version and every attribute at the top level. */
export function toDynamoItem(
  pk: string,
  sk: string,
  version: number,
  attributes: Record<string, unknown>,
): DynamoItem {
  for (const name of Object.keys(attributes)) assertNotReserved(name);
  return {
    ...marshall(attributes, MARSHALL_OPTIONS),
    pk: { S: pk },
    sk: { S: sk },
    version: { N: String(version) },
  };
}

/** One attribute value in DynamoDB form (for UpdateItem SET). */
export function toAttributeValue(value: unknown): AttributeValue {
  const marshalled = marshall({ value }, MARSHALL_OPTIONS).value;
  if (marshalled === undefined) throw new TypeError("cannot store an undefined attribute value");
  return marshalled;
}

/**
 * Plain JSON from an unmarshalled value. Items edited in the console may hold sets (SS, NS, BS) or
 * binaries, which JSON cannot carry: sets become arrays, binaries base64 strings.
 */
export function toJson(value: unknown): unknown {
  if (value instanceof Set) return [...value].map(toJson);
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toJson(v);
    return out;
  }
  return value;
}

/**
 * A settings record from a DynamoDB item (GetItem, Query or a stream image). `version` is 0 when the
 * item has none (created or rewritten in the console), so a conditional write can still target it.
 */
export function fromDynamoItem(item: DynamoItem): TableItem {
  const { pk, sk, version, ...rest } = item;
  if (pk?.S === undefined || sk?.S === undefined) {
    throw new TypeError("settings table item lacks a string pk or sk");
  }
  const n = version?.N === undefined ? 0 : Number(version.N);
  return {
    pk: pk.S,
    sk: sk.S,
    version: Number.isFinite(n) ? n : 0,
    attributes: toJson(unmarshall(rest)) as Record<string, unknown>,
  };
}
