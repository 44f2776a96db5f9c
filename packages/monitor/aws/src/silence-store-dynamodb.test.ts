/** The SilenceStore contract on DynamoDB (dynalite): one item of a fresh transitions table per case. */
import { silenceStoreContract } from "@monitor/core/contract/silence-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbSilenceStore } from "./silence-store-dynamodb.ts";
import { startTransitionsDynalite, type TransitionsDynalite } from "./test-support/dynalite-transitions.ts";

let dynamo: TransitionsDynalite;
beforeAll(async () => {
  dynamo = await startTransitionsDynalite();
});
afterAll(async () => dynamo?.close());

silenceStoreContract({
  name: "DynamoDB (dynalite)",
  open: async () => new DynamoDbSilenceStore(await dynamo.newTable()),
});

describe("DynamoDB silence store", () => {
  it("concurrent creates on one table all land (conditional writes retried)", async () => {
    const table = await dynamo.newTable();
    const a = new DynamoDbSilenceStore(table);
    const b = new DynamoDbSilenceStore(table);
    const s = (id: string) => ({
      id,
      matchers: { rule: "disk_high" as const, subject: null },
      author: "ann",
      reason: "r",
      startsAt: 1,
      endsAt: 2,
      createdAt: 1,
    });
    await Promise.all(["1", "2", "3", "4"].map((id, i) => (i % 2 === 0 ? a : b).create(s(id))));
    expect((await a.list()).map((x) => x.id)).toEqual(["1", "2", "3", "4"]);
  });
});
