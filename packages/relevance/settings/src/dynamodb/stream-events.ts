import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import type { Change, TableItem } from "../ports.ts";
import { type DynamoItem, fromDynamoItem } from "./attributes.ts";

const KINDS = { INSERT: "insert", MODIFY: "modify", REMOVE: "remove" } as const;

/** A stream record that cannot become a Change (wrong view type, missing keys, unknown event). */
export class StreamRecordError extends Error {
  /** The record's SequenceNumber, when it has one (Lambda retries from it). */
  readonly sequence: string | undefined;

  constructor(message: string, sequence: string | undefined) {
    super(message);
    this.name = "StreamRecordError";
    this.sequence = sequence;
  }
}

// Lambda delivers images as AttributeValue JSON (B as base64 strings); the SDK's unmarshall reads
// that shape, passing binaries through as they are.
const asItem = (image: Record<string, unknown>): DynamoItem => image as Record<string, AttributeValue>;

function image(raw: Record<string, unknown> | undefined, keys: { pk: string; sk: string }): TableItem | null {
  if (raw === undefined) return null;
  // Keys are authoritative; an image carries them too, but the record's Keys win.
  return fromDynamoItem({ ...asItem(raw), pk: { S: keys.pk }, sk: { S: keys.sk } });
}

/**
 * One DynamoDB Streams record (NEW_AND_OLD_IMAGES) as a Change. TableItem: `pk` and `sk` from Keys,
 * `version` from the image (0 when missing, e.g. an item created in the console), every other
 * attribute unmarshalled to plain JSON. Throws StreamRecordError when the record cannot be used.
 */
export function changeFromStreamRecord(record: DynamoDBRecord): Change {
  const stream = record.dynamodb;
  const sequence = stream?.SequenceNumber;
  const fail = (problem: string): never => {
    throw new StreamRecordError(
      `stream record ${sequence ?? record.eventID ?? "(no SequenceNumber)"}: ${problem}`,
      sequence,
    );
  };
  if (stream === undefined) return fail("has no dynamodb section");
  if (sequence === undefined || sequence === "") return fail("has no SequenceNumber");
  const name = record.eventName;
  const kind = name !== undefined && Object.hasOwn(KINDS, name) ? KINDS[name] : undefined;
  if (kind === undefined) return fail(`unknown eventName ${JSON.stringify(record.eventName)}`);
  const pk = stream.Keys?.pk?.S;
  const sk = stream.Keys?.sk?.S;
  if (pk === undefined || sk === undefined) {
    return fail("has no Keys with string pk and sk; is this the settings table's stream?");
  }
  const keys = { pk, sk };
  const newItem = image(stream.NewImage, keys);
  const oldItem = image(stream.OldImage, keys);
  const viewHint = `(StreamViewType ${stream.StreamViewType ?? "unknown"}; the exporter needs NEW_AND_OLD_IMAGES)`;
  if (kind !== "remove" && newItem === null) return fail(`${record.eventName} without NewImage ${viewHint}`);
  if (kind !== "insert" && oldItem === null) return fail(`${record.eventName} without OldImage ${viewHint}`);
  return {
    sequence,
    pk,
    sk,
    kind,
    oldItem: kind === "insert" ? null : oldItem,
    newItem: kind === "remove" ? null : newItem,
  };
}

/** Every record of a DynamoDB Streams event as a Change, in delivery order. */
export function changesFromStreamEvent(event: DynamoDBStreamEvent): Change[] {
  return event.Records.map(changeFromStreamRecord);
}
