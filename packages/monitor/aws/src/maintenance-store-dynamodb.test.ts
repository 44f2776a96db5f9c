/** The MaintenanceStore contract on DynamoDB (dynalite): one item of a fresh transitions table per case. */
import type { MaintenanceWindow } from "@monitor/core";
import { maintenanceStoreContract } from "@monitor/core/contract/maintenance-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDbMaintenanceStore } from "./maintenance-store-dynamodb.ts";
import { DynamoDbSilenceStore } from "./silence-store-dynamodb.ts";
import { startTransitionsDynalite, type TransitionsDynalite } from "./test-support/dynalite-transitions.ts";

let dynamo: TransitionsDynalite;
beforeAll(async () => {
  dynamo = await startTransitionsDynalite();
});
afterAll(async () => dynamo?.close());

maintenanceStoreContract({
  name: "DynamoDB (dynalite)",
  open: async () => new DynamoDbMaintenanceStore(await dynamo.newTable()),
});

describe("DynamoDB maintenance store", () => {
  it("concurrent creates on one table all land, beside the silences' item", async () => {
    const table = await dynamo.newTable();
    const a = new DynamoDbMaintenanceStore(table);
    const b = new DynamoDbMaintenanceStore(table);
    const silences = new DynamoDbSilenceStore(table);
    await silences.create({
      id: "s",
      matchers: { rule: "disk_high", subject: null },
      author: "ann",
      reason: "r",
      startsAt: 1,
      endsAt: 2,
      createdAt: 1,
    });
    const w = (id: string): MaintenanceWindow => ({
      id,
      scope: { all: true },
      author: "ann",
      reason: "r",
      createdAt: 1,
      timing: { kind: "once", startsAt: 1, endsAt: 2 },
      endedAt: null,
    });
    await Promise.all(["1", "2", "3", "4"].map((id, i) => (i % 2 === 0 ? a : b).create(w(id))));
    expect((await a.list()).map((x) => x.id)).toEqual(["1", "2", "3", "4"]);
    expect((await silences.list()).map((x) => x.id)).toEqual(["s"]);
  });
});
