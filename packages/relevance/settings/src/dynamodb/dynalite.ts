// Test helper (not exported from index.ts): the shared in-process dynalite with the settings table
// this package's stores and the Lambdas' tests use.
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { startDynaliteApi } from "@shared/test-support/dynalite";
import { createSettingsTableInput } from "./settings-table.ts";

export interface DynaliteServer {
  endpoint: string;
  client: DynamoDBClient;
  /** Creates a fresh, empty settings table with a unique name and returns the name. */
  createSettingsTable(): Promise<string>;
  close(): Promise<void>;
}

let tables = 0;

export async function startDynalite(): Promise<DynaliteServer> {
  const api = await startDynaliteApi();
  return {
    endpoint: api.endpoint,
    client: api.client,
    createSettingsTable: () =>
      api.createTable(createSettingsTableInput(`test-${++tables}-EcomIndexSettingsTable`)),
    close: () => api.close(),
  };
}
