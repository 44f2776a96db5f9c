/**
 * Test helper: dynalite in the test process with a fresh transitions table per store
 * (`createTransitionTableInput`, the shape the stack builds in CDK).
 */
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { startDynalite } from "@relevance/settings/test-support/dynalite";
import { createTransitionTableInput, DynamoDbTransitionStore } from "../transition-store-dynamodb.ts";

export interface TransitionsDynalite {
  /** A store on a new, empty table. */
  newStore(): Promise<DynamoDbTransitionStore>;
  /** A new, empty transitions table (for the other stores kept in it, e.g. silences). */
  newTable(): Promise<{ client: DynamoDBClient; tableName: string }>;
  close(): Promise<void>;
}

let tables = 0;

export async function startTransitionsDynalite(): Promise<TransitionsDynalite> {
  const db = await startDynalite();
  async function newTable() {
    const name = `test-${++tables}-MonitorTransitions`;
    await db.client.send(new CreateTableCommand(createTransitionTableInput(name)));
    // dynalite answers ResourceNotFound until the table leaves CREATING.
    for (;;) {
      const { Table } = await db.client.send(new DescribeTableCommand({ TableName: name }));
      if (Table?.TableStatus === "ACTIVE") break;
      await new Promise((r) => setTimeout(r, 1));
    }
    return { client: db.client, tableName: name };
  }
  return {
    newTable,
    async newStore() {
      return new DynamoDbTransitionStore(await newTable());
    },
    close: () => db.close(),
  };
}
