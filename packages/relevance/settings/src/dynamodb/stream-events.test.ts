import type { DynamoDBRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { changeFromStreamRecord, changesFromStreamEvent, StreamRecordError } from "./stream-events.ts";

const ARN =
  "arn:aws:dynamodb:us-east-1:123456789012:table/dev-EcomIndexSettingsTable/stream/2026-11-21T00:00:00.000";

const base = (
  eventName: "INSERT" | "MODIFY" | "REMOVE",
  dynamodb: DynamoDBRecord["dynamodb"],
): DynamoDBRecord => ({
  eventID: "1",
  eventName,
  eventVersion: "1.1",
  eventSource: "aws:dynamodb",
  awsRegion: "us-east-1",
  dynamodb,
  eventSourceARN: ARN,
});

const keys = { pk: { S: "acct" }, sk: { S: "INDEX#p" } };

describe("changesFromStreamEvent (DynamoDB Streams → Change)", () => {
  it("converts INSERT, MODIFY and REMOVE with both images, in order", () => {
    const v1 = { ...keys, version: { N: "1" }, type: { S: "index" }, n: { N: "1.5" }, ok: { BOOL: true } };
    const v2 = {
      ...keys,
      version: { N: "2" },
      type: { S: "index" },
      relevance_trigger_config: {
        M: { model_id: { S: "acct:p:v1" }, title_field: { NULL: true }, tags_field: { NULL: true } },
      },
    };
    const changes = changesFromStreamEvent({
      Records: [
        base("INSERT", {
          ApproximateCreationDateTime: 1,
          Keys: keys,
          NewImage: v1,
          SequenceNumber: "100",
          StreamViewType: "NEW_AND_OLD_IMAGES",
        }),
        base("MODIFY", { Keys: keys, NewImage: v2, OldImage: v1, SequenceNumber: "200" }),
        base("REMOVE", { Keys: keys, OldImage: v2, SequenceNumber: "300" }),
      ],
    });
    const item1 = { pk: "acct", sk: "INDEX#p", version: 1, attributes: { type: "index", n: 1.5, ok: true } };
    const item2 = {
      pk: "acct",
      sk: "INDEX#p",
      version: 2,
      attributes: {
        type: "index",
        relevance_trigger_config: { model_id: "acct:p:v1", title_field: null, tags_field: null },
      },
    };
    expect(changes).toEqual([
      { sequence: "100", pk: "acct", sk: "INDEX#p", kind: "insert", oldItem: null, newItem: item1 },
      { sequence: "200", pk: "acct", sk: "INDEX#p", kind: "modify", oldItem: item1, newItem: item2 },
      { sequence: "300", pk: "acct", sk: "INDEX#p", kind: "remove", oldItem: item2, newItem: null },
    ]);
  });

  it("reads a missing version as 0 and console-made sets as arrays", () => {
    const change = changeFromStreamRecord(
      base("MODIFY", {
        Keys: keys,
        NewImage: { ...keys, tags: { SS: ["a", "b"] }, counts: { NS: ["1", "2"] } },
        OldImage: { ...keys },
        SequenceNumber: "5",
      }),
    );
    expect(change.newItem).toEqual({
      pk: "acct",
      sk: "INDEX#p",
      version: 0,
      attributes: { tags: ["a", "b"], counts: [1, 2] },
    });
    expect(change.oldItem?.version).toBe(0);
  });

  it("rejects records it cannot use, with a clear error", () => {
    const noKeys = base("INSERT", { NewImage: { ...keys }, SequenceNumber: "7" });
    expect(() => changeFromStreamRecord(noKeys)).toThrow(StreamRecordError);
    expect(() => changeFromStreamRecord(noKeys)).toThrow(
      "stream record 7: has no Keys with string pk and sk",
    );
    expect(() =>
      changeFromStreamRecord(
        base("INSERT", { Keys: keys, SequenceNumber: "8", StreamViewType: "KEYS_ONLY" }),
      ),
    ).toThrow(/INSERT without NewImage \(StreamViewType KEYS_ONLY; the exporter needs NEW_AND_OLD_IMAGES\)/);
    expect(() =>
      changeFromStreamRecord(
        base("REMOVE", { Keys: keys, SequenceNumber: "9", StreamViewType: "NEW_IMAGE" }),
      ),
    ).toThrow(/REMOVE without OldImage/);
    expect(() => changeFromStreamRecord(base("INSERT", { Keys: keys, NewImage: keys }))).toThrow(
      /has no SequenceNumber/,
    );
    const unknown = { ...base("INSERT", { Keys: keys, NewImage: keys, SequenceNumber: "10" }) };
    (unknown as { eventName: string }).eventName = "toString";
    expect(() => changeFromStreamRecord(unknown)).toThrow(/unknown eventName "toString"/);
    try {
      changeFromStreamRecord(noKeys);
    } catch (error) {
      expect((error as StreamRecordError).sequence).toBe("7");
    }
  });
});
