/**
 * Test helper: dynalite in the test process with a fresh transitions table per store
 * (`createTransitionTableInput`, the shape the stack builds in CDK).
 */
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { startDynaliteApi } from "@shared/test-support/dynalite";
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
  const db = await startDynaliteApi();
  async function newTable() {
    const tableName = await db.createTable(createTransitionTableInput(`test-${++tables}-MonitorTransitions`));
    return { client: db.client, tableName };
  }
  return {
    newTable,
    async newStore() {
      return new DynamoDbTransitionStore(await newTable());
    },
    close: () => db.close(),
  };
}
